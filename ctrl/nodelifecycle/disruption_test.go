package nodelifecycle

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// zoneNodes adds n kubelet nodes to zone, named <zone>0, <zone>1, ...
func (f *fixture) zoneNodes(zone string, n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s%d", zone, i)
		f.kubeletNode(names[i], zone)
	}
	return names
}

// silence lets every node but alive miss its grace period: one pass
// 41s later with only alive renewing.
func (f *fixture) silence(alive ...string) {
	f.clock.Step(41 * time.Second)
	f.renew(alive...)
	f.monitor(0)
}

// TestRateLimitedTainting: in a Normal zone the NoExecute taints go on at
// --node-eviction-rate (0.1/s: one node, then one every 10s; burst 1), and
// node_collector_evictions_total counts them per zone.
func TestRateLimitedTainting(t *testing.T) {
	f := newFixture(t, testConfig())
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	f.c.metrics = m
	names := f.zoneNodes("a", 10)
	f.monitor(0)
	f.silence(names[3:]...) // 3 of 10 silent: Normal
	if s := f.zoneState("a"); s != StateNormal {
		t.Fatalf("zone %s, want Normal", s)
	}
	f.taint(0)
	if got := f.tainted(names...); len(got) != 1 {
		t.Fatalf("first tainting pass: %v, want one node (burst 1)", got)
	}
	f.taint(9 * time.Second)
	if got := f.tainted(names...); len(got) != 1 {
		t.Fatalf("9s later: %v, want still one at 0.1/s", got)
	}
	f.taint(time.Second)
	if got := f.tainted(names...); len(got) != 2 {
		t.Fatalf("10s later: %v, want two", got)
	}
	if got := testutil.ToFloat64(m.evictions.WithLabelValues("r:\x00:a")); got != 2 {
		t.Errorf("node_collector_evictions_total %v, want 2", got)
	}
	if got := testutil.ToFloat64(m.unhealthy.WithLabelValues("r:\x00:a")); got != 3 {
		t.Errorf("node_collector_unhealthy_nodes_in_zone %v, want 3", got)
	}
	if got := testutil.ToFloat64(m.zoneHealth.WithLabelValues("r:\x00:a")); got != 70 {
		t.Errorf("node_collector_zone_health %v, want 70", got)
	}
	if got := testutil.ToFloat64(m.zoneSize.WithLabelValues("r:\x00:a")); got != 10 {
		t.Errorf("node_collector_zone_size %v, want 10", got)
	}
	// The six families, with kube-controller-manager's names (metrics.go).
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, mf := range families {
		got = append(got, mf.GetName())
		if h := mf.GetMetric()[0].GetHistogram(); h != nil && h.GetSampleCount() == 0 {
			t.Errorf("%s: no sample after two monitor passes", mf.GetName())
		}
	}
	want := []string{"node_collector_evictions_total", "node_collector_unhealthy_nodes_in_zone",
		"node_collector_update_all_nodes_health_duration_seconds", "node_collector_update_node_health_duration_seconds",
		"node_collector_zone_health", "node_collector_zone_size"}
	if !slices.Equal(got, want) {
		t.Errorf("metric families %q, want %q", got, want)
	}
}

// TestPartialDisruption: a zone with at least 3 and 55% of its nodes not
// Ready is PartialDisruption; a zone of at most
// --large-cluster-size-threshold nodes then taints nothing (ReducedQPSFunc
// gives 0), a larger one taints at --secondary-node-eviction-rate.
func TestPartialDisruption(t *testing.T) {
	for _, large := range []bool{false, true} {
		cfg := testConfig()
		if large {
			cfg.LargeClusterThreshold = 4 // the 5-node zone is large
		}
		f := newFixture(t, cfg)
		names := f.zoneNodes("a", 5)
		f.monitor(0)
		f.silence(names[3:]...) // 3 of 5 silent: 0.6 >= 0.55
		if s := f.zoneState("a"); s != StatePartialDisruption {
			t.Fatalf("zone %s, want PartialDisruption", s)
		}
		f.taint(time.Hour)
		got := len(f.tainted(names...))
		switch {
		case !large && got != 0:
			t.Errorf("small zone in partial disruption tainted %d nodes, want none", got)
		case large && got != 1:
			t.Errorf("large zone: %d tainted at once, want 1", got)
		}
		if large {
			f.taint(99 * time.Second)
			if n := len(f.tainted(names...)); n != 1 {
				t.Errorf("large zone: %d tainted 99s later, want 1 at 0.01/s", n)
			}
			f.taint(2 * time.Second)
			if n := len(f.tainted(names...)); n != 2 {
				t.Errorf("large zone: %d tainted 101s later, want 2", n)
			}
		}
	}
}

// TestFullDisruption: one zone entirely silent among healthy zones is
// FullDisruption and still tainted at the primary rate (HealthyQPSFunc);
// when every zone is silent the controller suspects itself: all rates go
// to 0 and its NoExecute taints come off every node ("don't evict
// everything"); when one zone comes back, tainting resumes only after the
// grace period counted from then (probe times reset).
func TestFullDisruption(t *testing.T) {
	f := newFixture(t, testConfig())
	a := f.zoneNodes("a", 3)
	b := f.zoneNodes("b", 3)
	all := append(append([]string{}, a...), b...)
	f.monitor(0)
	f.silence(b...)
	if f.zoneState("a") != StateFullDisruption || f.zoneState("b") != StateNormal {
		t.Fatalf("zones a=%s b=%s, want FullDisruption Normal", f.zoneState("a"), f.zoneState("b"))
	}
	f.taint(0)
	if got := f.tainted(all...); len(got) != 1 {
		t.Fatalf("one zone down: tainted %v, want one node at the primary rate", got)
	}

	// Every zone silent: taints off, nothing more tainted.
	f.monitor(41 * time.Second)
	if f.zoneState("a") != StateFullDisruption || f.zoneState("b") != StateFullDisruption {
		t.Fatalf("zones a=%s b=%s", f.zoneState("a"), f.zoneState("b"))
	}
	if got := f.tainted(all...); len(got) != 0 {
		t.Fatalf("all zones down: %v still tainted", got)
	}
	f.taint(time.Hour)
	f.monitor(0)
	if got := f.tainted(all...); len(got) != 0 {
		t.Fatalf("all zones down: %v tainted an hour later", got)
	}

	// Zone b comes back: its nodes Ready again; zone a's nodes get a fresh
	// grace period, so nothing is tainted at once.
	for _, n := range b {
		f.postReady(n, "True")
	}
	f.renew(b...)
	f.monitor(time.Second)
	if f.zoneState("b") != StateNormal {
		t.Fatalf("zone b %s after coming back", f.zoneState("b"))
	}
	f.taint(time.Hour)
	if got := f.tainted(all...); len(got) != 1 {
		t.Fatalf("after exiting full disruption: %v tainted, want zone a tainted again at its rate", got)
	}
}
