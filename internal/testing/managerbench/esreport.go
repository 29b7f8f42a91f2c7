package managerbench

import (
	"fmt"
	"strings"
)

// esSummary is one manager's endpoints runs summarised: the medians the
// tables and ratios print. A field is the zero Summary where no run had
// the quantity (no slices written, no pod updates).
type esSummary struct {
	Manager                                      string
	Runs                                         int
	Controllers                                  []string
	Slices                                       bool    // every run had an endpointslice-controller
	LastReady, EndpointsLag, SliceLag, Converged Summary // seconds
	FillEndpoints, FillSlices                    Summary // writes during the fill
	RolloutPods, RolloutEndpoints, RolloutSlices Summary // events during the rollout
	EndpointsPerUpdate, SlicesPerUpdate          Summary // writes per pod event of the rollout
	RSSProbe, RSSFill, RSSEnd, Peak              Summary // MiB
	CPUProbe, CPUFill, CPUEnd                    Summary // seconds; CPUFill is from the probe to after the fill
}

// perUpdate is writes per pod update; false when there were no updates.
func perUpdate(writes, updates int) (float64, bool) {
	if updates == 0 {
		return 0, false
	}
	return float64(writes) / float64(updates), true
}

// summarizeES summarises the runs of manager.
func summarizeES(rs []EndpointsResult, manager string) esSummary {
	s := esSummary{Manager: manager, Slices: true}
	var ready, lagE, lagS, conv, fillE, fillS, rolP, rolE, rolS, perE, perS, cpuP, cpuF, cpuE []float64
	var rssP, rssF, rssE, peak []int64
	for _, r := range rs {
		if r.Manager != manager {
			continue
		}
		s.Runs++
		s.Controllers = r.Controllers
		s.Slices = s.Slices && r.Slices
		ready, conv = append(ready, r.LastReady.Seconds()), append(conv, r.Converged.Seconds())
		if d, ok := r.EndpointsLag(); ok {
			lagE = append(lagE, d.Seconds())
		}
		if d, ok := r.SliceLag(); ok && r.Slices {
			lagS = append(lagS, d.Seconds())
		}
		fillE, fillS = append(fillE, float64(r.Fill.Endpoints)), append(fillS, float64(r.Fill.Slices))
		rolP, rolE, rolS = append(rolP, float64(r.Rollout.PodEvents)), append(rolE, float64(r.Rollout.Endpoints)),
			append(rolS, float64(r.Rollout.Slices))
		if x, ok := perUpdate(r.Rollout.Endpoints, r.Rollout.PodEvents); ok {
			perE = append(perE, x)
		}
		if x, ok := perUpdate(r.Rollout.Slices, r.Rollout.PodEvents); ok && r.Slices {
			perS = append(perS, x)
		}
		rssP, rssF, rssE = append(rssP, r.AtProbe.RSS), append(rssF, r.AfterFill.RSS), append(rssE, r.AtEnd.RSS)
		peak = append(peak, r.AtEnd.HWM)
		cpuP, cpuF, cpuE = append(cpuP, r.AtProbe.CPU.Seconds()), append(cpuF, (r.AfterFill.CPU-r.AtProbe.CPU).Seconds()),
			append(cpuE, r.AtEnd.CPU.Seconds())
	}
	if s.Runs == 0 {
		s.Slices = false
	}
	s.LastReady, s.EndpointsLag, s.SliceLag, s.Converged = Summarize(ready), Summarize(lagE), Summarize(lagS), Summarize(conv)
	s.FillEndpoints, s.FillSlices = Summarize(fillE), Summarize(fillS)
	s.RolloutPods, s.RolloutEndpoints, s.RolloutSlices = Summarize(rolP), Summarize(rolE), Summarize(rolS)
	s.EndpointsPerUpdate, s.SlicesPerUpdate = Summarize(perE), Summarize(perS)
	s.RSSProbe, s.RSSFill, s.RSSEnd, s.Peak = mib(rssP), mib(rssF), mib(rssE), mib(peak)
	s.CPUProbe, s.CPUFill, s.CPUEnd = Summarize(cpuP), Summarize(cpuF), Summarize(cpuE)
	return s
}

// ESSameLabel labels the kube-controller-manager run with exactly kcm's
// endpoint controllers (Config.ESSameReference).
const ESSameLabel = "kube-controller-manager (kcm's set)"

// noSlices is what a slice cell says for a manager without an
// endpointslice-controller: no time or count is made up for it.
func noSlices(manager string) string { return manager + ": no endpointslice-controller" }

// sliceCell is x formatted, or noSlices when the manager writes none.
func (s esSummary) sliceCell(x Summary, decimals int) string {
	if !s.Slices {
		return noSlices(s.Manager)
	}
	return x.Format(decimals)
}

// esRatio is the kcm / kube-controller-manager line for one quantity
// (medians), or why there is none.
func esRatio(what string, kcm, kube esSummary, pick func(esSummary) Summary, slices bool, target string) string {
	line := "- " + what + ": "
	switch {
	case slices && !kcm.Slices:
		line += noSlices(kcm.Manager)
	case slices && !kube.Slices:
		line += noSlices(kube.Manager)
	case pick(kcm).N == 0 || pick(kube).N == 0:
		line += "-"
	default:
		line += Ratio(pick(kcm).Median, pick(kube).Median)
	}
	if target != "" {
		line += " (target " + target + ")"
	}
	return line + "\n"
}

func (r *Report) endpointsMarkdown() string {
	var b strings.Builder
	w := r.Config.ESWorkload
	pace := ""
	if w.Rate > 0 {
		pace = fmt.Sprintf(", created at %g Services/s", w.Rate)
	}
	fmt.Fprintf(&b, "\n### Endpoints and EndpointSlices: %d Services × %d pods on %d kwok nodes%s (--kube-api-qps=%d --kube-api-burst=%d)\n\n",
		w.Services, w.PodsPerService, w.Nodes(), pace, r.Config.QPS, r.Config.Burst)
	b.WriteString("Each manager runs on a fresh cluster of its own (etcd, kube-apiserver, kwok; no scheduler: the harness binds " +
		"each pod to a node, kwok makes it Running and Ready with an IP). The manager starts, a probe Service with one pod " +
		"gets its endpoints, then the harness creates the Services (ClusterIP, port 80 to the named port http) and their pods, " +
		"32 requests at a time (paced, when a rate is given: Service i starts i/rate seconds after the first). Times count from the first create request and come from the harness's own watches of pods, " +
		"Endpoints and EndpointSlices; \"last\" writes are taken after a settle period of " + r.Config.Settle.String() +
		" past the moment every Service's Endpoints (and slices) listed all its pods ready. " +
		"The rollout replaces one Service's pods one at a time (a new pod, Ready, then an old one deleted with the default " +
		"grace period until kwok removes it); \"pod updates\" are the events of that Service's pods in the rollout and its " +
		"settle period, writes the events of its Endpoints and slices. Memory from /proc/<pid>/status (VmRSS, VmHWM), " +
		"CPU from /proc/<pid>/stat (utime+stime); median (min-max).\n\n")
	var sums []esSummary
	for _, name := range managersIn(r.Endpoints, func(e EndpointsResult) string { return e.Manager }) {
		sums = append(sums, summarizeES(r.Endpoints, name))
	}
	fill := Table{Columns: []string{"manager", "runs", "controllers", "last pod Ready, s", "→ last Endpoints write, s",
		"→ last slice write, s", "all endpoints ready, s", "Endpoints writes", "slice writes"}}
	roll := Table{Columns: []string{"manager", "pod updates", "Endpoints writes", "Endpoints writes / pod update",
		"slice writes", "slice writes / pod update"}}
	mem := Table{Columns: []string{"manager", "RSS at probe, MiB", "RSS after fill, MiB", "RSS at end (steady), MiB",
		"peak RSS, MiB", "CPU to probe, s", "CPU probe → after fill, s", "CPU total, s"}}
	for _, s := range sums {
		fill.AddRow(s.Manager, fmt.Sprint(s.Runs), strings.Join(s.Controllers, ", "), s.LastReady.Format(2),
			s.EndpointsLag.Format(2), s.sliceCell(s.SliceLag, 2), s.Converged.Format(2), s.FillEndpoints.Format(0),
			s.sliceCell(s.FillSlices, 0))
		roll.AddRow(s.Manager, s.RolloutPods.Format(0), s.RolloutEndpoints.Format(0), s.EndpointsPerUpdate.Format(2),
			s.sliceCell(s.RolloutSlices, 0), s.sliceCell(s.SlicesPerUpdate, 2))
		mem.AddRow(s.Manager, s.RSSProbe.Format(1), s.RSSFill.Format(1), s.RSSEnd.Format(1), s.Peak.Format(1),
			s.CPUProbe.Format(2), s.CPUFill.Format(2), s.CPUEnd.Format(2))
	}
	b.WriteString("Fill (\"→\": from the last pod Ready to the last write):\n\n" + fill.Markdown())
	b.WriteString("\nRolling update of one Service's pods:\n\n" + roll.Markdown())
	b.WriteString("\nMemory and CPU:\n\n" + mem.Markdown())
	var kcm, kube, same esSummary
	for _, s := range sums {
		switch s.Manager {
		case "kcm":
			kcm = s
		case "kube-controller-manager":
			kube = s
		case ESSameLabel:
			same = s
		}
	}
	if kcm.Runs > 0 && kube.Runs > 0 {
		b.WriteString("\nkcm / kube-controller-manager, medians:\n\n")
		b.WriteString(esRatio("last pod Ready → last Endpoints write", kcm, kube, func(s esSummary) Summary { return s.EndpointsLag }, false, "≤ 1.00x"))
		b.WriteString(esRatio("last pod Ready → last slice write", kcm, kube, func(s esSummary) Summary { return s.SliceLag }, true, "≤ 1.00x"))
		b.WriteString(esRatio("Endpoints writes per pod update (rollout)", kcm, kube, func(s esSummary) Summary { return s.EndpointsPerUpdate }, false, "≤ 1.00x"))
		b.WriteString(esRatio("slice writes per pod update (rollout)", kcm, kube, func(s esSummary) Summary { return s.SlicesPerUpdate }, true, "≤ 1.00x"))
		b.WriteString(esRatio("RSS at end (steady)", kcm, kube, func(s esSummary) Summary { return s.RSSEnd }, false, "≤ 0.50x"))
		b.WriteString(esRatio("peak RSS", kcm, kube, func(s esSummary) Summary { return s.Peak }, false, ""))
		b.WriteString(esRatio("CPU total", kcm, kube, func(s esSummary) Summary { return s.CPUEnd }, false, ""))
		if strings.Join(kcm.Controllers, ",") != strings.Join(kube.Controllers, ",") {
			fmt.Fprintf(&b, "\nThe managers ran different controllers (kcm: %s; kube-controller-manager: %s): the memory and CPU "+
				"ratios above compare those sets, not like for like.\n", strings.Join(kcm.Controllers, ", "), strings.Join(kube.Controllers, ", "))
		}
	}
	if kcm.Runs > 0 && same.Runs > 0 {
		fmt.Fprintf(&b, "\nLike for like, kcm / %s (%s), medians:\n\n", ESSameLabel, strings.Join(same.Controllers, ", "))
		b.WriteString(esRatio("last pod Ready → last Endpoints write", kcm, same, func(s esSummary) Summary { return s.EndpointsLag }, false, "≤ 1.00x"))
		b.WriteString(esRatio("Endpoints writes per pod update (rollout)", kcm, same, func(s esSummary) Summary { return s.EndpointsPerUpdate }, false, "≤ 1.00x"))
		if same.Slices {
			b.WriteString(esRatio("last pod Ready → last slice write", kcm, same, func(s esSummary) Summary { return s.SliceLag }, true, "≤ 1.00x"))
			b.WriteString(esRatio("slice writes per pod update (rollout)", kcm, same, func(s esSummary) Summary { return s.SlicesPerUpdate }, true, "≤ 1.00x"))
		}
		b.WriteString(esRatio("RSS at end (steady)", kcm, same, func(s esSummary) Summary { return s.RSSEnd }, false, "≤ 0.50x"))
		b.WriteString(esRatio("peak RSS", kcm, same, func(s esSummary) Summary { return s.Peak }, false, ""))
		b.WriteString(esRatio("CPU total", kcm, same, func(s esSummary) Summary { return s.CPUEnd }, false, ""))
	}
	raw := Table{Columns: []string{"run", "manager", "load before", "probe, s", "created, s", "last Ready, s", "last Endpoints, s",
		"last slice, s", "converged, s", "fill writes (Endpoints/slices/pod events)", "rollout (pod events/Endpoints/slices)",
		"rollout took, s", "RSS end, MiB", "peak, MiB", "CPU, s"}}
	for _, e := range r.Endpoints {
		slice := f(e.LastSlice.Seconds(), 2)
		if !e.Slices {
			slice = "-"
		}
		raw.AddRow(fmt.Sprint(e.Run), e.Manager, e.Load[0].String(), f(e.Probe.Seconds(), 2), f(e.Created.Seconds(), 2),
			f(e.LastReady.Seconds(), 2), f(e.LastEndpoints.Seconds(), 2), slice, f(e.Converged.Seconds(), 2),
			fmt.Sprintf("%d/%d/%d", e.Fill.Endpoints, e.Fill.Slices, e.Fill.PodEvents),
			fmt.Sprintf("%d/%d/%d", e.Rollout.PodEvents, e.Rollout.Endpoints, e.Rollout.Slices),
			f(e.RolloutTook.Seconds(), 2), f(MiB(e.AtEnd.RSS), 1), f(MiB(e.AtEnd.HWM), 1), f(e.AtEnd.CPU.Seconds(), 2))
	}
	b.WriteString("\nEvery run, in the order run (seconds from the first create request):\n\n" + raw.Markdown())
	return b.String()
}
