package managerbench

import (
	"fmt"
	"strings"
)

// summaryOf summarizes one quantity, pick, over the results rs of one
// manager.
func summaryOf[T any](rs []T, manager string, label func(T) string, pick func(T) float64) Summary {
	var xs []float64
	for _, r := range rs {
		if label(r) == manager {
			xs = append(xs, pick(r))
		}
	}
	return Summarize(xs)
}

// ratioLine is the "kcm / kube-controller-manager" line of one quantity's
// medians, "-" when either manager has none, with its target if any.
func ratioLine(what string, kcm, kube Summary, target string) string {
	line := "- " + what + ": "
	if kcm.N == 0 || kube.N == 0 {
		line += "-"
	} else {
		line += Ratio(kcm.Median, kube.Median)
	}
	if target != "" {
		line += " (target " + target + ")"
	}
	return line + "\n"
}

// rqColumn is one quantity of the quotas benchmark's summary: its column
// header, how it is read from a run, its decimals, and, when it enters
// the kcm / kube-controller-manager ratios, the line's wording and target.
type rqColumn struct {
	header   string
	pick     func(QuotasResult) float64
	decimals int
	ratio    string
	target   string
}

// rqColumns are the summary's quantities, in table order.
var rqColumns = []rqColumn{
	{"probe, s", func(r QuotasResult) float64 { return r.Probe.Seconds() }, 2, "", ""},
	{"all quotas correct, s", func(r QuotasResult) float64 { return r.AllCorrect.Seconds() }, 2,
		"all quotas correct (from the first quota create)", ""},
	{"writes (fill)", func(r QuotasResult) float64 { return float64(r.FillWrites) }, 0, "quota writes in the fill", ""},
	{"all corrected after deletes, s", func(r QuotasResult) float64 { return r.AllCorrected.Seconds() }, 2,
		"all quotas corrected (from the first pod delete)", ""},
	{"writes (deletes)", func(r QuotasResult) float64 { return float64(r.DeleteWrites) }, 0, "", ""},
	{"RSS at probe, MiB", func(r QuotasResult) float64 { return MiB(r.AtProbe.RSS) }, 1, "", ""},
	{"RSS after fill, MiB", func(r QuotasResult) float64 { return MiB(r.AfterFill.RSS) }, 1, "", ""},
	{"RSS at end, MiB", func(r QuotasResult) float64 { return MiB(r.AtEnd.RSS) }, 1, "RSS at end", "≤ 0.50x"},
	{"peak RSS, MiB", func(r QuotasResult) float64 { return MiB(r.AtEnd.HWM) }, 1, "peak RSS", "≤ 0.50x"},
	{"CPU to probe, s", func(r QuotasResult) float64 { return r.AtProbe.CPU.Seconds() }, 2, "", ""},
	{"CPU fill, s", func(r QuotasResult) float64 { return (r.AfterFill.CPU - r.AtProbe.CPU).Seconds() }, 2, "", ""},
	{"CPU deletes, s", func(r QuotasResult) float64 { return (r.AtEnd.CPU - r.AfterFill.CPU).Seconds() }, 2, "", ""},
	{"CPU total, s", func(r QuotasResult) float64 { return r.AtEnd.CPU.Seconds() }, 2, "CPU total", ""},
}

// quotasMarkdown renders the quotas benchmark: what was done, one summary
// row per manager, the kcm / kube-controller-manager ratios, every run.
func (r *Report) quotasMarkdown() string {
	var b strings.Builder
	w := r.Config.RQWorkload
	fmt.Fprintf(&b, "\n### Resource quotas: %d namespaces × (1 ResourceQuota, %d pods), then %d pods deleted (--kube-api-qps=%d --kube-api-burst=%d)\n\n",
		w.Namespaces, w.PodsPerNamespace, w.Deletes(), r.Config.QPS, r.Config.Burst)
	b.WriteString("Each manager runs the " + QuotaController + " alone (its flags at their defaults: " +
		"--concurrent-resource-quota-syncs 5, --resource-quota-sync-period 5m) on a fresh cluster of its own (etcd, " +
		"kube-apiserver; no nodes: the pods stay Pending, which quota counts). Before the manager starts, the harness " +
		"creates the namespaces and their pods (one container requesting cpu 100m and memory 128Mi) and a probe quota in a " +
		"namespace of its own; the manager starts and the probe reports its usage (caches synced, workers running). Then " +
		"one ResourceQuota (hard: pods, requests.cpu, requests.memory) per namespace is created, 32 requests at a time: " +
		"\"all quotas correct\" counts from the first create request to the moment the last quota's status.used, as seen " +
		"on the harness's watch of ResourceQuotas, equalled its namespace's pods (count and requests, compared as " +
		"quantities). Then the first " + fmt.Sprint(w.DeletePerNamespace) + " pod(s) of every namespace are deleted " +
		"(gone at once: never bound) and \"all corrected\" counts from the first delete request likewise. Writes are the " +
		"quotas' MODIFIED events (the harness never updates a quota) up to the end of a settle period of " +
		r.Config.Settle.String() + " after each phase. Memory from /proc/<pid>/status (VmRSS, VmHWM), CPU from " +
		"/proc/<pid>/stat (utime+stime); median (min-max).\n\n")
	label := func(q QuotasResult) string { return q.Manager }
	managers := managersIn(r.Quotas, label)
	sum := func(manager string, c rqColumn) Summary { return summaryOf(r.Quotas, manager, label, c.pick) }
	t := Table{Columns: []string{"manager", "runs"}}
	for _, c := range rqColumns {
		t.Columns = append(t.Columns, c.header)
	}
	for _, m := range managers {
		row := []string{m, fmt.Sprint(sum(m, rqColumns[0]).N)}
		for _, c := range rqColumns {
			row = append(row, sum(m, c).Format(c.decimals))
		}
		t.AddRow(row...)
	}
	b.WriteString(t.Markdown())
	if contains(managers, "kcm") && contains(managers, "kube-controller-manager") {
		b.WriteString("\nkcm / kube-controller-manager, medians:\n\n")
		for _, c := range rqColumns {
			if c.ratio != "" {
				b.WriteString(ratioLine(c.ratio, sum("kcm", c), sum("kube-controller-manager", c), c.target))
			}
		}
	}
	raw := Table{Columns: []string{"run", "manager", "load before", "populated, s", "probe, s", "quotas created, s",
		"first correct, s", "all correct, s", "writes", "pods deleted, s", "first corrected, s", "all corrected, s",
		"writes", "RSS end, MiB", "peak, MiB", "CPU, s"}}
	for _, q := range r.Quotas {
		raw.AddRow(fmt.Sprint(q.Run), q.Manager, q.Load[0].String(), f(q.Populated.Seconds(), 2), f(q.Probe.Seconds(), 2),
			f(q.Created.Seconds(), 2), f(q.FirstCorrect.Seconds(), 2), f(q.AllCorrect.Seconds(), 2), fmt.Sprint(q.FillWrites),
			f(q.Deleted.Seconds(), 2), f(q.FirstCorrected.Seconds(), 2), f(q.AllCorrected.Seconds(), 2),
			fmt.Sprint(q.DeleteWrites), f(MiB(q.AtEnd.RSS), 1), f(MiB(q.AtEnd.HWM), 1), f(q.AtEnd.CPU.Seconds(), 2))
	}
	b.WriteString("\nEvery run, in the order run (fill: seconds from the first quota create; deletes: from the first pod delete):\n\n" +
		raw.Markdown())
	return b.String()
}
