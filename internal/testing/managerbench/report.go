package managerbench

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Report is the outcome of Run: the machine, every run's measurements,
// and how long it all took.
type Report struct {
	Machine     Machine
	KubeVersion string
	Config      Config
	WorkDir     string
	Began       time.Time
	Took        time.Duration

	Scale     []ScaleResult
	ScaleLoad [2]LoadAvg // before and after the scale benchmark
	Populate  PopulateTimes
	Sync      []SyncResult
	SyncLoad  [2]LoadAvg // before and after the sync benchmark (population included)
	Endpoints []EndpointsResult
	// StatefulSets are the StatefulSet benchmark's runs.
	StatefulSets []StatefulSetsResult
	// Nodes are the node lifecycle benchmark's runs.
	Nodes []NodesResult
	// Quotas are the quotas (resourcequota-controller) benchmark's runs.
	Quotas []QuotasResult
}

// MiB is a byte count in mebibytes.
func MiB(b int64) float64 { return float64(b) / (1 << 20) }

// Markdown renders the report: the machine, one summary table per
// benchmark (median and range over the runs), the ratios the targets are
// stated in, and every run's raw numbers.
func (r *Report) Markdown() string {
	var b strings.Builder
	m := r.Machine
	fmt.Fprintf(&b, "Machine: %d CPUs (%s), %.1f GiB memory; %s; kcm at %s; kube-controller-manager %s built by testenv.\n",
		m.CPUs, orUnknown(m.CPUModel), float64(m.MemTotal)/(1<<30), m.GoVersion, m.Commit, r.KubeVersion)
	fmt.Fprintf(&b, "Load average (1, 5, 15 min) at start %s, at end %s. Run began %s and took %s; %d run(s) per manager, order alternating.\n",
		m.LoadBefore, m.LoadAfter, r.Began.UTC().Format(time.RFC3339), r.Took.Round(time.Second), r.Config.Runs)
	if len(r.Config.KubeArgs) > 0 {
		fmt.Fprintf(&b, "kube-controller-manager's extra flags: `%s`.\n", strings.Join(r.Config.KubeArgs, " "))
	}
	if len(r.Scale) > 0 {
		b.WriteString(r.scaleMarkdown())
	}
	if len(r.Sync) > 0 {
		b.WriteString(r.syncMarkdown())
	}
	if len(r.Endpoints) > 0 {
		b.WriteString(r.endpointsMarkdown())
	}
	if len(r.StatefulSets) > 0 {
		b.WriteString(r.statefulSetsMarkdown())
	}
	if len(r.Nodes) > 0 {
		b.WriteString(r.nodesMarkdown())
	}
	if len(r.Quotas) > 0 {
		b.WriteString(r.quotasMarkdown())
	}
	fmt.Fprintf(&b, "\nLogs of every process: %s\n", r.WorkDir)
	return b.String()
}

func orUnknown(s string) string {
	if s == "" {
		return "model unknown"
	}
	return s
}

// seconds and mib turn per-run values into Summaries.
func seconds(ds []time.Duration) Summary {
	xs := make([]float64, len(ds))
	for i, d := range ds {
		xs[i] = d.Seconds()
	}
	return Summarize(xs)
}

func mib(bs []int64) Summary {
	xs := make([]float64, len(bs))
	for i, v := range bs {
		xs[i] = MiB(v)
	}
	return Summarize(xs)
}

// managersIn lists the managers of results in first-seen order.
func managersIn[T any](rs []T, name func(T) string) []string {
	var out []string
	for _, x := range rs {
		if n := name(x); !contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func (r *Report) scaleMarkdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n### Deployment of %d replicas → %d pods (--kube-api-qps=%d --kube-api-burst=%d)\n\n",
		r.Config.Replicas, r.Config.Replicas, r.Config.QPS, r.Config.Burst)
	fmt.Fprintf(&b, "Load average before %s, after %s. Seconds from the Deployment's create request to the pods' ADDED events on a watch; median (min-max).\n\n",
		r.ScaleLoad[0], r.ScaleLoad[1])
	t := Table{Columns: []string{"manager", "runs", "all pods, s", "first pod, s", "start → probe pod, s", "RSS at end, MiB", "CPU at end, s"}}
	med := map[string]float64{}
	for _, name := range managersIn(r.Scale, func(s ScaleResult) string { return s.Manager }) {
		var all, first, ready, cpu []time.Duration
		var rss []int64
		for _, s := range r.Scale {
			if s.Manager == name {
				all, first, ready = append(all, s.AllPods), append(first, s.FirstPod), append(ready, s.Ready)
				cpu, rss = append(cpu, s.AtEnd.CPU), append(rss, s.AtEnd.RSS)
			}
		}
		sa := seconds(all)
		med[name] = sa.Median
		t.AddRow(name, fmt.Sprint(sa.N), sa.Format(1), seconds(first).Format(2), seconds(ready).Format(2),
			mib(rss).Format(1), seconds(cpu).Format(2))
	}
	b.WriteString(t.Markdown())
	fmt.Fprintf(&b, "\nkcm / kube-controller-manager, median time to all pods: %s.\n",
		Ratio(med["kcm"], med["kube-controller-manager"]))
	raw := Table{Columns: []string{"run", "manager", "all pods, s", "first pod, s", "start → probe pod, s", "RSS, MiB", "CPU, s"}}
	for _, s := range r.Scale {
		raw.AddRow(fmt.Sprint(s.Run), s.Manager, f(s.AllPods.Seconds(), 2), f(s.FirstPod.Seconds(), 2),
			f(s.Ready.Seconds(), 2), f(MiB(s.AtEnd.RSS), 1), f(s.AtEnd.CPU.Seconds(), 2))
	}
	b.WriteString("\nEvery run, in the order run:\n\n" + raw.Markdown())
	return b.String()
}

func (r *Report) syncMarkdown() string {
	var b strings.Builder
	p := r.Config.Population
	fmt.Fprintf(&b, "\n### Synced caches on %d pods in %d Deployments (%d namespaces)\n\n",
		p.Pods(), p.Namespaces*p.Deployments, p.Namespaces)
	fmt.Fprintf(&b, "A pod is %d bytes of JSON, %d without managedFields. "+
		"Populated by kube-controller-manager at QPS 2000 in %s (pods created %s, marked Ready %s, Deployments available %s), then stopped. "+
		"Load average before %s, after %s. Times count from the process start; \"probe\" is the moment the pod of a "+
		"1-replica Deployment created before the start appeared (caches synced, workers running); memory and CPU from "+
		"/proc/<pid>/status (VmRSS, VmHWM) and /proc/<pid>/stat (utime+stime) at the probe — or, where the garbage collector runs, "+
		"once it has logged that its resource monitors synced, if that is later (kcm's collector lists after its \"caches synced\") — "+
		"and %s later; median (min-max).\n\n",
		r.Populate.PodBytes, r.Populate.PodBytesNoManagedFields,
		r.Populate.Total.Round(time.Second), r.Populate.Create.Round(time.Second), r.Populate.Ready.Round(time.Second),
		r.Populate.Settle.Round(time.Second), r.SyncLoad[0], r.SyncLoad[1], r.Config.Settle)
	t := Table{Columns: []string{"manager", "runs", "caches synced (log), s", "probe pod, s", "RSS at probe, MiB",
		"RSS settled, MiB", "peak RSS, MiB", "CPU at probe, s", "CPU settled, s", "writes"}}
	rssAtProbe := map[string]float64{}
	for _, name := range managersIn(r.Sync, func(s SyncResult) string { return s.Manager }) {
		var logSynced, probe, cpuP, cpuS []time.Duration
		var rssP, rssS, hwm []int64
		writes := 0
		for _, s := range r.Sync {
			if s.Manager != name {
				continue
			}
			if s.LogSyncedSeen > 0 {
				logSynced = append(logSynced, s.LogSynced)
			}
			probe, cpuP, cpuS = append(probe, s.Probe), append(cpuP, s.AtProbe.CPU), append(cpuS, s.Settled.CPU)
			rssP, rssS, hwm = append(rssP, s.AtProbe.RSS), append(rssS, s.Settled.RSS), append(hwm, s.Settled.HWM)
			for _, n := range s.Writes {
				writes += n
			}
		}
		rp := mib(rssP)
		rssAtProbe[name] = rp.Median
		t.AddRow(name, fmt.Sprint(rp.N), seconds(logSynced).Format(2), seconds(probe).Format(2), rp.Format(1),
			mib(rssS).Format(1), mib(hwm).Format(1), seconds(cpuP).Format(2), seconds(cpuS).Format(2), fmt.Sprint(writes))
	}
	b.WriteString(t.Markdown())
	fmt.Fprintf(&b, "\nkcm / kube-controller-manager (same controllers), median RSS at the probe: %s (target ≤ 0.50x).\n",
		Ratio(rssAtProbe["kcm"], rssAtProbe["kube-controller-manager"]))
	raw := Table{Columns: []string{"run", "manager", "caches synced (log), s", "probe pod, s", "RSS at probe, MiB",
		"RSS settled, MiB", "peak RSS, MiB", "CPU at probe, s", "CPU settled, s", "writes"}}
	for _, s := range r.Sync {
		raw.AddRow(fmt.Sprint(s.Run), s.Manager, logSyncedCell(s), f(s.Probe.Seconds(), 2), f(MiB(s.AtProbe.RSS), 1),
			f(MiB(s.Settled.RSS), 1), f(MiB(s.Settled.HWM), 1), f(s.AtProbe.CPU.Seconds(), 2), f(s.Settled.CPU.Seconds(), 2),
			writesCell(s.Writes))
	}
	b.WriteString("\nEvery run, in the order run:\n\n" + raw.Markdown())
	b.WriteString(goHeapMarkdown(r.Sync))
	b.WriteString(heapMarkdown(r.Sync))
	return b.String()
}

// goHeapMarkdown tabulates the Go heap series scraped from kcm after the
// settle period, beside its resident memory, in MiB.
func goHeapMarkdown(rs []SyncResult) string {
	t := Table{Columns: []string{"run", "manager", "RSS settled", "heap alloc", "heap in use", "next GC at", "from the OS (sys)"}}
	for _, s := range rs {
		if s.GoHeap == nil {
			continue
		}
		t.AddRow(fmt.Sprint(s.Run), s.Manager, f(MiB(s.Settled.RSS), 1),
			f(s.GoHeap["go_memstats_heap_alloc_bytes"]/(1<<20), 1), f(s.GoHeap["go_memstats_heap_inuse_bytes"]/(1<<20), 1),
			f(s.GoHeap["go_memstats_next_gc_bytes"]/(1<<20), 1), f(s.GoHeap["go_memstats_sys_bytes"]/(1<<20), 1))
	}
	if len(t.Rows) == 0 {
		return ""
	}
	return "\nkcm's Go heap after the settle period (its /metrics; MiB). With GOGC=100 the next collection starts at " +
		"about twice the heap that survived the last one:\n\n" + t.Markdown()
}

func f(x float64, decimals int) string { return fmt.Sprintf("%.*f", decimals, x) }

// logSyncedCell is the time of the last "caches synced" line and, when
// there were several (one per kube-controller-manager controller), their
// number.
func logSyncedCell(s SyncResult) string {
	switch s.LogSyncedSeen {
	case 0:
		return "-"
	case 1:
		return f(s.LogSynced.Seconds(), 2)
	}
	return fmt.Sprintf("%.2f (%d lines)", s.LogSynced.Seconds(), s.LogSyncedSeen)
}

// writesCell lists the write events per resource, "0" for none.
func writesCell(w map[string]int) string {
	var parts []string
	for res, n := range w {
		parts = append(parts, fmt.Sprintf("%s %d", res, n))
	}
	if len(parts) == 0 {
		return "0"
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
