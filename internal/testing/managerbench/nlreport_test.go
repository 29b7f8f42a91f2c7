package managerbench

import (
	"strings"
	"testing"
	"time"
)

func nlRun(manager string, run int, lastTaint, lastNR float64, rssMiB int64, cpu time.Duration) NodesResult {
	t0 := time.Unix(1000, 0)
	return NodesResult{Manager: manager, Run: run, Workload: NLWorkload{Nodes: 10, Pods: 300, Silent: 2, Grace: 20 * time.Second},
		Synced: secs(1), LastTaint: secs(lastTaint), FirstTaint: secs(lastTaint - 1), LastNotReady: secs(lastNR),
		FirstNotReady: secs(lastNR - 1), SilentPods: 60,
		Healthy: [2]Sample{{At: t0, CPU: 0}, {At: t0.Add(10 * time.Second), CPU: cpu}},
		Outage:  [2]Sample{{At: t0.Add(10 * time.Second), CPU: cpu}, {At: t0.Add(40 * time.Second), CPU: 4 * cpu, RSS: rssMiB << 20, HWM: (rssMiB + 5) << 20}}}
}

// The report gives each manager's medians, the kcm/kube ratios against
// the targets, and every run's row.
func TestNodesMarkdown(t *testing.T) {
	r := &Report{Config: Config{Runs: 2, NLWorkload: NLWorkload{Nodes: 10, Pods: 300, Silent: 2, Grace: 20 * time.Second,
		Monitor: 10 * time.Second}, QPS: 20, Burst: 30}}
	r.Nodes = []NodesResult{
		nlRun("kcm", 1, 25, 26, 20, time.Second), nlRun("kube-controller-manager", 1, 30, 30, 80, 2*time.Second),
		nlRun("kube-controller-manager", 2, 32, 34, 80, 2*time.Second), nlRun("kcm", 2, 27, 28, 20, time.Second),
	}
	md := r.nodesMarkdown()
	for _, want := range []string{
		"10 kwok nodes, 300 pods, 2 nodes stop heartbeating (--node-monitor-grace-period=20s",
		"| kcm                     | 2    | 1.00 (1.00-1.00) | 25.00 (24.00-26.00) | 26.00 (25.00-27.00) | 26.00 (25.00-27.00)   | 27.00 (26.00-28.00)  | 60 (60-60)           | 0 ",
		"- pause → last silent node tainted: 0.84x (target ≤ 1.00x)", // 26 / 31
		"- pause → last pod not Ready: 0.84x (target ≤ 1.00x)",       // 27 / 32
		"- RSS at end: 0.25x (target ≤ 0.50x)",
		"- CPU while healthy: 0.50x", // 10 % against 20 %
		"| kube-controller-manager | 2   | ",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

// CPUShare is CPU time over wall time in percent of one core; zero wall
// time gives zero, not a division by zero.
func TestCPUShare(t *testing.T) {
	t0 := time.Unix(0, 0)
	if got := CPUShare([2]Sample{{At: t0}, {At: t0.Add(4 * time.Second), CPU: time.Second}}); got != 25 {
		t.Errorf("CPUShare = %v, want 25", got)
	}
	if got := CPUShare([2]Sample{{At: t0}, {At: t0}}); got != 0 {
		t.Errorf("CPUShare of no time = %v, want 0", got)
	}
}
