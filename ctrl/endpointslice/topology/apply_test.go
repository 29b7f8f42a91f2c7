package topology

import (
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
)

// TestHintsEnabled covers hintsEnabled of k8s.io/endpointslice@v0.37.2
// utils.go: "Auto" or "auto" in topology-mode, or in the deprecated
// topology-aware-hints, which takes precedence when both are set.
func TestHintsEnabled(t *testing.T) {
	tests := []struct {
		ann  map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{AnnotationTopologyMode: "Auto"}, true},
		{map[string]string{AnnotationTopologyMode: "auto"}, true},
		{map[string]string{AnnotationTopologyMode: "AUTO"}, false},
		{map[string]string{AnnotationTopologyMode: "Disabled"}, false},
		{map[string]string{AnnotationTopologyMode: ""}, false},
		{map[string]string{DeprecatedAnnotationTopologyAwareHints: "Auto"}, true},
		{map[string]string{DeprecatedAnnotationTopologyAwareHints: "auto", AnnotationTopologyMode: "Disabled"}, true},
		{map[string]string{DeprecatedAnnotationTopologyAwareHints: "Disabled", AnnotationTopologyMode: "Auto"}, false},
		{map[string]string{DeprecatedAnnotationTopologyAwareHints: "", AnnotationTopologyMode: "Auto"}, false},
		{map[string]string{"other": "Auto"}, false},
	}
	for _, tt := range tests {
		if got := HintsEnabled(tt.ann); got != tt.want {
			t.Errorf("HintsEnabled(%v) = %v, want %v", tt.ann, got, tt.want)
		}
	}
}

// TestApply covers the hint step of the reconciler
// (reconcileByAddressType in k8s.io/endpointslice@v0.37.2 reconciler.go):
// which of the annotation, trafficDistribution and hint removal applies,
// and the TopologyAwareHintsDisabled Event when the annotation goes away.
func TestApply(t *testing.T) {
	auto := map[string]string{AnnotationTopologyMode: "Auto"}
	// Two endpoints in a, none in b: the cache hints one of them to b.
	cacheHinted := func() []*api.EndpointSlice {
		return list(slice("s", ep("10.0.0.1", zone("a"), node("n1"), zoneHint("b")), ep("10.0.0.2", zone("a"), node("n2"), zoneHint("a"))))
	}
	tests := []struct {
		name          string
		noCache       bool
		populated     bool // the cache gave the Service hints earlier
		ann           map[string]string
		td            *string
		si            *SliceInfo
		wantCreate    []*api.EndpointSlice
		wantUpdate    []*api.EndpointSlice
		wantUnchanged []string
		wantEvents    []Event
		wantPopulated bool
	}{{
		name:          "annotation Auto: the cache spreads the endpoints",
		ann:           auto,
		si:            &SliceInfo{ToCreate: list(slice("s", ep("10.0.0.1", zone("a"), node("n1")), ep("10.0.0.2", zone("a"), node("n2"))))},
		wantCreate:    cacheHinted(),
		wantEvents:    []Event{enabled()},
		wantPopulated: true,
	}, {
		// The annotation wins over trafficDistribution: no node hints.
		name:          "annotation wins over PreferSameNode",
		ann:           auto,
		td:            ptr("PreferSameNode"),
		si:            &SliceInfo{ToCreate: list(slice("s", ep("10.0.0.1", zone("a"), node("n1")), ep("10.0.0.2", zone("a"), node("n2"))))},
		wantCreate:    cacheHinted(),
		wantEvents:    []Event{enabled()},
		wantPopulated: true,
	}, {
		// Annotation removed, no trafficDistribution: Warning, hints removed,
		// the unchanged slice copied to the update list.
		name:       "annotation removed: hints removed",
		populated:  true,
		si:         &SliceInfo{Unchanged: cacheHinted()},
		wantUpdate: list(slice("s", ep("10.0.0.1", zone("a"), node("n1")), ep("10.0.0.2", zone("a"), node("n2")))),
		wantEvents: []Event{warning(TopologyAwareHintsDisabled)},
	}, {
		// Annotation removed, PreferClose set: Warning, and trafficDistribution's
		// own hints (each endpoint to its zone) replace the cache's.
		name:       "annotation removed, PreferClose takes over",
		populated:  true,
		td:         ptr("PreferClose"),
		si:         &SliceInfo{Unchanged: cacheHinted()},
		wantUpdate: list(slice("s", ep("10.0.0.1", zone("a"), node("n1"), zoneHint("a")), ep("10.0.0.2", zone("a"), node("n2"), zoneHint("a")))),
		wantEvents: []Event{warning(TopologyAwareHintsDisabled)},
	}, {
		// topology-mode: Disabled is no request: trafficDistribution applies.
		name:          "annotation Disabled, PreferSameNode",
		ann:           map[string]string{AnnotationTopologyMode: "Disabled"},
		td:            ptr("PreferSameNode"),
		si:            &SliceInfo{Unchanged: list(slice("ok", ep("10.0.0.1", zone("a"), node("n1"), zoneHint("a"), nodeHint("n1")))), ToCreate: list(slice("c", ep("10.0.0.2", zone("b"), node("n2"))))},
		wantCreate:    list(slice("c", ep("10.0.0.2", zone("b"), node("n2"), zoneHint("b"), nodeHint("n2")))),
		wantUnchanged: []string{"ok"},
	}, {
		// Neither asks: existing hints (say, from trafficDistribution, now unset) go; no Event.
		name:          "nothing asked: hints removed without an Event",
		si:            &SliceInfo{Unchanged: list(slice("hinted", ep("10.0.0.1", zone("a"), zoneHint("a"))), slice("plain", ep("10.0.0.2", zone("a"))))},
		wantUpdate:    list(slice("hinted", ep("10.0.0.1", zone("a")))),
		wantUnchanged: []string{"plain"},
	}, {
		// Without a cache the annotation is not served; it still blocks
		// trafficDistribution, so hints are removed (as upstream).
		name:       "no cache: annotation removes hints",
		noCache:    true,
		ann:        auto,
		td:         ptr("PreferClose"),
		si:         &SliceInfo{ToCreate: list(slice("c", ep("10.0.0.1", zone("a"), zoneHint("a"))))},
		wantCreate: list(slice("c", ep("10.0.0.1", zone("a")))),
	}, {
		name:       "no cache: PreferClose",
		noCache:    true,
		td:         ptr("PreferClose"),
		si:         &SliceInfo{ToCreate: list(slice("c", ep("10.0.0.1", zone("a"))))},
		wantCreate: list(slice("c", ep("10.0.0.1", zone("a"), zoneHint("a")))),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c *Cache
			if !tt.noCache {
				c = twoZones()
				if tt.populated {
					c.SetHints("ns/svc", api.AddressTypeIPv4, EndpointZoneInfo{"a": 1, "b": 1})
				}
			}
			tt.si.ServiceKey, tt.si.AddressType = "ns/svc", api.AddressTypeIPv4
			orig, before := append([]*api.EndpointSlice(nil), tt.si.Unchanged...), cloneAll(tt.si.Unchanged)
			gotCreate, gotUpdate, events := Apply(zerolog.Nop(), c, tt.ann, tt.td, tt.si)
			if got, want := jsonOf(t, nonNil(gotCreate)), jsonOf(t, nonNil(tt.wantCreate)); got != want {
				t.Errorf("toCreate:\n got %s\nwant %s", got, want)
			}
			if got, want := jsonOf(t, nonNil(gotUpdate)), jsonOf(t, nonNil(tt.wantUpdate)); got != want {
				t.Errorf("toUpdate:\n got %s\nwant %s", got, want)
			}
			if got, want := names(tt.si.Unchanged), nonNilNames(tt.wantUnchanged); !slices.Equal(got, want) {
				t.Errorf("unchanged = %v, want %v", got, want)
			}
			if !slices.Equal(events, tt.wantEvents) {
				t.Errorf("events = %v, want %v", events, tt.wantEvents)
			}
			checkInformerUntouched(t, orig, before, gotUpdate)
			if c != nil {
				if got := c.HasPopulatedHints("ns/svc"); got != tt.wantPopulated {
					t.Errorf("HasPopulatedHints = %v, want %v", got, tt.wantPopulated)
				}
			}
		})
	}
}

// TestUsesTrafficDistribution: the metrics' trafficDistribution label is
// set only when the value is served and no topology annotation wins.
func TestUsesTrafficDistribution(t *testing.T) {
	auto := map[string]string{AnnotationTopologyMode: "Auto"}
	for _, tt := range []struct {
		ann  map[string]string
		td   *string
		want bool
	}{
		{nil, nil, false}, {nil, ptr("PreferClose"), true}, {nil, ptr("PreferSameNode"), true},
		{auto, ptr("PreferClose"), false}, {nil, ptr("Bogus"), false},
	} {
		if got := UsesTrafficDistribution(tt.ann, tt.td); got != tt.want {
			t.Errorf("UsesTrafficDistribution(%v, %s) = %v, want %v", tt.ann, deref(tt.td), got, tt.want)
		}
	}
}
