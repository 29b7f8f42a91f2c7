// Command apisync is the real-apiserver benchmark: list+sync of every pod
// of a cluster by client-go's informer and by kcm's, each way kcm can read
// the initial state, against one real kube-apiserver.
//
//	cd bench && go run ./cmd/apisync [-pods 20000] [-count 3] [-variants a,b] [-small] [-baseline client-go]
//
// It starts a testenv cluster (etcd + kube-apiserver v1.37, no kubelet, no
// scheduler), has kube-controller-manager's Deployment and ReplicaSet
// controllers make the pods, stops it, and then runs each variant in a
// fresh child process (this program, "apisync child ..."), count rounds
// with the order rotated each round, after one warm-up round. Each child
// measures its own sync (wall, CPU, requests, live heap); the parent reads
// kube-apiserver's and etcd's CPU time and kube-apiserver's peak RSS from
// /proc around it, and the child's peak RSS from its rusage. Progress goes
// to stderr; the table of medians (Markdown) and every sample go to stdout.
// -cpuprofile-dir has every child profile its sync (go tool pprof merges
// the files of one variant); -small makes minimal pods (bench.Shape.Small) instead of realistic ones;
// -baseline names the row the table's ratios divide by (issue 34's is
// client-go/protobuf-strip: client-go as kube-controller-manager runs it).
// Every child checks that its cache holds what its variant says (encoding
// read, managedFields dropped or kept) and fails otherwise.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/kcmlab/kcm/bench"
	"github.com/kcmlab/kcm/internal/testing/managerbench"
	"github.com/kcmlab/kcm/testenv"
)

func main() {
	var err error
	if len(os.Args) > 1 && os.Args[1] == "child" {
		err = bench.RunChild(os.Args[2:], os.Stdout)
	} else {
		err = parent(os.Args[1:])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "apisync:", err)
		os.Exit(1)
	}
}

func parent(args []string) error {
	fs := flag.NewFlagSet("apisync", flag.ContinueOnError)
	pods := fs.Int("pods", 20000, "pods to make and sync")
	count := fs.Int("count", 3, "measured rounds (each runs every variant once)")
	warmup := fs.Int("warmup", 1, "unmeasured rounds first")
	variants := fs.String("variants", "", "comma-separated variants (default: all)")
	timeout := fs.Duration("timeout", 60*time.Minute, "bound on the whole run")
	small := fs.Bool("small", false, "make minimal pods (about 1.7 KB of JSON) instead of realistic ones")
	baseline := fs.String("baseline", bench.ClientGo, "the variant the table's ratios divide by")
	profileDir := fs.String("cpuprofile-dir", "", "each child writes a CPU profile of its sync here (profiled runs are not for the tables)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	vs, err := bench.LookupAPIVariants(*variants)
	if err != nil {
		return err
	}
	shape, err := bench.ShapeFor(*pods)
	if err != nil {
		return err
	}
	shape.Small = *small
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	began := time.Now()
	machine := managerbench.ReadMachine(ctx, ".")
	loadBefore := machine.LoadBefore
	fmt.Fprintf(os.Stderr, "apisync: load average %v; starting a cluster\n", loadBefore)

	cluster, cs, popTook, err := bench.StartPopulated(ctx, shape, os.Stderr)
	if err != nil {
		return err
	}
	defer cluster.Stop()
	size, err := bench.MeasurePodSize(ctx, cs)
	if err != nil {
		return err
	}

	apiPID, etcdPID := cluster.PIDs()
	idle, err := idleCPU(apiPID, 5*time.Second)
	if err != nil {
		return err
	}
	r := &bench.APIRunner{Command: []string{exe, "child"}, Kubeconfig: cluster.KubeconfigPath(), Pods: shape.Pods(),
		APIServerPID: apiPID, EtcdPID: etcdPID, Stderr: os.Stderr, ProfileDir: *profileDir}
	if *warmup > 0 {
		fmt.Fprintln(os.Stderr, "apisync: warm-up")
		if _, err := bench.RunRounds(ctx, r, vs, *warmup, os.Stderr); err != nil {
			return err
		}
	}
	loadMeasure, _ := managerbench.ReadLoadAvg()
	samples, err := bench.RunRounds(ctx, r, vs, *count, os.Stderr)
	if err != nil {
		return err
	}
	loadAfter, _ := managerbench.ReadLoadAvg()

	fmt.Printf("apisync: %d pods (%d namespaces × %d Deployments × %d replicas, small %v, made in %v); %d rounds after %d warm-up, order rotated per round; medians\n",
		shape.Pods(), shape.Namespaces, shape.Deployments, shape.Replicas, shape.Small, popTook.Round(time.Second), *count, *warmup)
	fmt.Printf("pod %s: %d bytes of JSON (%d of them managedFields), %d bytes of protobuf message, as client-go encodes it\n",
		size.Name, size.JSON, size.ManagedFieldsJSON, size.Protobuf)
	fmt.Printf("kcm commit %s; machine: %d CPUs (nproc), %s, %.1f GiB; %s/%s, %s\n", machine.Commit, machine.CPUs,
		machine.CPUModel, float64(machine.MemTotal)/(1<<30), runtime.GOOS, runtime.GOARCH, machine.GoVersion)
	fmt.Printf("load average (1/5/15 min): %v at start, %v before the measured rounds, %v after; whole run %v\n",
		loadBefore, loadMeasure, loadAfter, time.Since(began).Round(time.Second))
	fmt.Printf("kube-apiserver %s idle: %.3f s CPU per second\n\n", testenv.KubernetesVersion, idle)
	fmt.Print(bench.APITable(bench.SummarizeAPI(samples), *baseline))
	fmt.Println()
	fmt.Println("samples:")
	for _, s := range samples {
		fmt.Printf("  round %d %-24s wall %.3f cpu %.3f apiserver %.3f etcd %.3f requests %d rss %d heap %d apiserver-rise %d wire %s managedFields %v\n",
			s.Round+1, s.Variant, s.Wall.Seconds(), s.CPU.Seconds(), s.ServerCPU.Seconds(), s.EtcdCPU.Seconds(),
			s.Requests, s.ClientPeakRSS, s.HeapLive, s.ServerPeakGrowth, s.Wire, s.ManagedFields)
	}
	return nil
}

// idleCPU returns the CPU seconds per second pid spends over d.
func idleCPU(pid int, d time.Duration) (float64, error) {
	s0, err := managerbench.ReadSample(pid, time.Now())
	if err != nil {
		return 0, err
	}
	time.Sleep(d) // a measuring window, not a wait for a condition
	s1, err := managerbench.ReadSample(pid, time.Now())
	if err != nil {
		return 0, err
	}
	return (s1.CPU - s0.CPU).Seconds() / d.Seconds(), nil
}
