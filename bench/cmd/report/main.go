// Command report runs the bench suite, or reads its output, and prints the
// comparison table of kcm against client-go with the machine it ran on.
//
//	go run ./cmd/report                      # run everything (a few minutes)
//	go run ./cmd/report -in bench.txt        # tabulate saved `go test -bench` output
//	go test -bench . -benchmem | go run ./cmd/report -in -
//
// The informer benchmarks (Sync, Watch, Heap, HeapUpdated) run once at the machine's
// GOMAXPROCS; the store, queue and lister benchmarks run at each -cpu value,
// -count times, and the table shows medians. Each of the four families runs
// in a process of its own. Progress goes to stderr, the
// table to stdout (and to -raw, the raw output, when set).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"

	"github.com/kcmlab/kcm/bench/report"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

type options struct {
	in, raw, cpu, sizes, benchtime string
	count, informerCount           int
}

func run() error {
	var o options
	flag.StringVar(&o.in, "in", "", "read `go test -bench` output from this file (- for stdin) instead of running the suite")
	flag.StringVar(&o.raw, "raw", "", "also write the raw benchmark output to this file")
	flag.StringVar(&o.cpu, "cpu", defaultCPU(), "GOMAXPROCS values for the store and queue benchmarks")
	flag.StringVar(&o.sizes, "sizes", "", "pod counts for sync and heap (KCM_BENCH_SIZES), e.g. 1000,10000; default 1k,10k,50k")
	flag.StringVar(&o.benchtime, "benchtime", "300ms", "-benchtime of the store and queue benchmarks")
	flag.IntVar(&o.count, "count", 3, "-count of the store and queue benchmarks (the table shows medians)")
	flag.IntVar(&o.informerCount, "informer-count", 1, "-count of the sync, watch and heap benchmarks")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	loadBefore := loadAvg()
	out, err := collect(ctx, o)
	if err != nil {
		return err
	}
	if o.raw != "" {
		if err := os.WriteFile(o.raw, out, 0o644); err != nil {
			return err
		}
	}
	set, err := report.Parse(bytes.NewReader(out))
	if err != nil {
		return err
	}
	load := ""
	if o.in == "" { // the load of the run, not of today's machine
		load = fmt.Sprintf("load average (1, 5, 15 min) before %s, after %s", loadBefore, loadAvg())
	}
	fmt.Print(machine(set, load))
	return report.Markdown(os.Stdout, report.Rows(set))
}

// defaultCPU lists 1, 2, 4, 8, 16 up to the machine's CPU count.
func defaultCPU() string {
	var ps []string
	for p := 1; p <= 16 && p <= runtime.NumCPU(); p *= 2 {
		ps = append(ps, fmt.Sprint(p))
	}
	return strings.Join(ps, ",")
}

// collect returns the benchmark output: read from o.in, or produced by
// running the suite.
func collect(ctx context.Context, o options) ([]byte, error) {
	switch o.in {
	case "-":
		return io.ReadAll(os.Stdin)
	case "":
	default:
		return os.ReadFile(o.in)
	}
	var all bytes.Buffer
	// Each family runs in its own process, so that none is measured in a
	// heap holding another's fixtures: the lister benchmarks keep 10k pods
	// in three caches (about 230 MB live) for the rest of their process,
	// and with them live the queue's rows moved by a third (the AddAfter
	// storm collects less often, key bytes are scattered over the heap) and
	// the store's List rows were mostly the collector marking them.
	timed := []string{"-cpu", o.cpu, "-count", fmt.Sprint(o.count), "-benchtime", o.benchtime}
	passes := [][]string{
		{"-bench", "^Benchmark(Sync|Watch|Heap|HeapUpdated)$", "-count", fmt.Sprint(o.informerCount)},
		append([]string{"-bench", "^BenchmarkStore"}, timed...),
		append([]string{"-bench", "^BenchmarkQueue"}, timed...),
		append([]string{"-bench", "^BenchmarkLister"}, timed...),
	}
	for _, p := range passes {
		args := append([]string{"test", "-run", "^$", "-benchmem", "-timeout", "60m"}, p...)
		args = append(args, ".")
		fmt.Fprintln(os.Stderr, "go", strings.Join(args, " "))
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = moduleDir()
		cmd.Stdout = io.MultiWriter(&all, os.Stderr)
		cmd.Stderr = os.Stderr
		if o.sizes != "" {
			cmd.Env = append(os.Environ(), "KCM_BENCH_SIZES="+o.sizes)
		}
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
		}
	}
	return all.Bytes(), nil
}

// moduleDir is the bench module's directory: the current one when it holds
// the module, else what `go list -m` says.
func moduleDir() string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/kcmlab/kcm/bench").Output()
	if err != nil {
		return "."
	}
	return strings.TrimSpace(string(out))
}

// machine describes where the figures were taken.
func machine(s *report.Set, load string) string {
	model := cpuModel()
	if model == "" {
		model = s.Header["cpu"]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "machine: %d CPUs (nproc), %s", runtime.NumCPU(), model)
	if h := s.Header["cpu"]; h != "" && h != model {
		fmt.Fprintf(&b, " (go test: %s)", h)
	}
	fmt.Fprintf(&b, "; %s/%s, %s", runtime.GOOS, runtime.GOARCH, runtime.Version())
	if load != "" {
		fmt.Fprintf(&b, "; %s", load)
	}
	b.WriteString("\n\n")
	return b.String()
}

// cpuModel reads the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// loadAvg returns the 1, 5 and 15 minute load averages, or "".
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return ""
}
