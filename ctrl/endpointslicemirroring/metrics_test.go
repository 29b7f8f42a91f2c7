package endpointslicemirroring

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestMetrics follows pkg/controller/endpointslicemirroring/metrics and
// reconciler_test.go's expectMetrics: kube-controller-manager's family
// names, registered on the given registry only; per-sync histograms of
// endpoints added and addresses skipped; the changes counter per
// operation; the desired/actual slice gauges from the efficiency cache;
// the sync duration, timed on the injected clock.
func TestMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := NewMetrics(reg); err != nil || again.added != m.added {
		t.Fatalf("second NewMetrics on one registry: %v, same families %v", err, err == nil && again.added == m.added)
	}
	f := newFixture(t)
	// 2 subsets: 2 + 3 addresses, one invalid, and a cap of 2 that skips one.
	f.endpoints = []*api.Endpoints{endpoints("foo", subset("10.0.0.1", "10.0.0.2", "http:80/TCP"),
		subset("10.0.1.1", "10.0.1.2", "nope", "10.0.1.3", "http:3000/TCP"))}
	f.services = []*api.Service{selectorless("foo")}
	clk := clock.NewFake(time.Date(2025, 9, 1, 0, 0, 0, 0, time.UTC))
	resttest.Add(f.api, rest.Endpoints, f.endpoints...)
	resttest.Add(f.api, rest.Services, f.services...)
	f.c = NewController(informer.EndpointsLister{Lister: resttest.Lister("endpoints", f.endpoints...)},
		informer.EndpointSliceLister{Lister: resttest.Lister[*api.EndpointSlice]("endpointslices")},
		informer.ServiceLister{Lister: resttest.Lister("services", f.services...)},
		f.api.Client(), Config{MaxEndpointsPerSubset: 2, Metrics: m, Clock: clk})
	if _, err := f.c.Sync(context.Background(), "ns/foo"); err != nil {
		t.Fatal(err)
	}
	want := `
# HELP endpoint_slice_mirroring_controller_addresses_skipped_per_sync Number of addresses skipped on each Endpoints sync due to being invalid or exceeding MaxEndpointsPerSubset
# TYPE endpoint_slice_mirroring_controller_addresses_skipped_per_sync histogram
endpoint_slice_mirroring_controller_addresses_skipped_per_sync_bucket{le="2"} 1
endpoint_slice_mirroring_controller_addresses_skipped_per_sync_bucket{le="4"} 1
endpoint_slice_mirroring_controller_addresses_skipped_per_sync_bucket{le="8"} 1
endpoint_slice_mirroring_controller_addresses_skipped_per_sync_bucket{le="16"} 1
endpoint_slice_mirroring_controller_addresses_skipped_per_sync_bucket{le="32"} 1
endpoint_slice_mirroring_controller_addresses_skipped_per_sync_bucket{le="64"} 1
endpoint_slice_mirroring_controller_addresses_skipped_per_sync_bucket{le="128"} 1
endpoint_slice_mirroring_controller_addresses_skipped_per_sync_bucket{le="256"} 1
endpoint_slice_mirroring_controller_addresses_skipped_per_sync_bucket{le="512"} 1
endpoint_slice_mirroring_controller_addresses_skipped_per_sync_bucket{le="1024"} 1
endpoint_slice_mirroring_controller_addresses_skipped_per_sync_bucket{le="2048"} 1
endpoint_slice_mirroring_controller_addresses_skipped_per_sync_bucket{le="4096"} 1
endpoint_slice_mirroring_controller_addresses_skipped_per_sync_bucket{le="8192"} 1
endpoint_slice_mirroring_controller_addresses_skipped_per_sync_bucket{le="16384"} 1
endpoint_slice_mirroring_controller_addresses_skipped_per_sync_bucket{le="32768"} 1
endpoint_slice_mirroring_controller_addresses_skipped_per_sync_bucket{le="+Inf"} 1
endpoint_slice_mirroring_controller_addresses_skipped_per_sync_sum 2
endpoint_slice_mirroring_controller_addresses_skipped_per_sync_count 1
# HELP endpoint_slice_mirroring_controller_changes Number of EndpointSlice changes
# TYPE endpoint_slice_mirroring_controller_changes counter
endpoint_slice_mirroring_controller_changes{operation="create"} 2
# HELP endpoint_slice_mirroring_controller_desired_endpoint_slices Number of EndpointSlices that would exist with perfect endpoint allocation
# TYPE endpoint_slice_mirroring_controller_desired_endpoint_slices gauge
endpoint_slice_mirroring_controller_desired_endpoint_slices 2
# HELP endpoint_slice_mirroring_controller_endpoints_desired Number of endpoints desired
# TYPE endpoint_slice_mirroring_controller_endpoints_desired gauge
endpoint_slice_mirroring_controller_endpoints_desired 4
# HELP endpoint_slice_mirroring_controller_num_endpoint_slices Number of EndpointSlices
# TYPE endpoint_slice_mirroring_controller_num_endpoint_slices gauge
endpoint_slice_mirroring_controller_num_endpoint_slices 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"endpoint_slice_mirroring_controller_addresses_skipped_per_sync", "endpoint_slice_mirroring_controller_changes",
		"endpoint_slice_mirroring_controller_desired_endpoint_slices", "endpoint_slice_mirroring_controller_endpoints_desired",
		"endpoint_slice_mirroring_controller_num_endpoint_slices"); err != nil {
		t.Fatal(err)
	}
	// Nine families, one series each (changes: only operation="create" so far).
	if n, err := testutil.GatherAndCount(reg); err != nil || n != 9 {
		t.Errorf("%d series gathered (%v), want 9", n, err)
	}
	if n := testutil.CollectAndCount(m.syncDuration); n != 1 {
		t.Errorf("sync duration: %d series", n)
	}
	// The Endpoints goes: its efficiency is forgotten, the gauges drop.
	f.c.endpoints = informer.EndpointsLister{Lister: resttest.Lister[*api.Endpoints]("endpoints")}
	f.caughtUpSlicesOnly()
	if _, err := f.c.Sync(context.Background(), "ns/foo"); err != nil {
		t.Fatal(err)
	}
	for name, g := range map[string]prometheus.Gauge{"endpoints_desired": m.desired, "num_endpoint_slices": m.slices, "desired_endpoint_slices": m.desiredSlices} {
		if v := testutil.ToFloat64(g); v != 0 {
			t.Errorf("%s = %v after the Endpoints went, want 0", name, v)
		}
	}
	if v := testutil.ToFloat64(m.changes.WithLabelValues(opDelete)); v != 0 {
		t.Errorf("changes{delete} = %v: deleting a gone Endpoints' slices is not counted, as upstream", v)
	}
}

// caughtUpSlicesOnly reloads the slice lister from the server.
func (f *fixture) caughtUpSlicesOnly() {
	f.c.slices = informer.EndpointSliceLister{Lister: resttest.ListerFrom[*api.EndpointSlice](f.api, rest.EndpointSlices)}
}

// TestNilMetrics: a controller without metrics records nothing and does
// not fail (the zero Config).
func TestNilMetrics(t *testing.T) {
	var m *Metrics
	m.observeSkipped(1)
	m.observeTotals(totals{added: 1})
	m.observeSync(time.Second)
	m.change(opCreate)
	c := newMetricsCache(nil, 100)
	c.update("ns/a", map[groupKey]efficiency{{addressType: "IPv4"}: {endpoints: 1, slices: 1}})
	c.remove("ns/a")
	if _, err := NewMetrics(nil); err == nil {
		t.Fatal("NewMetrics(nil): no error")
	}
}

// TestMetricsCache follows metrics/cache_test.go: endpoints desired are
// summed over Endpoints, replaced per Endpoints on update; desired slices
// are each group's endpoints over the per-slice maximum, rounded up.
func TestMetricsCache(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	c := newMetricsCache(m, 100)
	v4, v6 := groupKey{addressType: "IPv4"}, groupKey{addressType: "IPv6"}
	c.update("ns/a", map[groupKey]efficiency{v4: {endpoints: 150, slices: 1}, v6: {endpoints: 10, slices: 1}})
	c.update("ns/b", map[groupKey]efficiency{v4: {endpoints: 100, slices: 2}})
	check := func(when string, desired, slices, desiredSlices float64) {
		t.Helper()
		if d, s, ds := testutil.ToFloat64(m.desired), testutil.ToFloat64(m.slices), testutil.ToFloat64(m.desiredSlices); d != desired || s != slices || ds != desiredSlices {
			t.Errorf("%s: endpoints desired %v, slices %v, desired slices %v; want %v %v %v", when, d, s, ds, desired, slices, desiredSlices)
		}
	}
	check("two Endpoints", 260, 4, 4)
	c.update("ns/a", map[groupKey]efficiency{v4: {endpoints: 1, slices: 1}})
	check("a replaced", 101, 3, 2)
	c.remove("ns/b")
	check("b removed", 1, 1, 1)
	c.remove("ns/b")
	check("b removed twice", 1, 1, 1)
}
