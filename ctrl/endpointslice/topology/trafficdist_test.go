package topology

import (
	"slices"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// TestReconcileHints covers trafficdist.ReconcileHints of
// k8s.io/endpointslice@v0.37.2 (KEP-4444 trafficDistribution, KEP-3015
// PreferSameZone/PreferSameNode): which hints each value sets, and which
// unchanged slices must move to the update list.
func TestReconcileHints(t *testing.T) {
	tests := []struct {
		name          string
		td            *string
		create        []*api.EndpointSlice
		update        []*api.EndpointSlice
		unchanged     []*api.EndpointSlice
		wantCreate    []*api.EndpointSlice
		wantUpdate    []*api.EndpointSlice
		wantUnchanged []string
	}{{
		// PreferClose: each ready endpoint is hinted to its own zone.
		name:       "PreferClose hints each ready endpoint to its zone",
		td:         ptr("PreferClose"),
		create:     list(slice("c", ep("10.0.0.1", zone("a"), node("n1")), ep("10.0.0.2", zone("b")))),
		update:     list(slice("u", ep("10.0.0.3", zone("c")))),
		wantCreate: list(slice("c", ep("10.0.0.1", zone("a"), node("n1"), zoneHint("a")), ep("10.0.0.2", zone("b"), zoneHint("b")))),
		wantUpdate: list(slice("u", ep("10.0.0.3", zone("c"), zoneHint("c")))),
	}, {
		// PreferSameZone is PreferClose's new name: same hints, no node hints.
		name:       "PreferSameZone sets zone hints only",
		td:         ptr("PreferSameZone"),
		create:     list(slice("c", ep("10.0.0.1", zone("a"), node("n1")))),
		wantCreate: list(slice("c", ep("10.0.0.1", zone("a"), node("n1"), zoneHint("a")))),
	}, {
		// PreferSameNode: the zone hint plus a forNodes hint for the endpoint's node.
		name: "PreferSameNode sets zone and node hints",
		td:   ptr("PreferSameNode"),
		create: list(slice("c", ep("10.0.0.1", zone("a"), node("n1")), ep("10.0.0.2", node("n2")),
			ep("10.0.0.3", zone("b")), ep("10.0.0.4"))),
		wantCreate: list(slice("c", ep("10.0.0.1", zone("a"), node("n1"), zoneHint("a"), nodeHint("n1")),
			ep("10.0.0.2", node("n2"), nodeHint("n2")), ep("10.0.0.3", zone("b"), zoneHint("b")), ep("10.0.0.4"))),
	}, {
		// An endpoint without a zone gets no zone hint, and a stale one is removed.
		name:       "PreferClose: endpoint without zone loses its hint",
		td:         ptr("PreferClose"),
		update:     list(slice("u", ep("10.0.0.1", zoneHint("a")))),
		wantUpdate: list(slice("u", ep("10.0.0.1"))),
	}, {
		// Endpoints that are not ready are left as they are (upstream skips them).
		name:          "not-ready endpoints are left alone",
		td:            ptr("PreferClose"),
		create:        list(slice("c", ep("10.0.0.1", zone("a"), notReady()), ep("10.0.0.2", zone("a"), readyUnknown(), zoneHint("x")))),
		wantCreate:    list(slice("c", ep("10.0.0.1", zone("a"), notReady()), ep("10.0.0.2", zone("a"), readyUnknown(), zoneHint("x")))),
		unchanged:     list(slice("s", ep("10.0.0.3", zone("a"), notReady(), zoneHint("x")))),
		wantUnchanged: []string{"s"},
	}, {
		// Only unchanged slices with missing or wrong hints move to the update list.
		name: "PreferClose moves only unchanged slices whose hints are wrong",
		td:   ptr("PreferClose"),
		unchanged: list(
			slice("right", ep("10.0.0.1", zone("a"), zoneHint("a"))),
			slice("missing", ep("10.0.0.2", zone("a"))),
			slice("wrong", ep("10.0.0.3", zone("a"), zoneHint("b"))),
			slice("two", ep("10.0.0.4", zone("a"), zoneHint("a"), zoneHint("b"))),
			slice("stale-node", ep("10.0.0.5", zone("a"), node("n"), zoneHint("a"), nodeHint("n"))),
			slice("empty-no-zone", ep("10.0.0.6", emptyHints())),
		),
		wantUpdate: list(
			slice("missing", ep("10.0.0.2", zone("a"), zoneHint("a"))),
			slice("wrong", ep("10.0.0.3", zone("a"), zoneHint("a"))),
			slice("two", ep("10.0.0.4", zone("a"), zoneHint("a"))),
			slice("stale-node", ep("10.0.0.5", zone("a"), node("n"), zoneHint("a"))),
		),
		wantUnchanged: []string{"right", "empty-no-zone"},
	}, {
		name: "PreferSameNode moves unchanged slices without the node hint",
		td:   ptr("PreferSameNode"),
		unchanged: list(
			slice("right", ep("10.0.0.1", zone("a"), node("n1"), zoneHint("a"), nodeHint("n1"))),
			slice("zone-only", ep("10.0.0.2", zone("a"), node("n2"), zoneHint("a"))),
			slice("wrong-node", ep("10.0.0.3", zone("a"), node("n3"), zoneHint("a"), nodeHint("n1"))),
		),
		wantUpdate: list(
			slice("zone-only", ep("10.0.0.2", zone("a"), node("n2"), zoneHint("a"), nodeHint("n2"))),
			slice("wrong-node", ep("10.0.0.3", zone("a"), node("n3"), zoneHint("a"), nodeHint("n3"))),
		),
		wantUnchanged: []string{"right"},
	}, {
		// No trafficDistribution: every hint goes, not-ready endpoints' too.
		name:          "nil removes all hints",
		create:        list(slice("c", ep("10.0.0.1", zone("a"), zoneHint("a")))),
		unchanged:     list(slice("hinted", ep("10.0.0.2", zone("a"), notReady(), zoneHint("a"))), slice("plain", ep("10.0.0.3", zone("a")))),
		wantCreate:    list(slice("c", ep("10.0.0.1", zone("a")))),
		wantUpdate:    list(slice("hinted", ep("10.0.0.2", zone("a"), notReady()))),
		wantUnchanged: []string{"plain"},
	}, {
		// An unknown value is treated as no trafficDistribution.
		name:          "unknown value removes hints",
		td:            ptr("PreferFar"),
		unchanged:     list(slice("hinted", ep("10.0.0.2", zone("a"), zoneHint("a")))),
		wantUpdate:    list(slice("hinted", ep("10.0.0.2", zone("a")))),
		wantUnchanged: []string{},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig, before := append([]*api.EndpointSlice(nil), tt.unchanged...), cloneAll(tt.unchanged)
			gotCreate, gotUpdate, gotUnchanged := ReconcileHints(tt.td, tt.create, tt.update, tt.unchanged)
			if got, want := jsonOf(t, nonNil(gotCreate)), jsonOf(t, nonNil(tt.wantCreate)); got != want {
				t.Errorf("toCreate:\n got %s\nwant %s", got, want)
			}
			if got, want := jsonOf(t, nonNil(gotUpdate)), jsonOf(t, nonNil(tt.wantUpdate)); got != want {
				t.Errorf("toUpdate:\n got %s\nwant %s", got, want)
			}
			if got, want := names(gotUnchanged), nonNilNames(tt.wantUnchanged); !slices.Equal(got, want) {
				t.Errorf("unchanged = %v, want %v", got, want)
			}
			checkInformerUntouched(t, orig, before, gotUpdate)
		})
	}
}

// TestValidTrafficDistribution: 1.37 serves the three values (the
// PreferSameTrafficDistribution gate is GA and locked on since 1.35).
func TestValidTrafficDistribution(t *testing.T) {
	for _, tt := range []struct {
		td   *string
		want bool
	}{
		{nil, false}, {ptr(""), false}, {ptr("PreferClose"), true}, {ptr("PreferSameZone"), true},
		{ptr("PreferSameNode"), true}, {ptr("preferclose"), false}, {ptr("Other"), false},
	} {
		if got := ValidTrafficDistribution(tt.td); got != tt.want {
			t.Errorf("ValidTrafficDistribution(%v) = %v, want %v", deref(tt.td), got, tt.want)
		}
	}
}

// checkInformerUntouched fails when a slice the caller passed as unchanged
// (the informer's) was modified, or reached the update list uncopied.
func checkInformerUntouched(t *testing.T, orig, before, toUpdate []*api.EndpointSlice) {
	t.Helper()
	if got, want := jsonOf(t, nonNil(orig)), jsonOf(t, nonNil(before)); got != want {
		t.Errorf("unchanged slices were modified in place:\n got %s\nwant %s", got, want)
	}
	for _, u := range toUpdate {
		if slices.Contains(orig, u) {
			t.Errorf("slice %s moved to toUpdate without a copy", u.Name)
		}
	}
}

func nonNil(s []*api.EndpointSlice) []*api.EndpointSlice {
	if s == nil {
		return []*api.EndpointSlice{}
	}
	return s
}

func nonNilNames(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func deref(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}
