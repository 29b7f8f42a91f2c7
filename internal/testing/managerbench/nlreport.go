package managerbench

import (
	"fmt"
	"strings"
	"time"
)

// nlSummary is one manager's nodes-benchmark runs, summarized.
type nlSummary struct {
	Manager                       string
	Runs                          int
	Synced, FirstTaint, LastTaint Summary // seconds
	FirstNotReady, LastNotReady   Summary // seconds
	RSSHealthy, RSSEnd, Peak      Summary // MiB
	CPUHealthy, CPUOutage         Summary // percent of one core
	Wrong                         int     // healthy nodes tainted, over all runs
	SilentPods                    Summary
}

func summarizeNL(rs []NodesResult, manager string) nlSummary {
	s := nlSummary{Manager: manager}
	var synced, ft, lt, fn, ln []time.Duration
	var rssH, rssE, peak []int64
	var cpuH, cpuO, pods []float64
	for _, r := range rs {
		if r.Manager != manager {
			continue
		}
		s.Runs++
		synced, ft, lt = append(synced, r.Synced), append(ft, r.FirstTaint), append(lt, r.LastTaint)
		fn, ln = append(fn, r.FirstNotReady), append(ln, r.LastNotReady)
		rssH, rssE, peak = append(rssH, r.Healthy[1].RSS), append(rssE, r.Outage[1].RSS), append(peak, r.Outage[1].HWM)
		cpuH, cpuO = append(cpuH, CPUShare(r.Healthy)), append(cpuO, CPUShare(r.Outage))
		pods = append(pods, float64(r.SilentPods))
		s.Wrong += r.Wrong
	}
	s.Synced, s.FirstTaint, s.LastTaint = seconds(synced), seconds(ft), seconds(lt)
	s.FirstNotReady, s.LastNotReady = seconds(fn), seconds(ln)
	s.RSSHealthy, s.RSSEnd, s.Peak = mib(rssH), mib(rssE), mib(peak)
	s.CPUHealthy, s.CPUOutage, s.SilentPods = Summarize(cpuH), Summarize(cpuO), Summarize(pods)
	return s
}

// nodesMarkdown renders the nodes benchmark: what was done, one summary
// row per manager, the kcm/kube-controller-manager ratios, every run.
func (r *Report) nodesMarkdown() string {
	var b strings.Builder
	w := r.Config.NLWorkload
	fmt.Fprintf(&b, "\n### Node lifecycle: %d kwok nodes, %d pods, %d nodes stop heartbeating (--node-monitor-grace-period=%s, --kube-api-qps=%d --kube-api-burst=%d)\n\n",
		w.Nodes, w.Pods, w.Silent, w.Grace, r.Config.QPS, r.Config.Burst)
	b.WriteString("Each manager runs " + strings.Join(NodeLifecycleControllers, " and ") + " (other flags at their defaults: " +
		"--node-monitor-period 5s, --node-eviction-rate 0.1 per zone) on a fresh cluster of its own (etcd, kube-apiserver, " +
		"kwok; nodes in zones a, b, c in turn; no scheduler: the harness binds the pods round-robin, kwok makes them Ready). " +
		"The manager starts after every pod is Ready, watches the healthy cluster for " + w.Monitor.String() +
		" (CPU \"healthy\"), then testenv's PauseHeartbeat stops the silent nodes (spread over the zones), each fenced " +
		"with one last Lease renewal. Times count from the first PauseHeartbeat call and come from the harness's watches of " +
		"nodes and pods: a silent node is done when it carries the NoExecute node.kubernetes.io/unreachable (or not-ready) " +
		"taint, a pod when it is seen Ready=False (or deleted). CPU \"outage\" is from the pause until all of that was seen. " +
		"Memory from /proc/<pid>/status (VmRSS, VmHWM), CPU from /proc/<pid>/stat; median (min-max).\n\n")
	var sums []nlSummary
	for _, name := range managersIn(r.Nodes, func(n NodesResult) string { return n.Manager }) {
		sums = append(sums, summarizeNL(r.Nodes, name))
	}
	t := Table{Columns: []string{"manager", "runs", "synced s", "first taint s", "last taint s", "first pod not Ready s",
		"last pod not Ready s", "pods on silent nodes", "healthy nodes tainted", "RSS healthy MiB", "RSS end MiB",
		"peak RSS MiB", "CPU healthy %", "CPU outage %"}}
	for _, s := range sums {
		t.AddRow(s.Manager, fmt.Sprint(s.Runs), s.Synced.Format(2), s.FirstTaint.Format(2), s.LastTaint.Format(2),
			s.FirstNotReady.Format(2), s.LastNotReady.Format(2), s.SilentPods.Format(0), fmt.Sprint(s.Wrong),
			s.RSSHealthy.Format(1), s.RSSEnd.Format(1), s.Peak.Format(1), s.CPUHealthy.Format(1), s.CPUOutage.Format(1))
	}
	b.WriteString(t.Markdown())
	kcm, kube, ok := nlPair(sums)
	if ok {
		b.WriteString("\nkcm / kube-controller-manager (medians):\n\n")
		ratio := func(what string, pick func(nlSummary) Summary, target string) {
			line := fmt.Sprintf("- %s: %s", what, Ratio(pick(kcm).Median, pick(kube).Median))
			if target != "" {
				line += " (target " + target + ")"
			}
			b.WriteString(line + "\n")
		}
		ratio("pause → last silent node tainted", func(s nlSummary) Summary { return s.LastTaint }, "≤ 1.00x")
		ratio("pause → last pod not Ready", func(s nlSummary) Summary { return s.LastNotReady }, "≤ 1.00x")
		ratio("RSS at end", func(s nlSummary) Summary { return s.RSSEnd }, "≤ 0.50x")
		ratio("peak RSS", func(s nlSummary) Summary { return s.Peak }, "")
		ratio("CPU while healthy", func(s nlSummary) Summary { return s.CPUHealthy }, "")
		ratio("CPU during the outage", func(s nlSummary) Summary { return s.CPUOutage }, "")
	}
	b.WriteString("\nEvery run:\n\n")
	raw := Table{Columns: []string{"manager", "run", "pods created s", "all Ready s", "synced s", "pause took s",
		"last taint s", "last pod not Ready s", "RSS end MiB", "CPU healthy %", "CPU outage %", "load before", "load after"}}
	for _, n := range r.Nodes {
		raw.AddRow(n.Manager, fmt.Sprint(n.Run), nlSecs(n.Created), nlSecs(n.AllReady), nlSecs(n.Synced), nlSecs(n.PauseTook),
			nlSecs(n.LastTaint), nlSecs(n.LastNotReady), fmt.Sprintf("%.1f", MiB(n.Outage[1].RSS)),
			fmt.Sprintf("%.1f", CPUShare(n.Healthy)), fmt.Sprintf("%.1f", CPUShare(n.Outage)), n.Load[0].String(), n.Load[1].String())
	}
	b.WriteString(raw.Markdown())
	return b.String()
}

// nlPair finds kcm's and kube-controller-manager's summaries.
func nlPair(sums []nlSummary) (kcm, kube nlSummary, ok bool) {
	var hasKCM, hasKube bool
	for _, s := range sums {
		switch s.Manager {
		case "kcm":
			kcm, hasKCM = s, true
		case "kube-controller-manager":
			kube, hasKube = s, true
		}
	}
	return kcm, kube, hasKCM && hasKube
}

func nlSecs(d time.Duration) string { return fmt.Sprintf("%.2f", d.Seconds()) }
