package managerbench

import (
	"fmt"
	"strings"
	"time"
)

// A manager's memory comes from /proc/<pid>/status: VmRSS is resident now,
// VmHWM the peak so far.
func ExampleParseStatus() {
	status := "Name:\tkcm\nVmPeak:\t 1300000 kB\nVmHWM:\t   81920 kB\nVmRSS:\t   65536 kB\nThreads:\t12\n"
	rss, hwm, err := ParseStatus([]byte(status))
	fmt.Println(rss>>20, "MiB resident,", hwm>>20, "MiB at the peak,", err)
	// Output: 64 MiB resident, 80 MiB at the peak, <nil>
}

// Its CPU time is utime + stime, fields 14 and 15 of /proc/<pid>/stat,
// counted after the command name, which may hold spaces and parentheses.
func ExampleParseStat() {
	stat := "4242 (kube (ctl) mgr) S 1 4242 4242 0 -1 4194560 9000 0 0 0 250 37 0 0 20 0 14 0 100 1300000000 16000 18446744073709551615"
	cpu, err := ParseStat([]byte(stat))
	fmt.Println(cpu, err)
	// Output: 2.87s <nil>
}

func ExampleParseLoadAvg() {
	l, err := ParseLoadAvg([]byte("1.09 0.80 0.33 2/311 8085\n"))
	fmt.Println(l, err)
	// Output: 1.09 0.80 0.33 <nil>
}

// Runs are summarised by their median and range; an even count takes the
// mean of the two middle values.
func ExampleSummarize() {
	fmt.Println(Summarize([]float64{25.0, 23.8, 24.1}).Format(1))
	fmt.Println(Summarize([]float64{4, 1, 3, 2}).Format(2))
	fmt.Println(Summarize([]float64{7}).Format(0), Summarize(nil).Format(1))
	fmt.Println(Ratio(40, 160), Ratio(1, 0))
	// Output:
	// 24.1 (23.8-25.0)
	// 2.50 (1.00-4.00)
	// 7 -
	// 0.25x -
}

func ExampleTable_Markdown() {
	t := Table{Columns: []string{"manager", "RSS, MiB"}}
	t.AddRow("kcm", "41.0")
	t.AddRow("a|b", "160.2", "extra")
	fmt.Print(t.Markdown())
	// Output:
	// | manager | RSS, MiB |       |
	// |---------|----------|-------|
	// | kcm     | 41.0     |       |
	// | a\|b    | 160.2    | extra |
}

// A LineWatcher notes when a manager printed the line that says its caches
// synced, even when the line arrives in pieces.
func ExampleLineWatcher() {
	clock := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { clock = clock.Add(time.Second); return clock }
	var log strings.Builder
	w := NewLineWatcher(&log, now, "Caches are synced")
	fmt.Fprint(w, "I0101 starting\nI0101 Caches are ")
	fmt.Fprint(w, "synced for deployment\n")
	fmt.Fprint(w, "I0101 Caches are synced for replicaset\n")
	m := w.Marks("Caches are synced")
	fmt.Println(m.Count, m.First.Format(time.TimeOnly), m.Last.Format(time.TimeOnly), len(log.String()))
	// Output: 2 00:00:02 00:00:03 93
}

// Both managers get the same command line where both have the flag;
// kube-controller-manager is also told to use one identity for all
// controllers.
func ExampleManager_Args() {
	for _, m := range []Manager{
		{Label: "kcm", Kind: KCM, Controllers: SameControllers},
		{Label: "kube-controller-manager default", Kind: Kube},
	} {
		fmt.Println(m.Label+":", strings.Join(m.Args("/k", 10257, "/certs", 20, 30), " "))
	}
	// Output:
	// kcm: --kubeconfig=/k --controllers=serviceaccount-controller,replicaset-controller,deployment-controller,garbage-collector-controller,namespace-controller --leader-elect=false --bind-address=127.0.0.1 --secure-port=10257 --cert-dir=/certs --kube-api-qps=20 --kube-api-burst=30 --profiling --authentication-kubeconfig=/k --authorization-kubeconfig=/k
	// kube-controller-manager default: --kubeconfig=/k --controllers=* --leader-elect=false --bind-address=127.0.0.1 --secure-port=10257 --cert-dir=/certs --kube-api-qps=20 --kube-api-burst=30 --use-service-account-credentials=false
}

// kcm's /metrics says how much of its resident memory is Go heap.
func ExampleParseMetrics() {
	text := `# HELP go_memstats_heap_alloc_bytes Number of heap bytes allocated and currently in use.
# TYPE go_memstats_heap_alloc_bytes gauge
go_memstats_heap_alloc_bytes 7.340032e+07
go_memstats_heap_alloc_bytes_total 9e+09
go_memstats_next_gc_bytes 1.048576e+08
workqueue_depth{name="replicaset-controller"} 0
`
	m, err := ParseMetrics(strings.NewReader(text), GoHeapMetrics...)
	fmt.Println(m["go_memstats_heap_alloc_bytes"]/(1<<20), m["go_memstats_next_gc_bytes"]/(1<<20), len(m), err)
	// Output: 70 100 2 <nil>
}
