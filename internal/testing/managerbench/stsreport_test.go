package managerbench

import (
	"math"
	"strings"
	"testing"
)

// stsResult is a run of manager with the given times (seconds), fill
// status writes and memory.
func stsResult(manager string, run int, lastReady, converged, rolled float64, status int, rssMiB int64, cpu float64) StatefulSetsResult {
	return StatefulSetsResult{Manager: manager, Run: run, Controllers: []string{StatefulSetController},
		Workload:  STSWorkload{Sets: 100, Replicas: 3},
		LastReady: secs(lastReady), LastStatus: secs(converged), Converged: secs(converged), Rolled: secs(rolled),
		Fill:      STSCounts{PodCreates: 300, StatusWrites: status, Revisions: 100, PodEvents: 1200},
		Rollout:   STSCounts{PodCreates: 300, PodDeletes: 300, StatusWrites: status + 100, Revisions: 100},
		AtProbe:   Sample{RSS: 20 << 20, CPU: secs(0.1)},
		AfterFill: Sample{RSS: (rssMiB - 5) << 20, CPU: secs(cpu / 2)},
		AtEnd:     Sample{RSS: rssMiB << 20, HWM: (rssMiB + 10) << 20, CPU: secs(cpu)}}
}

// summarizeSTS takes each manager's runs only, and medians over them; the
// status lag is from the last pod Ready to all sets Ready; the CPU of the
// fill and of the rollout are the differences of the samples.
func TestSummarizeSTS(t *testing.T) {
	rs := []StatefulSetsResult{
		stsResult("kcm", 1, 40, 41, 30, 600, 30, 4),
		stsResult("kube-controller-manager", 1, 40, 42, 32, 610, 100, 8),
		stsResult("kube-controller-manager", 2, 50, 53, 34, 620, 120, 10),
		stsResult("kcm", 2, 50, 50.5, 28, 604, 34, 6),
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	tests := []struct {
		manager                                          string
		runs                                             int
		lag, conv, rolled, status, rss, peak, cpuF, cpuR float64
	}{
		{"kcm", 2, 0.75, 45.75, 29, 602, 32, 42, 2.5 - 0.1, 2.5},
		{"kube-controller-manager", 2, 2.5, 47.5, 33, 615, 110, 120, 4.5 - 0.1, 4.5},
		{"nobody", 0, 0, 0, 0, 0, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		s := summarizeSTS(rs, tt.manager)
		if s.Runs != tt.runs || !near(s.StatusLag.Median, tt.lag) || !near(s.Converged.Median, tt.conv) ||
			!near(s.Rolled.Median, tt.rolled) || !near(s.FillStatus.Median, tt.status) || !near(s.RSSEnd.Median, tt.rss) ||
			!near(s.Peak.Median, tt.peak) || !near(s.CPUFill.Median, tt.cpuF) || !near(s.CPURoll.Median, tt.cpuR) {
			t.Errorf("%s: %+v; want runs %d lag %v conv %v rolled %v status %v rss %v peak %v cpu fill %v rollout %v",
				tt.manager, s, tt.runs, tt.lag, tt.conv, tt.rolled, tt.status, tt.rss, tt.peak, tt.cpuF, tt.cpuR)
		}
	}
}

// The ratio lines: kcm over kube-controller-manager, or "-" when one has
// nothing measured or the divisor is zero.
func TestSTSRatio(t *testing.T) {
	kcm := stsSummary{Manager: "kcm", Runs: 1, Converged: Summarize([]float64{30})}
	kube := stsSummary{Manager: "kube-controller-manager", Runs: 1, Converged: Summarize([]float64{40})}
	conv := func(s stsSummary) Summary { return s.Converged }
	tests := []struct {
		name      string
		kcm, kube stsSummary
		target    string
		want      string
	}{
		{"both", kcm, kube, "≤ 1.00x", "- x: 0.75x (target ≤ 1.00x)\n"},
		{"no target", kcm, kube, "", "- x: 0.75x\n"},
		{"kcm measured nothing", stsSummary{Manager: "kcm"}, kube, "", "- x: -\n"},
		{"zero divisor", kcm, stsSummary{Converged: Summarize([]float64{0})}, "", "- x: -\n"},
	}
	for _, tt := range tests {
		if got := stsRatio("x", tt.kcm, tt.kube, conv, tt.target); got != tt.want {
			t.Errorf("%s: stsRatio = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// The report's StatefulSet section: its heading names the workload, each
// manager has a row in each table, the ratios are kcm's over
// kube-controller-manager's medians, and every run has a raw row.
func TestStatefulSetsMarkdown(t *testing.T) {
	rep := &Report{Config: Config{QPS: 20, Burst: 30, Settle: 15e9, STSWorkload: STSWorkload{Sets: 100, Replicas: 3}}}
	rep.StatefulSets = []StatefulSetsResult{
		stsResult("kcm", 1, 40, 41, 30, 600, 30, 4),
		stsResult("kube-controller-manager", 1, 40, 42, 32, 610, 100, 8),
	}
	md := rep.Markdown()
	for _, want := range []string{
		"### StatefulSets: 100 sets × 3 replicas (OrderedReady) on 3 kwok nodes (--kube-api-qps=20 --kube-api-burst=30)",
		"settle period of 15s",
		"- all sets Ready (from the first create): 0.98x (target ≤ 1.00x)",
		"- last pod Ready → all sets report it: 0.50x (target ≤ 1.00x)",
		"- all sets rolled (from the first patch): 0.94x (target ≤ 1.00x)",
		"- RSS at end: 0.30x (target ≤ 0.50x)",
		"- peak RSS: 0.36x (target ≤ 0.50x)",
		"- CPU total: 0.50x\n",
		"| 1   | kcm                     |",
		"300/600/100/1200",
		"300/300/700/100",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
	for _, table := range []string{"Fill (", "Rollout of every set", "Memory and CPU:"} {
		i := strings.Index(md, table)
		if i < 0 {
			t.Fatalf("no %q table:\n%s", table, md)
		}
		parts := strings.SplitN(md[i:], "\n\n", 3)
		if len(parts) < 2 || !strings.Contains(parts[1], "| kcm ") || !strings.Contains(parts[1], "| kube-controller-manager ") {
			t.Errorf("%s table lacks a manager row:\n%s", table, md[i:])
		}
	}
	pacedRep := &Report{Config: Config{STSWorkload: STSWorkload{Sets: 10, Replicas: 3, Parallel: true, Rate: 2}}}
	pacedRep.StatefulSets = []StatefulSetsResult{stsResult("kube-controller-manager", 1, 40, 42, 32, 610, 100, 8)}
	md = pacedRep.statefulSetsMarkdown()
	if !strings.Contains(md, "10 sets × 3 replicas (Parallel) on 3 kwok nodes, created at 2 StatefulSets/s") {
		t.Errorf("paced, Parallel heading missing:\n%s", md)
	}
	if strings.Contains(md, "kcm / kube-controller-manager") {
		t.Errorf("ratios printed with one manager only:\n%s", md)
	}
}
