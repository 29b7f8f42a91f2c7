package nodelifecycle

import (
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

func conds(ready, notReady, none int) []*api.NodeCondition {
	var out []*api.NodeCondition
	for range ready {
		out = append(out, &api.NodeCondition{Type: ConditionReady, Status: api.ConditionTrue})
	}
	for range notReady {
		out = append(out, &api.NodeCondition{Type: ConditionReady, Status: api.ConditionUnknown})
	}
	for range none {
		out = append(out, nil)
	}
	return out
}

// TestComputeZoneState follows upstream's ComputeZoneState: no Ready node
// is FullDisruption; more than 2 not Ready and at least the threshold
// (0.55) of the zone is PartialDisruption; a node without Ready counts as
// not Ready.
func TestComputeZoneState(t *testing.T) {
	cases := []struct {
		ready, notReady, none int
		want                  ZoneState
		unhealthy             int
	}{
		{3, 0, 0, StateNormal, 0},
		{0, 1, 0, StateFullDisruption, 1},
		{0, 0, 1, StateFullDisruption, 1},
		{1, 2, 0, StateNormal, 2},            // 2 not ready: below the minimum of 3
		{2, 3, 0, StatePartialDisruption, 3}, // 3/5 = 0.6 >= 0.55
		{3, 3, 0, StateNormal, 3},            // 3/6 = 0.5 < 0.55
		{9, 11, 0, StatePartialDisruption, 11},
		{1, 2, 1, StatePartialDisruption, 3},
	}
	for _, tc := range cases {
		n, s := ComputeZoneState(conds(tc.ready, tc.notReady, tc.none), 0.55)
		if s != tc.want || n != tc.unhealthy {
			t.Errorf("%d ready, %d not, %d without: %d %s, want %d %s", tc.ready, tc.notReady, tc.none, n, s, tc.unhealthy, tc.want)
		}
	}
	if _, s := ComputeZoneState(nil, 0.55); s != StateNormal {
		t.Errorf("empty zone: %s", s)
	}
}

// TestZoneQPS follows setLimiterInZone with ReducedQPSFunc and
// HealthyQPSFunc: Normal and FullDisruption take the primary rate;
// PartialDisruption the secondary rate in a zone larger than
// --large-cluster-size-threshold, else 0; Initial changes nothing.
func TestZoneQPS(t *testing.T) {
	r := rates{primary: 0.1, secondary: 0.01, largeCluster: 50}
	cases := []struct {
		state ZoneState
		size  int
		qps   float32
		ok    bool
	}{
		{StateNormal, 10, 0.1, true},
		{StateFullDisruption, 10, 0.1, true},
		{StatePartialDisruption, 50, 0, true},
		{StatePartialDisruption, 51, 0.01, true},
		{StateInitial, 10, 0, false},
	}
	for _, tc := range cases {
		if qps, ok := r.zoneQPS(tc.state, tc.size); qps != tc.qps || ok != tc.ok {
			t.Errorf("%s, %d nodes: %v %v, want %v %v", tc.state, tc.size, qps, ok, tc.qps, tc.ok)
		}
	}
}

// TestPlanDisruption follows handleDisruption's three cases: every zone
// fully disrupted stops all tainting ("don't evict everything"), leaving
// that resets, one zone in full disruption among healthy ones is per
// zone.
func TestPlanDisruption(t *testing.T) {
	N, F, P, I := StateNormal, StateFullDisruption, StatePartialDisruption, StateInitial
	cases := []struct {
		name     string
		old, new map[string]ZoneState
		want     disruptionMode
	}{
		{"healthy", map[string]ZoneState{"a": N, "b": N}, map[string]ZoneState{"a": N, "b": N}, perZone},
		{"one zone down", map[string]ZoneState{"a": N, "b": N}, map[string]ZoneState{"a": F, "b": N}, perZone},
		{"partial", map[string]ZoneState{"a": N}, map[string]ZoneState{"a": P}, perZone},
		{"all zones down", map[string]ZoneState{"a": F, "b": N}, map[string]ZoneState{"a": F, "b": F}, enterFull},
		{"single zone down", map[string]ZoneState{"a": N}, map[string]ZoneState{"a": F}, enterFull},
		{"still all down", map[string]ZoneState{"a": F, "b": F}, map[string]ZoneState{"a": F, "b": F}, stayFull},
		{"one comes back", map[string]ZoneState{"a": F, "b": F}, map[string]ZoneState{"a": N, "b": F}, exitFull},
		{"new zone starts Initial", map[string]ZoneState{"a": I}, map[string]ZoneState{"a": N}, perZone},
		{"first pass, all down", map[string]ZoneState{"a": I}, map[string]ZoneState{"a": F}, enterFull},
		{"no zones at all", map[string]ZoneState{}, map[string]ZoneState{}, stayFull},
	}
	for _, tc := range cases {
		if got := planDisruption(tc.old, tc.new); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestZoneKey follows GetZoneKey: the beta labels win, region and zone
// joined with ":\x00:", "" without either.
func TestZoneKey(t *testing.T) {
	cases := []struct {
		labels map[string]string
		want   string
	}{
		{nil, ""},
		{map[string]string{LabelTopologyZone: "z1"}, ":\x00:z1"},
		{map[string]string{LabelTopologyZone: "z1", LabelTopologyRegion: "r"}, "r:\x00:z1"},
		{map[string]string{LabelTopologyZone: "z1", LabelFailureDomainZone: "old"}, ":\x00:old"},
		{map[string]string{LabelTopologyRegion: "r", LabelFailureDomainRegion: "oldr"}, "oldr:\x00:"},
	}
	for _, tc := range cases {
		n := &api.Node{ObjectMeta: api.ObjectMeta{Labels: tc.labels}}
		if got := ZoneKey(n); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.labels, got, tc.want)
		}
	}
	if !excludedFromDisruption(&api.Node{ObjectMeta: api.ObjectMeta{Labels: map[string]string{LabelNodeExcludeDisruption: ""}}}) {
		t.Error("exclude-disruption label not honoured")
	}
}
