package reconciler

import (
	"fmt"
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl/endpointslice/topology"
	"github.com/kcmlab/kcm/kube/api"
)

// zonedFixture is TestReconcile_TrafficDistribution's topology:
// node-0 in zone-a runs pod0, node-1 in zone-b pods 1-3, node-2 in zone-c
// pods 4-5; every node Ready with 100m allocatable CPU.
func zonedFixture(t *testing.T, withCache bool) (*fixture, []*api.Pod) {
	f := newFixture(t)
	f.nodes = nil
	for i := 0; i < 3; i++ {
		n := node(fmt.Sprintf("node-%d", i), fmt.Sprintf("zone-%c", 'a'+i))
		n.Status.Allocatable = api.ResourceList{"cpu": "100m"}
		n.Status.Conditions = []api.NodeCondition{{Type: "Ready", Status: api.ConditionTrue}}
		f.nodes = append(f.nodes, n)
	}
	if withCache {
		f.topology = topology.NewCache()
		f.topology.SetNodes(zerolog.Nop(), f.nodes)
	}
	ps := pods(6)
	for i, n := range []int{0, 1, 1, 1, 2, 2} {
		ps[i].Status.Conditions[0].Status = api.ConditionTrue
		ps[i].Spec.NodeName = fmt.Sprintf("node-%d", n)
	}
	return f, ps
}

// hintsByZone counts the zone hints of the stored slices' endpoints.
func hintsByZone(ss []*api.EndpointSlice) map[string]int {
	out := map[string]int{}
	for _, s := range ss {
		for _, ep := range s.Endpoints {
			if ep.Hints == nil {
				continue
			}
			for _, z := range ep.Hints.ForZones {
				out[z.Name]++
			}
		}
	}
	return out
}

// TestReconcileTrafficDistribution follows TestReconcile_TrafficDistribution:
// where upstream calls trafficdist, package topology sets each ready
// endpoint's zone hint to its own zone for PreferClose; taking the field
// away removes the hints with one update; the metrics label the Service.
func TestReconcileTrafficDistribution(t *testing.T) {
	f, ps := zonedFixture(t, false)
	svc := service()
	pc := "PreferClose"
	svc.Spec.TrafficDistribution = &pc
	if _, err := f.reconcile(svc, ps, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := hintsByZone(f.stored()), map[string]int{"zone-a": 1, "zone-b": 3, "zone-c": 2}; !mapsEqualInt(got, want) {
		t.Errorf("hints by zone %v, want %v", got, want)
	}
	if v := testutil.ToFloat64(f.metrics.byTrafficDist.WithLabelValues(pc)); v != 1 {
		t.Errorf("services_count_by_traffic_distribution{PreferClose} = %v, want 1", v)
	}
	if v := testutil.CollectAndCount(f.metrics.changedPerSync); v != 1 {
		t.Errorf("endpointslices_changed_per_sync series %d, want 1", v)
	}
	if n := histSum(f.gathered()["endpoint_slice_controller_endpointslices_changed_per_sync"]); n != 1 {
		t.Errorf("changed per sync sum %v", n)
	}
	if _, err := f.metrics.changedPerSync.GetMetricWithLabelValues("Disabled", "PreferClose"); err != nil {
		t.Error(err)
	}

	// A no-op with the field still set writes nothing.
	actions, err := f.reconcile(svc, ps, f.stored())
	if err != nil || len(actions) != 0 {
		t.Fatalf("no-op with hints: %v %v", verbs(actions), err)
	}

	svc.Spec.TrafficDistribution = nil
	actions, err = f.reconcile(svc, ps, f.stored())
	if err != nil {
		t.Fatal(err)
	}
	if got := verbs(actions); !slices.Equal(got, []string{"update endpointslices"}) {
		t.Errorf("removing trafficDistribution: actions %v, want one update", got)
	}
	if got := hintsByZone(f.stored()); len(got) != 0 {
		t.Errorf("hints left: %v", got)
	}
	if v := testutil.ToFloat64(f.metrics.byTrafficDist.WithLabelValues(pc)); v != 0 {
		t.Errorf("services_count_by_traffic_distribution{PreferClose} = %v after removal, want 0", v)
	}
}

// TestReconcileTopologyAnnotation follows TestReconcileTopology: with the
// topology cache, service.kubernetes.io/topology-mode: Auto has the cache
// allocate hints (Normal TopologyAwareHintsEnabled on the Service, metric
// label topology="Auto"); taking it away removes them with the Warning
// TopologyAwareHintsDisabled. Without a cache the annotation is not
// served and hints are removed.
func TestReconcileTopologyAnnotation(t *testing.T) {
	f, ps := zonedFixture(t, true)
	svc := service()
	svc.Annotations = map[string]string{"service.kubernetes.io/topology-mode": "Auto"}
	if _, err := f.reconcile(svc, ps, nil); err != nil {
		t.Fatal(err)
	}
	if got := hintsByZone(f.stored()); len(got) == 0 {
		t.Error("topology-mode Auto set no hints")
	}
	equalLines(t, "events", f.events.Lines(), []string{"Normal TopologyAwareHintsEnabled Topology Aware Hints has been enabled, addressType: IPv4"})
	if _, err := f.metrics.changedPerSync.GetMetricWithLabelValues("Auto", ""); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(f.metrics.changedPerSync); n != 1 {
		t.Errorf("changed_per_sync series %d, want 1 (topology=Auto)", n)
	}

	f.events.Reset()
	svc.Annotations = nil
	actions, err := f.reconcile(svc, ps, f.stored())
	if err != nil {
		t.Fatal(err)
	}
	if got := verbs(actions); !slices.Equal(got, []string{"update endpointslices"}) {
		t.Errorf("removing the annotation: actions %v, want one update", got)
	}
	if got := hintsByZone(f.stored()); len(got) != 0 {
		t.Errorf("hints left: %v", got)
	}
	equalLines(t, "events", f.events.Lines(), []string{"Warning TopologyAwareHintsDisabled Topology Aware Hints has been disabled, addressType: IPv4"})

	// No cache: the annotation is not served.
	g, ps2 := zonedFixture(t, false)
	svc.Annotations = map[string]string{"service.kubernetes.io/topology-mode": "Auto"}
	if _, err := g.reconcile(svc, ps2, nil); err != nil {
		t.Fatal(err)
	}
	if got := hintsByZone(g.stored()); len(got) != 0 {
		t.Errorf("hints without a cache: %v", got)
	}
}

func mapsEqualInt(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
