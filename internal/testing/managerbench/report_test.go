package managerbench

import (
	"strings"
	"testing"
	"time"
)

// A line longer than maxLine with no newline is matched once it passes
// the bound instead of growing without limit.
func TestLineWatcherBoundsPartialLine(t *testing.T) {
	var out strings.Builder
	w := NewLineWatcher(&out, time.Now, "needle")
	w.Write([]byte("needle" + strings.Repeat("x", maxLine)))
	if m := w.Marks("needle"); m.Count != 1 {
		t.Fatalf("Count = %d, want 1", m.Count)
	}
	if len(w.partial) != 0 {
		t.Fatalf("kept %d bytes of an over-long line", len(w.partial))
	}
}

// Runs alternate the managers' order.
func TestOrderAlternates(t *testing.T) {
	ms := []Manager{{Label: "a"}, {Label: "b"}, {Label: "c"}}
	labels := func(ms []Manager) string {
		var s []string
		for _, m := range ms {
			s = append(s, m.Label)
		}
		return strings.Join(s, ",")
	}
	if got := labels(order(ms, 0)); got != "a,b,c" {
		t.Fatalf("run 0: %s", got)
	}
	if got := labels(order(ms, 1)); got != "c,b,a" {
		t.Fatalf("run 1: %s", got)
	}
	if labels(ms) != "a,b,c" {
		t.Fatal("order modified its argument")
	}
}

// The report's summary rows are the median and range of the runs, and the
// ratio the target is stated in.
func TestReportMarkdown(t *testing.T) {
	r := &Report{KubeVersion: "v1.34.4", Config: Config{Runs: 2, Replicas: 1000, QPS: 20, Burst: 30,
		Population: Population{Namespaces: 10, Deployments: 10, Replicas: 100}, Settle: 15 * time.Second}}
	r.Machine.CPUs = 2
	for i, s := range []float64{24, 26} {
		r.Scale = append(r.Scale,
			ScaleResult{Manager: "kcm", Run: i + 1, AllPods: time.Duration(s * float64(time.Second))},
			ScaleResult{Manager: "kube-controller-manager", Run: i + 1, AllPods: time.Duration(2 * s * float64(time.Second))})
	}
	r.Sync = []SyncResult{
		{Manager: "kcm", Run: 1, LogSynced: time.Second, LogSyncedSeen: 1, AtProbe: Sample{RSS: 40 << 20},
			Settled: Sample{RSS: 41 << 20}, GoHeap: map[string]float64{"go_memstats_next_gc_bytes": 50 << 20}},
		{Manager: "kube-controller-manager", Run: 1, LogSynced: 2 * time.Second, LogSyncedSeen: 3,
			AtProbe: Sample{RSS: 160 << 20}, Writes: map[string]int{"replicasets": 2}},
	}
	md := r.Markdown()
	for _, want := range []string{
		"| kcm                     | 2    | 25.0 (24.0-26.0) |",
		"| kube-controller-manager | 2    | 50.0 (48.0-52.0) |",
		"median time to all pods: 0.50x",
		"median RSS at the probe: 0.25x (target ≤ 0.50x)",
		"2.00 (3 lines)",
		"replicasets 2",
		"| 1   | kcm     | 41.0        | 0.0        | 0.0         | 50.0       | 0.0               |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

func TestSlug(t *testing.T) {
	if got := slug("kube-controller-manager +gc +namespace"); got != "kube-controller-manager-gc-namespace" {
		t.Fatalf("slug = %q", got)
	}
}
