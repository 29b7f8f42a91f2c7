package managerbench

import (
	"strings"
	"testing"
	"time"
)

func rqRun(manager string, run int, allCorrect, allCorrected float64, rssMiB int64, cpu time.Duration) QuotasResult {
	t0 := time.Unix(1000, 0)
	return QuotasResult{Manager: manager, Run: run, Controllers: []string{QuotaController},
		Workload:  RQWorkload{Namespaces: 50, PodsPerNamespace: 10, DeletePerNamespace: 1},
		Populated: secs(20), Probe: secs(1), Created: secs(2), FirstCorrect: secs(0.5), AllCorrect: secs(allCorrect),
		FillWrites: 50, Deleted: secs(1), FirstCorrected: secs(0.2), AllCorrected: secs(allCorrected), DeleteWrites: 50,
		AtProbe:   Sample{At: t0, RSS: (rssMiB - 2) << 20, HWM: (rssMiB - 2) << 20, CPU: cpu / 4},
		AfterFill: Sample{At: t0.Add(30 * time.Second), RSS: (rssMiB - 1) << 20, HWM: rssMiB << 20, CPU: cpu / 2},
		AtEnd:     Sample{At: t0.Add(60 * time.Second), RSS: rssMiB << 20, HWM: (rssMiB + 4) << 20, CPU: cpu}}
}

// The report states the workload, gives each manager's medians (with the
// range over its runs), the kcm / kube-controller-manager ratios against
// the targets, and every run's row.
func TestQuotasMarkdown(t *testing.T) {
	r := &Report{Config: Config{Runs: 2, RQWorkload: RQWorkload{Namespaces: 50, PodsPerNamespace: 10, DeletePerNamespace: 1},
		QPS: 20, Burst: 30, Settle: 5 * time.Second}}
	r.Quotas = []QuotasResult{
		rqRun("kcm", 1, 3, 2, 20, 2*time.Second), rqRun("kube-controller-manager", 1, 4, 4, 80, 4*time.Second),
		rqRun("kube-controller-manager", 2, 6, 4, 80, 4*time.Second), rqRun("kcm", 2, 5, 4, 20, 2*time.Second),
	}
	md := r.quotasMarkdown()
	for _, want := range []string{
		"### Resource quotas: 50 namespaces × (1 ResourceQuota, 10 pods), then 50 pods deleted (--kube-api-qps=20 --kube-api-burst=30)",
		"settle period of 5s",
		"| kcm                     | 2    | 1.00 (1.00-1.00) | 4.00 (3.00-5.00)      | 50 (50-50)    | 3.00 (2.00-4.00)",
		"| 20.0 (20.0-20.0) | 24.0 (24.0-24.0) |",                     // RSS at end, peak
		"- all quotas correct (from the first quota create): 0.80x\n", // 4 / 5; the issue sets no time target
		"- all quotas corrected (from the first pod delete): 0.75x\n", // 3 / 4
		"- RSS at end: 0.25x (target ≤ 0.50x)",
		"- peak RSS: 0.29x (target ≤ 0.50x)", // 24 / 84
		"- CPU total: 0.50x",
		"- quota writes in the fill: 1.00x",
		"| 2   | kcm                     | 0.00 0.00 0.00 | 20.00        | 1.00     | 2.00              | 0.50             | 5.00           | 50",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}

	r.Quotas = r.Quotas[:1] // kcm alone: no ratios
	if md := r.quotasMarkdown(); strings.Contains(md, "kcm / kube-controller-manager") {
		t.Errorf("ratios without kube-controller-manager:\n%s", md)
	}
	if md := (&Report{Quotas: r.Quotas}).Markdown(); !strings.Contains(md, "### Resource quotas") {
		t.Errorf("Markdown lacks the quotas section:\n%s", md)
	}
}

// A ratio line says "-" when either side has no value, and carries its
// target when it has one.
func TestRatioLine(t *testing.T) {
	tests := []struct {
		kcm, kube Summary
		target    string
		want      string
	}{
		{Summary{N: 1, Median: 1}, Summary{N: 1, Median: 4}, "≤ 0.50x", "- x: 0.25x (target ≤ 0.50x)\n"},
		{Summary{N: 1, Median: 1}, Summary{N: 1, Median: 4}, "", "- x: 0.25x\n"},
		{Summary{}, Summary{N: 1, Median: 4}, "", "- x: -\n"},
		{Summary{N: 1, Median: 1}, Summary{}, "≤ 1.00x", "- x: - (target ≤ 1.00x)\n"},
	}
	for _, tt := range tests {
		if got := ratioLine("x", tt.kcm, tt.kube, tt.target); got != tt.want {
			t.Errorf("ratioLine(%v, %v, %q) = %q, want %q", tt.kcm, tt.kube, tt.target, got, tt.want)
		}
	}
}
