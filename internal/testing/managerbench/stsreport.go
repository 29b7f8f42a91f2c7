package managerbench

import (
	"fmt"
	"strings"
)

// stsSummary is one manager's StatefulSet runs summarised: the medians the
// tables and ratios print.
type stsSummary struct {
	Manager                              string
	Runs                                 int
	Controllers                          []string
	LastReady, StatusLag, Converged      Summary // seconds from the first create
	Rolled                               Summary // seconds from the first patch
	FillCreates, FillStatus, FillRevs    Summary // events during the fill
	RollCreates, RollDeletes, RollStatus Summary // events during the rollout
	RollRevs                             Summary
	RSSProbe, RSSFill, RSSEnd, Peak      Summary // MiB
	CPUProbe, CPUFill, CPURoll, CPUEnd   Summary // seconds; fill: probe → after fill; rollout: after fill → end
}

// summarizeSTS summarises the runs of manager.
func summarizeSTS(rs []StatefulSetsResult, manager string) stsSummary {
	s := stsSummary{Manager: manager}
	var ready, lagS, conv, rolled, fc, fs, fr, rc, rd, rst, rr, cpuP, cpuF, cpuR, cpuE []float64
	var rssP, rssF, rssE, peak []int64
	n := func(x int) float64 { return float64(x) }
	for _, r := range rs {
		if r.Manager != manager {
			continue
		}
		s.Runs++
		s.Controllers = r.Controllers
		ready, lagS = append(ready, r.LastReady.Seconds()), append(lagS, r.StatusLag().Seconds())
		conv, rolled = append(conv, r.Converged.Seconds()), append(rolled, r.Rolled.Seconds())
		fc, fs, fr = append(fc, n(r.Fill.PodCreates)), append(fs, n(r.Fill.StatusWrites)), append(fr, n(r.Fill.Revisions))
		rc, rd = append(rc, n(r.Rollout.PodCreates)), append(rd, n(r.Rollout.PodDeletes))
		rst, rr = append(rst, n(r.Rollout.StatusWrites)), append(rr, n(r.Rollout.Revisions))
		rssP, rssF, rssE = append(rssP, r.AtProbe.RSS), append(rssF, r.AfterFill.RSS), append(rssE, r.AtEnd.RSS)
		peak = append(peak, r.AtEnd.HWM)
		cpuP, cpuF = append(cpuP, r.AtProbe.CPU.Seconds()), append(cpuF, (r.AfterFill.CPU-r.AtProbe.CPU).Seconds())
		cpuR, cpuE = append(cpuR, (r.AtEnd.CPU-r.AfterFill.CPU).Seconds()), append(cpuE, r.AtEnd.CPU.Seconds())
	}
	s.LastReady, s.StatusLag, s.Converged, s.Rolled = Summarize(ready), Summarize(lagS), Summarize(conv), Summarize(rolled)
	s.FillCreates, s.FillStatus, s.FillRevs = Summarize(fc), Summarize(fs), Summarize(fr)
	s.RollCreates, s.RollDeletes, s.RollStatus, s.RollRevs = Summarize(rc), Summarize(rd), Summarize(rst), Summarize(rr)
	s.RSSProbe, s.RSSFill, s.RSSEnd, s.Peak = mib(rssP), mib(rssF), mib(rssE), mib(peak)
	s.CPUProbe, s.CPUFill, s.CPURoll, s.CPUEnd = Summarize(cpuP), Summarize(cpuF), Summarize(cpuR), Summarize(cpuE)
	return s
}

// stsRatio is the kcm / kube-controller-manager line for one quantity
// (medians), "-" when either has none.
func stsRatio(what string, kcm, kube stsSummary, pick func(stsSummary) Summary, target string) string {
	return ratioLine(what, pick(kcm), pick(kube), target)
}

func (r *Report) statefulSetsMarkdown() string {
	var b strings.Builder
	w := r.Config.STSWorkload
	pace := ""
	if w.Rate > 0 {
		pace = fmt.Sprintf(", created at %g StatefulSets/s", w.Rate)
	}
	fmt.Fprintf(&b, "\n### StatefulSets: %d sets × %d replicas (%s) on %d kwok nodes%s (--kube-api-qps=%d --kube-api-burst=%d)\n\n",
		w.Sets, w.Replicas, w.Policy(), w.Nodes(), pace, r.Config.QPS, r.Config.Burst)
	b.WriteString("Each manager runs the statefulset-controller alone, on a fresh cluster of its own (etcd, kube-apiserver, kwok; " +
		"no scheduler: each set's template names its node, round-robin over nodes in three zones, and kwok makes the pods " +
		"Running and Ready with an IP). The manager starts, a probe set of one replica reports its pod ready, then the harness " +
		"creates the StatefulSets (RollingUpdate, no volume claims), 32 requests at a time (paced, when a rate is given). " +
		"\"All sets Ready\" is the moment every set's status, written for its generation, said all replicas ready and all " +
		"its pods were Ready; times count from the first create request and come from the harness's own watches of pods, " +
		"StatefulSets and ControllerRevisions. Then every set's image is changed (a strategic merge patch of the template) " +
		"and \"all sets rolled\" counts from the first patch request to the moment every set reported its update revision " +
		"current on all replicas, all ready, with its pods Ready at that revision. Counts are watch events: pod creates " +
		"(ADDED), pod deletes (DELETED), status writes (StatefulSet MODIFIED events at an unchanged generation), " +
		"ControllerRevisions created; each window runs to the end of a settle period of " + r.Config.Settle.String() +
		". Memory from /proc/<pid>/status (VmRSS, VmHWM), CPU from /proc/<pid>/stat (utime+stime); median (min-max).\n\n")
	var sums []stsSummary
	for _, name := range managersIn(r.StatefulSets, func(s StatefulSetsResult) string { return s.Manager }) {
		sums = append(sums, summarizeSTS(r.StatefulSets, name))
	}
	fill := Table{Columns: []string{"manager", "runs", "controllers", "last pod Ready, s", "→ all sets report it, s",
		"all sets Ready, s", "pod creates", "status writes", "revisions"}}
	roll := Table{Columns: []string{"manager", "all sets rolled, s", "pod creates", "pod deletes", "status writes", "revisions"}}
	mem := Table{Columns: []string{"manager", "RSS at probe, MiB", "RSS after fill, MiB", "RSS at end, MiB", "peak RSS, MiB",
		"CPU to probe, s", "CPU fill, s", "CPU rollout, s", "CPU total, s"}}
	for _, s := range sums {
		fill.AddRow(s.Manager, fmt.Sprint(s.Runs), strings.Join(s.Controllers, ", "), s.LastReady.Format(2),
			s.StatusLag.Format(2), s.Converged.Format(2), s.FillCreates.Format(0), s.FillStatus.Format(0), s.FillRevs.Format(0))
		roll.AddRow(s.Manager, s.Rolled.Format(2), s.RollCreates.Format(0), s.RollDeletes.Format(0), s.RollStatus.Format(0),
			s.RollRevs.Format(0))
		mem.AddRow(s.Manager, s.RSSProbe.Format(1), s.RSSFill.Format(1), s.RSSEnd.Format(1), s.Peak.Format(1),
			s.CPUProbe.Format(2), s.CPUFill.Format(2), s.CPURoll.Format(2), s.CPUEnd.Format(2))
	}
	b.WriteString("Fill (\"→\": from the last pod Ready to every set reporting all its replicas ready):\n\n" + fill.Markdown())
	b.WriteString("\nRollout of every set to a new image:\n\n" + roll.Markdown())
	b.WriteString("\nMemory and CPU:\n\n" + mem.Markdown())
	var kcm, kube stsSummary
	for _, s := range sums {
		switch s.Manager {
		case "kcm":
			kcm = s
		case "kube-controller-manager":
			kube = s
		}
	}
	if kcm.Runs > 0 && kube.Runs > 0 {
		b.WriteString("\nkcm / kube-controller-manager, medians:\n\n")
		b.WriteString(stsRatio("all sets Ready (from the first create)", kcm, kube, func(s stsSummary) Summary { return s.Converged }, "≤ 1.00x"))
		b.WriteString(stsRatio("last pod Ready → all sets report it", kcm, kube, func(s stsSummary) Summary { return s.StatusLag }, "≤ 1.00x"))
		b.WriteString(stsRatio("all sets rolled (from the first patch)", kcm, kube, func(s stsSummary) Summary { return s.Rolled }, "≤ 1.00x"))
		b.WriteString(stsRatio("status writes in the fill", kcm, kube, func(s stsSummary) Summary { return s.FillStatus }, ""))
		b.WriteString(stsRatio("RSS at end", kcm, kube, func(s stsSummary) Summary { return s.RSSEnd }, "≤ 0.50x"))
		b.WriteString(stsRatio("peak RSS", kcm, kube, func(s stsSummary) Summary { return s.Peak }, "≤ 0.50x"))
		b.WriteString(stsRatio("CPU total", kcm, kube, func(s stsSummary) Summary { return s.CPUEnd }, ""))
	}
	raw := Table{Columns: []string{"run", "manager", "load before", "probe, s", "created, s", "last Ready, s", "last status, s",
		"all Ready, s", "fill (pod creates/status writes/revisions/pod events)", "rolled, s",
		"rollout (pod creates/deletes/status writes/revisions)", "RSS end, MiB", "peak, MiB", "CPU, s"}}
	for _, e := range r.StatefulSets {
		raw.AddRow(fmt.Sprint(e.Run), e.Manager, e.Load[0].String(), f(e.Probe.Seconds(), 2), f(e.Created.Seconds(), 2),
			f(e.LastReady.Seconds(), 2), f(e.LastStatus.Seconds(), 2), f(e.Converged.Seconds(), 2),
			fmt.Sprintf("%d/%d/%d/%d", e.Fill.PodCreates, e.Fill.StatusWrites, e.Fill.Revisions, e.Fill.PodEvents),
			f(e.Rolled.Seconds(), 2),
			fmt.Sprintf("%d/%d/%d/%d", e.Rollout.PodCreates, e.Rollout.PodDeletes, e.Rollout.StatusWrites, e.Rollout.Revisions),
			f(MiB(e.AtEnd.RSS), 1), f(MiB(e.AtEnd.HWM), 1), f(e.AtEnd.CPU.Seconds(), 2))
	}
	b.WriteString("\nEvery run, in the order run (seconds from the first create request; rolled: from the first patch):\n\n" + raw.Markdown())
	return b.String()
}
