// Command protolist is kube/api/protowire's real-apiserver benchmark
// (issue 13): one LIST of every pod of a cluster as application/json and
// as application/vnd.kubernetes.protobuf, unpaged from the watch cache
// (resourceVersion=0) and consistent in pages of 500, with gzip (as both
// engines' transports ask) and without.
//
//	cd bench && go run ./cmd/protolist [-pods 20000] [-count 3]
//
// It starts a testenv cluster (etcd + kube-apiserver v1.37), has
// kube-controller-manager's Deployment and ReplicaSet controllers make
// the pods (bench.Populate), then runs every variant count times, the
// order rotated each round, after one warm-up round. Per LIST it reports
// wall time, bytes on the wire and gunzipped, kube-apiserver's CPU, and
// the client CPU of decoding the bytes: kube/api/protowire's scan or kcm's
// JSON RawObject codec, and client-go's decode of whole v1.PodLists.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/kcmlab/kcm/bench"
	"github.com/kcmlab/kcm/internal/testing/managerbench"
	"github.com/kcmlab/kcm/testenv"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "protolist:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("protolist", flag.ContinueOnError)
	pods := fs.Int("pods", 20000, "pods to make and list")
	count := fs.Int("count", 3, "measured rounds (each runs every variant once)")
	warmup := fs.Int("warmup", 1, "unmeasured rounds first")
	timeout := fs.Duration("timeout", 30*time.Minute, "bound on the whole run")
	if err := fs.Parse(args); err != nil {
		return err
	}
	shape, err := bench.ShapeFor(*pods)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	began := time.Now()
	machine := managerbench.ReadMachine(ctx, ".")
	fmt.Fprintf(os.Stderr, "protolist: load average %v; starting a cluster\n", machine.LoadBefore)
	cluster, _, popTook, err := bench.StartPopulated(ctx, shape, os.Stderr)
	if err != nil {
		return err
	}
	defer cluster.Stop()
	c, host, err := bench.NewProtoListClient(cluster.KubeconfigPath())
	if err != nil {
		return err
	}
	apiPID, _ := cluster.PIDs()
	vs := bench.ProtoListVariants
	var samples []bench.ProtoListSample
	var loadMeasure managerbench.LoadAvg
	for round := range *warmup + *count {
		if round == *warmup {
			loadMeasure, _ = managerbench.ReadLoadAvg()
		}
		for k := range vs {
			v := vs[(k+round)%len(vs)]
			s, err := bench.MeasureProtoList(ctx, c, host, v, apiPID)
			if err != nil {
				return err
			}
			if s.Pods != shape.Pods() {
				return fmt.Errorf("%s listed %d pods, want %d", v.Name, s.Pods, shape.Pods())
			}
			fmt.Fprintf(os.Stderr, "protolist: round %d %-20s wall %.3fs wire %d body %d apiserver %.3fs decode %.3fs family %.3fs client-go %.3fs\n",
				round, v.Name, s.Wall.Seconds(), s.WireBytes, s.Bytes, s.ServerCPU.Seconds(), s.DecodeCPU.Seconds(), s.FamilyCPU.Seconds(), s.ClientGoCPU.Seconds())
			if round >= *warmup {
				samples = append(samples, s)
			}
		}
	}
	loadAfter, _ := managerbench.ReadLoadAvg()
	fmt.Printf("protolist: %d pods (made in %v); %d rounds after %d warm-up, order rotated per round; medians\n",
		shape.Pods(), popTook.Round(time.Second), *count, *warmup)
	fmt.Printf("kcm commit %s; machine: %d CPUs (nproc), %s; %s\n", machine.Commit, machine.CPUs, machine.CPUModel, machine.GoVersion)
	fmt.Printf("load average (1/5/15 min): %v at start, %v before the measured rounds, %v after; whole run %v\n",
		machine.LoadBefore, loadMeasure, loadAfter, time.Since(began).Round(time.Second))
	fmt.Printf("kube-apiserver %s; wall: first request to last byte; apiserver: its CPU from the first request until idle again (GC included);\n", testenv.KubernetesVersion)
	fmt.Printf("kcm decode: client CPU decoding the bytes (protobuf: kube/api/protowire scan; JSON: kcm RawObject codec; managedFields dropped);\n")
	fmt.Printf("family: protobuf with protowire's FamilyDelta (pods kept as deltas against a sibling, as kcm's JSON cache keeps them);\n")
	fmt.Printf("client-go: client CPU of client-go's decode of whole v1.PodLists\n\n")
	fmt.Print(bench.ProtoListTable(samples))
	fmt.Println("\nsamples:")
	for _, s := range samples {
		fmt.Printf("  %-20s pods %d pages %d wall %.3f wire %d body %d apiserver %.3f decode %.3f family %.3f client-go %.3f\n", s.Variant, s.Pods, s.Pages,
			s.Wall.Seconds(), s.WireBytes, s.Bytes, s.ServerCPU.Seconds(), s.DecodeCPU.Seconds(), s.FamilyCPU.Seconds(), s.ClientGoCPU.Seconds())
	}
	return nil
}
