package topology

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
)

// TestSetNodes covers TopologyCache.SetNodes of k8s.io/endpointslice@v0.37.2
// topologycache: each zone's share of the allocatable CPU of the Ready,
// non-control-plane nodes; nil when hints are impossible.
func TestSetNodes(t *testing.T) {
	tests := []struct {
		name  string
		nodes []*api.Node
		want  map[string]float64 // nil: insufficient node info
	}{
		{name: "no nodes", want: nil},
		// One zone cannot spread anything: hints need two zones.
		{name: "single node", nodes: []*api.Node{mkNode("n1", "a", "1")}, want: nil},
		{name: "single zone", nodes: []*api.Node{mkNode("n1", "a", "1"), mkNode("n2", "a", "1")}, want: nil},
		{name: "two zones", nodes: []*api.Node{mkNode("n1", "a", "1"), mkNode("n2", "b", "1")},
			want: map[string]float64{"a": 0.5, "b": 0.5}},
		// A node that is not Ready does not count.
		{name: "not-ready node ignored", nodes: []*api.Node{mkNode("n1", "a", "1"), mkNode("n2", "b", "1", nodeNotReady()), mkNode("n3", "c", "1")},
			want: map[string]float64{"a": 0.5, "c": 0.5}},
		{name: "unready in one zone leaves one zone", nodes: []*api.Node{mkNode("n1", "a", "1"), mkNode("n2", "b", "1", nodeNotReady())}, want: nil},
		// Control-plane nodes (either label, any value) carry no workload.
		{name: "control-plane node ignored", nodes: []*api.Node{mkNode("n1", "a", "1"), mkNode("n2", "b", "1", nodeLabel(labelNodeRoleControlPlane)),
			mkNode("n3", "c", "3")}, want: map[string]float64{"a": 0.25, "c": 0.75}},
		{name: "master node ignored", nodes: []*api.Node{mkNode("n1", "a", "1"), mkNode("n2", "b", "1", nodeLabel(labelNodeRoleMaster))}, want: nil},
		// A counted node without zone or CPU disables hints for all (upstream bails out entirely).
		{name: "node without zone label disables hints", nodes: []*api.Node{mkNode("n1", "a", "1"), mkNode("n2", "b", "1"), mkNode("n3", "", "1")}, want: nil},
		{name: "node without cpu disables hints", nodes: []*api.Node{mkNode("n1", "a", "1"), mkNode("n2", "b", "1"), mkNode("n3", "c", "")}, want: nil},
		{name: "node with zero cpu disables hints", nodes: []*api.Node{mkNode("n1", "a", "1"), mkNode("n2", "b", "1"), mkNode("n3", "c", "0")}, want: nil},
		// ...but not when it is not Ready or a control-plane node: then it is never looked at.
		{name: "unready node without zone is ignored", nodes: []*api.Node{mkNode("n1", "a", "1"), mkNode("n2", "b", "1"), mkNode("n3", "", "1", nodeNotReady())},
			want: map[string]float64{"a": 0.5, "b": 0.5}},
		{name: "control-plane node without zone is ignored", nodes: []*api.Node{mkNode("n1", "a", "1"), mkNode("n2", "b", "1"), mkNode("n3", "", "", nodeLabel(labelNodeRoleControlPlane))},
			want: map[string]float64{"a": 0.5, "b": 0.5}},
		// Shares of the summed milli-CPU, whatever the quantity's spelling.
		{name: "3 zones, 4 nodes in 1, 2 in 1, 1 in 1", nodes: []*api.Node{
			mkNode("n1", "a", "1"), mkNode("n2", "a", "1000m"), mkNode("n3", "a", "1"), mkNode("n4", "a", "1"),
			mkNode("n5", "b", "1"), mkNode("n6", "b", "1e0"), mkNode("n7", "c", "1")},
			want: map[string]float64{"a": 4.0 / 7, "b": 2.0 / 7, "c": 1.0 / 7}},
		{name: "milli and fractional quantities", nodes: []*api.Node{mkNode("n1", "a", "1500m"), mkNode("n2", "b", "0.5")},
			want: map[string]float64{"a": 0.75, "b": 0.25}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cacheWith(tt.nodes...)
			if got := c.ZoneRatios(); !maps.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
				t.Errorf("ZoneRatios() = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestAddHints covers TopologyCache.AddHints of k8s.io/endpointslice@v0.37.2
// (KEP-2433 topology aware hints): the refusals with their Warning, the
// same-zone start, the redistribution from zones over their CPU share to
// zones under it, and which unchanged slices must be rewritten.
func TestAddHints(t *testing.T) {
	tests := []struct {
		name          string
		cache         func() *Cache
		si            *SliceInfo
		wantCreate    []*api.EndpointSlice
		wantUpdate    []*api.EndpointSlice
		wantUnchanged []string
		wantEvents    []Event
		wantZones     EndpointZoneInfo // nil: the cache forgot the Service
	}{{
		name:       "no slices: insufficient endpoints",
		cache:      twoZones,
		si:         &SliceInfo{},
		wantEvents: []Event{warning("Insufficient number of endpoints (0 endpoints, 2 zones)")},
	}, {
		// No node information: hints are removed, from unchanged slices too.
		name:       "no zone ratios removes hints",
		cache:      NewCache,
		si:         &SliceInfo{ToCreate: list(slice("c", ep("10.0.0.1", zone("a"), zoneHint("a")))), Unchanged: list(slice("s", ep("10.0.0.2", zone("a"), zoneHint("a"))))},
		wantCreate: list(slice("c", ep("10.0.0.1", zone("a")))),
		wantUpdate: list(slice("s", ep("10.0.0.2", zone("a")))),
		wantEvents: []Event{warning(InsufficientNodeInfo)},
	}, {
		// Fewer ready endpoints than zones: not enough to give each zone one.
		name:       "not enough endpoints: 2 endpoints, 3 zones",
		cache:      threeZones,
		si:         &SliceInfo{ToCreate: list(slice("c", ep("10.0.0.1", zone("a")), ep("10.0.0.2", zone("b")), ep("10.0.0.3", zone("c"), notReady())))},
		wantCreate: list(slice("c", ep("10.0.0.1", zone("a")), ep("10.0.0.2", zone("b")), ep("10.0.0.3", zone("c"), notReady()))),
		wantEvents: []Event{warning("Insufficient number of endpoints (2 endpoints, 3 zones)")},
	}, {
		// Each zone needs ceil(share×n/1.2) endpoints: 4 zones of 5, 5, 5, 85%
		// with 4 endpoints need 1+1+1+3 = 6 > 4.
		name: "minimums exceed the overload threshold",
		cache: func() *Cache {
			return cacheWith(mkNode("n1", "a", "5"), mkNode("n2", "b", "5"), mkNode("n3", "c", "5"), mkNode("n4", "d", "85"))
		},
		si:         &SliceInfo{ToCreate: list(slice("c", ep("10.0.0.1", zone("a")), ep("10.0.0.2", zone("b")), ep("10.0.0.3", zone("c")), ep("10.0.0.4", zone("d"))))},
		wantCreate: list(slice("c", ep("10.0.0.1", zone("a")), ep("10.0.0.2", zone("b")), ep("10.0.0.3", zone("c")), ep("10.0.0.4", zone("d")))),
		wantEvents: []Event{warning("Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (4 endpoints, 4 zones)")},
	}, {
		// A ready endpoint without a zone makes hints impossible.
		name:       "endpoint without zone",
		cache:      twoZones,
		si:         &SliceInfo{ToCreate: list(slice("c", ep("10.0.0.1", zone("a"), zoneHint("a")), ep("10.0.0.2"), ep("10.0.0.3", zone("b")), ep("10.0.0.4", zone("b"))))},
		wantCreate: list(slice("c", ep("10.0.0.1", zone("a")), ep("10.0.0.2"), ep("10.0.0.3", zone("b")), ep("10.0.0.4", zone("b")))),
		wantEvents: []Event{warning(NoZoneSpecified)},
	}, {
		// Two endpoints in two equal zones: each to its own; unready and
		// unknown-ready endpoints are not counted and not hinted.
		name:  "2 ready, 1 unready, 1 unknown endpoints, 2 zones",
		cache: twoZones,
		si: &SliceInfo{ToCreate: list(slice("c", ep("10.0.0.1", zone("a")), ep("10.0.0.2", zone("b")),
			ep("10.0.0.3", zone("a"), notReady()), ep("10.0.0.4", zone("b"), readyUnknown())))},
		wantCreate: list(slice("c", ep("10.0.0.1", zone("a"), zoneHint("a")), ep("10.0.0.2", zone("b"), zoneHint("b")),
			ep("10.0.0.3", zone("a"), notReady()), ep("10.0.0.4", zone("b"), readyUnknown()))),
		wantEvents: []Event{enabled()},
		wantZones:  EndpointZoneInfo{"a": 1, "b": 1},
	}, {
		// Upstream's "slices to create and update within 3 zone threshold":
		// a holds 5 of 10 endpoints for 35% of the CPU, b 2: one a endpoint
		// (the first) is hinted to b.
		name:  "overloaded zone gives an endpoint",
		cache: threeZones,
		si: &SliceInfo{
			ToCreate: list(slice("c1", ep("10.1.2.3", zone("a")), ep("10.1.2.4", zone("b"))),
				slice("c2", ep("10.1.3.3", zone("c")), ep("10.1.3.4", zone("c")), ep("10.1.3.5", zone("a")))),
			ToUpdate: list(slice("u1", ep("10.2.2.3", zone("a")), ep("10.2.2.4", zone("a"))),
				slice("u2", ep("10.2.3.3", zone("b")), ep("10.2.3.4", zone("c")), ep("10.2.3.5", zone("a")))),
		},
		wantCreate: list(slice("c1", ep("10.1.2.3", zone("a"), zoneHint("b")), ep("10.1.2.4", zone("b"), zoneHint("b"))),
			slice("c2", ep("10.1.3.3", zone("c"), zoneHint("c")), ep("10.1.3.4", zone("c"), zoneHint("c")), ep("10.1.3.5", zone("a"), zoneHint("a")))),
		wantUpdate: list(slice("u1", ep("10.2.2.3", zone("a"), zoneHint("a")), ep("10.2.2.4", zone("a"), zoneHint("a"))),
			slice("u2", ep("10.2.3.3", zone("b"), zoneHint("b")), ep("10.2.3.4", zone("c"), zoneHint("c")), ep("10.2.3.5", zone("a"), zoneHint("a")))),
		wantEvents: []Event{enabled()},
		wantZones:  EndpointZoneInfo{"a": 4, "b": 3, "c": 3},
	}, {
		// A zone with nodes but no endpoints receives endpoints from the others.
		name:  "zone without endpoints receives hints",
		cache: twoZones,
		// (A not-ready endpoint is skipped and keeps what it had.)
		si: &SliceInfo{ToCreate: list(slice("c", ep("10.0.0.0", zone("a"), notReady(), zoneHint("x")),
			ep("10.0.0.1", zone("a")), ep("10.0.0.2", zone("a")), ep("10.0.0.3", zone("a")), ep("10.0.0.4", zone("a"))))},
		wantCreate: list(slice("c", ep("10.0.0.0", zone("a"), notReady(), zoneHint("x")),
			ep("10.0.0.1", zone("a"), zoneHint("b")), ep("10.0.0.2", zone("a"), zoneHint("b")), ep("10.0.0.3", zone("a"), zoneHint("a")), ep("10.0.0.4", zone("a"), zoneHint("a")))),
		wantEvents: []Event{enabled()},
		wantZones:  EndpointZoneInfo{"a": 2, "b": 2},
	}, {
		// Two zones tie for the most missing endpoints: kcm settles ties and
		// picks receiving zones in name order (upstream: Go map order, so
		// which endpoint goes where varies between runs; the counts do not).
		name: "receiving zones in name order",
		cache: func() *Cache {
			return cacheWith(mkNode("n1", "a", "1"), mkNode("n2", "b", "1"), mkNode("n3", "c", "1"))
		},
		si: &SliceInfo{ToCreate: list(slice("c", ep("10.0.0.1", zone("a")), ep("10.0.0.2", zone("a")), ep("10.0.0.3", zone("a")),
			ep("10.0.0.4", zone("a")), ep("10.0.0.5", zone("a")), ep("10.0.0.6", zone("a"))))},
		wantCreate: list(slice("c", ep("10.0.0.1", zone("a"), zoneHint("b")), ep("10.0.0.2", zone("a"), zoneHint("b")), ep("10.0.0.3", zone("a"), zoneHint("c")),
			ep("10.0.0.4", zone("a"), zoneHint("c")), ep("10.0.0.5", zone("a"), zoneHint("a")), ep("10.0.0.6", zone("a"), zoneHint("a")))),
		wantEvents: []Event{enabled()},
		wantZones:  EndpointZoneInfo{"a": 2, "b": 2, "c": 2},
	}, {
		// An endpoint in a zone without (ready) nodes keeps a hint for its own
		// zone, as upstream: only zones with nodes give or receive, and a
		// (2 of 4, its desired 2) has none to give, so b stays short. (The
		// Service then counts as overloaded: see TestOverloadedServices.)
		name:  "endpoint in a zone without nodes",
		cache: twoZones,
		si:    &SliceInfo{ToCreate: list(slice("c", ep("10.0.0.1", zone("a")), ep("10.0.0.2", zone("a")), ep("10.0.0.3", zone("b")), ep("10.0.0.4", zone("z"))))},
		wantCreate: list(slice("c", ep("10.0.0.1", zone("a"), zoneHint("a")), ep("10.0.0.2", zone("a"), zoneHint("a")),
			ep("10.0.0.3", zone("b"), zoneHint("b")), ep("10.0.0.4", zone("z"), zoneHint("z")))),
		wantEvents: []Event{enabled()},
		wantZones:  EndpointZoneInfo{"a": 2, "b": 1, "z": 1},
	}, {
		// Unchanged slices whose hints fit stay unchanged and count; those
		// missing a hint, hinting a zone without allocation, or pushing a
		// zone past its maximum (8 ready endpoints: at most 4 per zone; a
		// holds 2 before over-max's 3) are copied to the update list and
		// re-hinted: a (5) then gives its first endpoint to b (3).
		name:  "unchanged slices: only those with invalid hints move",
		cache: twoZones,
		si: &SliceInfo{Unchanged: list(
			slice("ok", ep("10.0.0.1", zone("a"), zoneHint("a")), ep("10.0.0.2", zone("b"), zoneHint("b"), notReady())),
			slice("missing", ep("10.0.0.3", zone("b"))),
			slice("gone-zone", ep("10.0.0.4", zone("b"), zoneHint("z"))),
			slice("ok2", ep("10.0.0.5", zone("a"), zoneHint("a")), ep("10.0.0.6", zone("b"), zoneHint("b"))),
			slice("over-max", ep("10.0.0.7", zone("a"), zoneHint("a")), ep("10.0.0.8", zone("a"), zoneHint("a")), ep("10.0.0.9", zone("a"), zoneHint("a"))),
		)},
		wantUpdate: list(
			slice("missing", ep("10.0.0.3", zone("b"), zoneHint("b"))),
			slice("gone-zone", ep("10.0.0.4", zone("b"), zoneHint("b"))),
			slice("over-max", ep("10.0.0.7", zone("a"), zoneHint("b")), ep("10.0.0.8", zone("a"), zoneHint("a")), ep("10.0.0.9", zone("a"), zoneHint("a"))),
		),
		wantUnchanged: []string{"ok", "ok2"},
		wantEvents:    []Event{enabled()},
		wantZones:     EndpointZoneInfo{"a": 4, "b": 4},
	}, {
		// When every unchanged slice already fits, nothing is written.
		name:          "hints already right: no write",
		cache:         twoZones,
		si:            &SliceInfo{Unchanged: list(slice("s1", ep("10.0.0.1", zone("a"), zoneHint("a"))), slice("s2", ep("10.0.0.2", zone("b"), zoneHint("b"))))},
		wantUnchanged: []string{"s1", "s2"},
		wantEvents:    []Event{enabled()},
		wantZones:     EndpointZoneInfo{"a": 1, "b": 1},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.cache()
			tt.si.ServiceKey, tt.si.AddressType = "ns/svc", api.AddressTypeIPv4
			orig, before := append([]*api.EndpointSlice(nil), tt.si.Unchanged...), cloneAll(tt.si.Unchanged)
			gotCreate, gotUpdate, events := c.AddHints(zerolog.Nop(), tt.si)
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
			got := c.zones("ns/svc", api.AddressTypeIPv4)
			if !maps.Equal(got, tt.wantZones) || (got == nil) != (tt.wantZones == nil) {
				t.Errorf("cached zones = %v, want %v", got, tt.wantZones)
			}
			if got, want := c.HasPopulatedHints("ns/svc"), tt.wantZones != nil; got != want {
				t.Errorf("HasPopulatedHints = %v, want %v", got, want)
			}
		})
	}
}

// TestAddHintsEnabledEventOnce: TopologyAwareHintsEnabled is recorded when
// a Service first gets hints, not on every sync; after a refusal (which
// forgets the Service) it is recorded again.
func TestAddHintsEnabledEventOnce(t *testing.T) {
	c := twoZones()
	si := func(eps ...api.Endpoint) *SliceInfo {
		return &SliceInfo{ServiceKey: "ns/svc", AddressType: api.AddressTypeIPv4, ToCreate: list(slice("c", eps...))}
	}
	steps := []struct {
		si   *SliceInfo
		want []Event
	}{
		{si(ep("10.0.0.1", zone("a")), ep("10.0.0.2", zone("b"))), []Event{enabled()}},
		{si(ep("10.0.0.1", zone("a")), ep("10.0.0.2", zone("b"))), nil},
		{si(ep("10.0.0.1", zone("a"))), []Event{warning("Insufficient number of endpoints (1 endpoints, 2 zones)")}},
		{si(ep("10.0.0.1", zone("a")), ep("10.0.0.2", zone("b"))), []Event{enabled()}},
	}
	for i, s := range steps {
		if _, _, got := c.AddHints(zerolog.Nop(), s.si); !slices.Equal(got, s.want) {
			t.Errorf("step %d: events = %v, want %v", i, got, s.want)
		}
	}
}

// TestOverloadedServices covers GetOverloadedServices and serviceOverloaded:
// after the nodes change, the Services whose hints leave a zone short are
// requeued.
func TestOverloadedServices(t *testing.T) {
	c := twoZones()
	add := func(key string, eps ...api.Endpoint) {
		c.AddHints(zerolog.Nop(), &SliceInfo{ServiceKey: key, AddressType: api.AddressTypeIPv4, ToCreate: list(slice("c", eps...))})
	}
	add("ns/balanced", ep("10.0.0.1", zone("a")), ep("10.0.0.2", zone("b")))
	add("ns/ghost-zone", ep("10.0.0.1", zone("a")), ep("10.0.0.2", zone("a")), ep("10.0.0.3", zone("b")), ep("10.0.0.4", zone("z")))
	add("ns/refused", ep("10.0.0.1", zone("a")))
	if got, want := c.OverloadedServices(), []string{"ns/ghost-zone"}; !slices.Equal(got, want) {
		t.Errorf("with zones a, b: overloaded = %v, want %v", got, want)
	}

	// A third zone appears: its share (1/3 of 2 endpoints, less 20%) has no endpoint.
	c.SetNodes(zerolog.Nop(), []*api.Node{mkNode("n1", "a", "2"), mkNode("n2", "b", "2"), mkNode("n3", "c", "2")})
	if got, want := c.OverloadedServices(), []string{"ns/balanced", "ns/ghost-zone"}; !slices.Equal(got, want) {
		t.Errorf("with zones a, b, c: overloaded = %v, want %v", got, want)
	}

	// Zone b takes 90% of the CPU: it needs ceil(2×0.9/1.2) = 2 of
	// balanced's 2 endpoints, and has 1.
	c.SetNodes(zerolog.Nop(), []*api.Node{mkNode("n1", "a", "1"), mkNode("n2", "b", "9")})
	if got, want := c.OverloadedServices(), []string{"ns/balanced", "ns/ghost-zone"}; !slices.Equal(got, want) {
		t.Errorf("with a 10%%, b 90%%: overloaded = %v, want %v", got, want)
	}

	// Nodes no longer allow hints: every hinted Service must be resynced.
	c.SetNodes(zerolog.Nop(), []*api.Node{mkNode("n1", "a", "1")})
	if got, want := c.OverloadedServices(), []string{"ns/balanced", "ns/ghost-zone"}; !slices.Equal(got, want) {
		t.Errorf("with one zone: overloaded = %v, want %v", got, want)
	}
	c.RemoveHints("ns/balanced", api.AddressTypeIPv4)
	if got, want := c.OverloadedServices(), []string{"ns/ghost-zone"}; !slices.Equal(got, want) {
		t.Errorf("after RemoveHints: overloaded = %v, want %v", got, want)
	}
}

// TestServiceOverloaded: the rule behind OverloadedServices, per zone:
// at least ceil(total × share / 1.2) hinted endpoints.
func TestServiceOverloaded(t *testing.T) {
	tests := []struct {
		ezi    EndpointZoneInfo
		ratios map[string]float64
		want   bool
	}{
		{nil, map[string]float64{"a": 0.5, "b": 0.5}, false},
		{EndpointZoneInfo{"a": 1}, nil, true},
		{EndpointZoneInfo{"a": 1, "b": 1}, map[string]float64{"a": 0.5, "b": 0.5}, false},
		{EndpointZoneInfo{"a": 2}, map[string]float64{"a": 0.5, "b": 0.5}, true},
		// 10 endpoints, a 60%: needs ceil(6/1.2) = 5.
		{EndpointZoneInfo{"a": 5, "b": 5}, map[string]float64{"a": 0.6, "b": 0.4}, false},
		{EndpointZoneInfo{"a": 4, "b": 6}, map[string]float64{"a": 0.6, "b": 0.4}, true},
	}
	for _, tt := range tests {
		if got := serviceOverloaded(tt.ezi, tt.ratios); got != tt.want {
			t.Errorf("serviceOverloaded(%v, %v) = %v, want %v", tt.ezi, tt.ratios, got, tt.want)
		}
	}
}

// TestRemoveHints: RemoveHints forgets one address type; HasPopulatedHints
// is false afterwards even when another address type keeps hints, as
// upstream's set is per Service.
func TestRemoveHints(t *testing.T) {
	c := twoZones()
	c.SetHints("ns/svc", api.AddressTypeIPv4, EndpointZoneInfo{"a": 1, "b": 1})
	c.SetHints("ns/svc", api.AddressTypeIPv6, EndpointZoneInfo{"a": 1, "b": 1})
	if !c.HasPopulatedHints("ns/svc") {
		t.Fatal("HasPopulatedHints after SetHints = false")
	}
	c.RemoveHints("ns/svc", api.AddressTypeIPv4)
	if c.HasPopulatedHints("ns/svc") {
		t.Error("HasPopulatedHints after RemoveHints(IPv4) = true, want false")
	}
	if got := c.zones("ns/svc", api.AddressTypeIPv6); got == nil {
		t.Error("RemoveHints(IPv4) also forgot IPv6")
	}
	c.RemoveHints("ns/svc", api.AddressTypeIPv6)
	if got := c.zones("ns/svc", api.AddressTypeIPv6); got != nil {
		t.Errorf("after removing both: zones = %v", got)
	}
	c.RemoveHints("ns/other", api.AddressTypeIPv4) // unknown: no panic
}

// TestRemoveHintsFromSlices covers topologycache.RemoveHintsFromSlices: every
// hint goes; unchanged slices with hints are copied to the update list.
func TestRemoveHintsFromSlices(t *testing.T) {
	si := &SliceInfo{
		ToCreate:  list(slice("c", ep("10.0.0.1", zone("a"), zoneHint("a")), ep("10.0.0.2", notReady(), zoneHint("a")))),
		ToUpdate:  list(slice("u", ep("10.0.0.3", zone("a"), zoneHint("a"), nodeHint("n")))),
		Unchanged: list(slice("plain", ep("10.0.0.4")), slice("hinted", ep("10.0.0.5", emptyHints()), ep("10.0.0.6", zoneHint("b")))),
	}
	orig, before := append([]*api.EndpointSlice(nil), si.Unchanged...), cloneAll(si.Unchanged)
	gotCreate, gotUpdate := RemoveHintsFromSlices(si)
	if got, want := jsonOf(t, gotCreate), jsonOf(t, list(slice("c", ep("10.0.0.1", zone("a")), ep("10.0.0.2", notReady())))); got != want {
		t.Errorf("toCreate:\n got %s\nwant %s", got, want)
	}
	if got, want := jsonOf(t, gotUpdate), jsonOf(t, list(slice("u", ep("10.0.0.3", zone("a"))), slice("hinted", ep("10.0.0.5"), ep("10.0.0.6")))); got != want {
		t.Errorf("toUpdate:\n got %s\nwant %s", got, want)
	}
	if got := names(si.Unchanged); !slices.Equal(got, []string{"plain"}) {
		t.Errorf("unchanged = %v, want [plain]", got)
	}
	checkInformerUntouched(t, orig, before, gotUpdate)
}

// TestCacheConcurrent: the reconciler's workers share one cache while the
// node handler calls SetNodes; -race checks the locking. Each reader
// calls one method only, so that nothing but that method's own locking
// orders its reads after the writers' writes.
func TestCacheConcurrent(t *testing.T) {
	c := twoZones()
	var wg sync.WaitGroup
	start := make(chan struct{}) // all goroutines begin together
	run := func(f func(i int)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := range 200 {
				f(i)
			}
		}()
	}
	for w := range 3 {
		key := fmt.Sprintf("ns/svc%d", w)
		run(func(int) {
			c.AddHints(zerolog.Nop(), &SliceInfo{ServiceKey: key, AddressType: api.AddressTypeIPv4,
				ToCreate: list(slice("c", ep("10.0.0.1", zone("a")), ep("10.0.0.2", zone("b"))))})
			c.RemoveHints(key, api.AddressTypeIPv4)
			c.SetHints(key, api.AddressTypeIPv6, EndpointZoneInfo{"a": 1})
		})
	}
	run(func(i int) {
		c.SetNodes(zerolog.Nop(), []*api.Node{mkNode("n1", "a", "1"), mkNode("n2", "b", fmt.Sprint(i+1))})
	})
	run(func(int) { c.HasPopulatedHints("ns/svc0") })
	run(func(int) { c.OverloadedServices() })
	run(func(int) { c.ZoneRatios() })
	close(start)
	wg.Wait()
}

// zones returns what the cache holds for a Service's address type.
func (c *Cache) zones(key, addressType string) EndpointZoneInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.endpointsByService[key][addressType])
}
