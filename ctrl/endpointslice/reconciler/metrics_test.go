package reconciler

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/kcmlab/kcm/kube/api"
)

// expected are the values upstream's reconciler tests check
// (expectMetrics): gauges, counters, and the sums of the per-sync
// histograms.
type expected struct {
	desiredSlices, actualSlices, desiredEndpoints float64
	addedPerSync, removedPerSync                  float64
	created, updated, deleted                     float64
	slicesChangedPerSync                          float64
}

func (f *fixture) gathered() map[string]*dto.MetricFamily {
	f.t.Helper()
	fams, err := f.reg.Gather()
	if err != nil {
		f.t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, fam := range fams {
		out[fam.GetName()] = fam
	}
	return out
}

// histSum is the sum of a histogram family's series.
func histSum(fam *dto.MetricFamily) float64 {
	if fam == nil {
		return 0
	}
	s := 0.0
	for _, m := range fam.GetMetric() {
		s += m.GetHistogram().GetSampleSum()
	}
	return s
}

func (f *fixture) expectMetrics(want expected) {
	f.t.Helper()
	m := f.metrics
	fams := f.gathered()
	got := expected{
		desiredSlices:        testutil.ToFloat64(m.desiredSlices),
		actualSlices:         testutil.ToFloat64(m.numSlices),
		desiredEndpoints:     testutil.ToFloat64(m.desired),
		addedPerSync:         histSum(fams["endpoint_slice_controller_endpoints_added_per_sync"]),
		removedPerSync:       histSum(fams["endpoint_slice_controller_endpoints_removed_per_sync"]),
		created:              testutil.ToFloat64(m.changes.WithLabelValues(opCreate)),
		updated:              testutil.ToFloat64(m.changes.WithLabelValues(opUpdate)),
		deleted:              testutil.ToFloat64(m.changes.WithLabelValues(opDelete)),
		slicesChangedPerSync: histSum(fams["endpoint_slice_controller_endpointslices_changed_per_sync"]),
	}
	if got != want {
		f.t.Errorf("metrics\n got %+v\nwant %+v", got, want)
	}
}

// TestMetricsValues follows reconciler_test.go's expectMetrics cases
// (TestReconcileEndpointSlicesSomePreexisting, ...Recycling,
// ...UpdatePacking-like removal, TestReconcileEndpointSlicesMetrics)
// with upstream's numbers.
func TestMetricsValues(t *testing.T) {
	t.Run("TestReconcileEndpointSlicesSomePreexisting", func(t *testing.T) {
		f := newFixture(t)
		svc, ps := service(), pods(250)
		existing := f.load(existingSlice(svc, "foo-1", httpPorts(), every(ps, 1, 246, 4)...),
			existingSlice(svc, "foo-2", httpPorts(), every(ps, 3, 246, 4)...))
		if _, err := f.reconcile(svc, ps, existing); err != nil {
			t.Fatal(err)
		}
		f.expectMetrics(expected{desiredSlices: 3, actualSlices: 3, desiredEndpoints: 250, addedPerSync: 127,
			created: 1, updated: 1, slicesChangedPerSync: 2})
	})
	t.Run("TestReconcileEndpointSlicesRecycling", func(t *testing.T) {
		f := newFixture(t)
		svc, ps := service(), pods(300)
		var ex []*api.EndpointSlice
		for i := 0; i < 10; i++ {
			ex = append(ex, existingSlice(svc, "foo-"+string(rune('a'+i)), httpPorts(), ps[i*30:(i+1)*30]...))
		}
		existing := f.load(ex...)
		if _, err := f.reconcile(svc, ps, existing); err != nil {
			t.Fatal(err)
		}
		svc.Spec.Ports[0].TargetPort = api.IntOrStringFromInt(81)
		if _, err := f.reconcile(svc, ps, existing); err != nil {
			t.Fatal(err)
		}
		f.expectMetrics(expected{desiredSlices: 3, actualSlices: 3, desiredEndpoints: 300, addedPerSync: 300,
			updated: 3, deleted: 7, slicesChangedPerSync: 10})
	})
	t.Run("TestReconcileEndpointSlicesMetrics: removal, then DeleteService", func(t *testing.T) {
		f := newFixture(t)
		svc := service()
		if _, err := f.reconcile(svc, pods(20), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := f.reconcile(svc, pods(20)[:10], f.stored()); err != nil {
			t.Fatal(err)
		}
		f.expectMetrics(expected{desiredSlices: 1, actualSlices: 1, desiredEndpoints: 10, addedPerSync: 20, removedPerSync: 10,
			created: 1, updated: 1, slicesChangedPerSync: 2})
		f.reconciler().DeleteService("ns", "foo")
		f.expectMetrics(expected{addedPerSync: 20, removedPerSync: 10, created: 1, updated: 1, slicesChangedPerSync: 2})
	})
	t.Run("TestPlaceHolderSlice: a Service without endpoints counts its placeholder", func(t *testing.T) {
		f := newFixture(t)
		if _, err := f.reconcile(service(), nil, nil); err != nil {
			t.Fatal(err)
		}
		f.expectMetrics(expected{desiredSlices: 1, actualSlices: 1, created: 1, slicesChangedPerSync: 1})
	})
}

// TestMetricsFamilies: the families carry kube-controller-manager's names,
// labels, help texts (with component-base's stability prefix) and
// buckets; NewMetrics twice on one registry shares them; a nil *Metrics
// records nothing.
func TestMetricsFamilies(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := NewMetrics(reg)
	if err != nil || m2.changes != m.changes {
		t.Fatalf("second NewMetrics: %v, shared %v", err, m2 != nil && m2.changes == m.changes)
	}
	m.perSync(3, 0)
	m.change(opCreate)
	m.slicesChanged("Disabled", "", 1)
	m.ObserveSync(nil)
	m.ObserveSync(ErrStaleInformerCache)
	m.ObserveSync(context.Canceled)
	c := newMetricsCache(m, 100)
	c.updateService("ns/a", servicePorts{"": {endpoints: 1, slices: 1}})
	td := "PreferClose"
	c.updateTrafficDistribution("ns/a", &td)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fams {
		var labels []string
		for _, l := range f.GetMetric()[0].GetLabel() {
			labels = append(labels, l.GetName())
		}
		got = append(got, f.GetName()+"{"+strings.Join(labels, ",")+"} "+f.GetType().String()+" "+f.GetHelp())
	}
	equalLines(t, "families", got, []string{
		"endpoint_slice_controller_changes{operation} COUNTER [ALPHA] Number of EndpointSlice changes",
		"endpoint_slice_controller_desired_endpoint_slices{} GAUGE [BETA] Number of EndpointSlices that would exist with perfect endpoint allocation",
		"endpoint_slice_controller_endpoints_added_per_sync{} HISTOGRAM [BETA] Number of endpoints added on each Service sync",
		"endpoint_slice_controller_endpoints_desired{} GAUGE [BETA] Number of endpoints desired",
		"endpoint_slice_controller_endpoints_removed_per_sync{} HISTOGRAM [BETA] Number of endpoints removed on each Service sync",
		"endpoint_slice_controller_endpointslices_changed_per_sync{topology,traffic_distribution} HISTOGRAM [ALPHA] Number of EndpointSlices changed on each Service sync",
		"endpoint_slice_controller_num_endpoint_slices{} GAUGE [BETA] Number of EndpointSlices",
		"endpoint_slice_controller_services_count_by_traffic_distribution{traffic_distribution} GAUGE [BETA] Number of Services using some specific trafficDistribution",
		"endpoint_slice_controller_syncs{result} COUNTER [ALPHA] Number of EndpointSlice syncs",
	})
	for _, r := range []string{SyncSuccess, SyncStale, SyncError} {
		if v := testutil.ToFloat64(m.syncs.WithLabelValues(r)); v != 1 {
			t.Errorf("syncs{result=%s} = %v, want 1", r, v)
		}
	}
	for _, f := range fams {
		if f.GetName() == "endpoint_slice_controller_endpoints_added_per_sync" {
			var bounds []float64
			for _, b := range f.GetMetric()[0].GetHistogram().GetBucket() {
				bounds = append(bounds, b.GetUpperBound())
			}
			if want := prometheus.ExponentialBuckets(2, 2, 15); !slices.Equal(bounds, want) {
				t.Errorf("buckets %v, want %v", bounds, want)
			}
		}
	}
	var none *Metrics
	none.ObserveSync(nil)
	none.change(opCreate)
	none.perSync(1, 1)
	none.slicesChanged("", "", 1)
	if _, err := NewMetrics(nil); err == nil {
		t.Error("NewMetrics(nil) should fail")
	}
}

// TestCacheServicesByTrafficDistribution follows metrics/cache_test.go
// TestCache_ServicesByTrafficDistribution: each Service counts under its
// current trafficDistribution only, and not after DeleteService.
func TestCacheServicesByTrafficDistribution(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, _ := NewMetrics(reg)
	c := newMetricsCache(m, 100)
	pc, sz := "PreferClose", "PreferSameZone"
	c.updateTrafficDistribution("ns/a", &pc)
	c.updateTrafficDistribution("ns/b", &pc)
	c.updateTrafficDistribution("ns/c", &sz)
	c.updateTrafficDistribution("ns/b", &sz)
	c.updateTrafficDistribution("ns/c", nil)
	if got := testutil.ToFloat64(m.byTrafficDist.WithLabelValues(pc)); got != 1 {
		t.Errorf("PreferClose = %v, want 1", got)
	}
	if got := testutil.ToFloat64(m.byTrafficDist.WithLabelValues(sz)); got != 1 {
		t.Errorf("PreferSameZone = %v, want 1", got)
	}
	c.updateService("ns/a", servicePorts{})
	c.deleteService("ns/a")
	if got := testutil.ToFloat64(m.byTrafficDist.WithLabelValues(pc)); got != 0 {
		t.Errorf("PreferClose after DeleteService = %v, want 0", got)
	}
}

// TestNumDesiredSlices follows metrics/cache_test.go TestNumEndpointsAndSlices.
func TestNumDesiredSlices(t *testing.T) {
	sp := servicePorts{"a": {endpoints: 250, slices: 3}, "b": {endpoints: 101, slices: 2}, "c": {endpoints: 0, slices: 1}}
	a, d, e := sp.totals(100)
	if a != 6 || d != 5 || e != 351 {
		t.Errorf("totals = %d %d %d, want 6 5 351", a, d, e)
	}
	if _, d, _ := (servicePorts{}).totals(100); d != 1 {
		t.Errorf("empty Service wants %d slices, want 1 (the placeholder)", d)
	}
}
