// Command kcm-bench measures the kcm controller manager beside
// kube-controller-manager on the same machine, in the same run, with the
// same controllers (package internal/testing/managerbench says what and how):
//
//	make bench-manager          # builds bin/kcm, then runs this with the defaults
//	go run ./cmd/kcm-bench --kcm bin/kcm --runs 1 --benchmarks scale
//	make bench-manager BENCH_MANAGER_ARGS="--benchmarks endpoints --runs 1"   # 1000 Services × 10 pods
//	make bench-manager BENCH_MANAGER_ARGS="--benchmarks statefulsets --runs 1" # 100 StatefulSets × 3 pods
//	go run ./cmd/kcm-bench --benchmarks nodes --runs 1 --nl-nodes 10 --nl-pods 300 --nl-silent 2
//	make bench-manager BENCH_MANAGER_ARGS="--benchmarks quotas --runs 1"        # 1000 namespaces × (1 quota, 10 pods)
//
// It prints a markdown report on stdout (and into --out), and progress on
// stderr. It starts its own testenv clusters and needs nothing installed
// but Go; a first run builds kube-controller-manager (minutes).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/internal/testing/managerbench"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kcm-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		cfg        managerbench.Config
		benchmarks = fs.String("benchmarks", "scale,sync", "which benchmarks to run: scale (a Deployment of --scale-replicas), sync (a manager starting on a populated cluster), endpoints (the endpoint controllers: --es-services Services of --es-pods-per-service pods on kwok nodes, then a rolling update of one), statefulsets (the statefulset-controller: --sts-sets StatefulSets of --sts-replicas pods on kwok nodes until all Ready, then a rollout of every set), nodes (node-lifecycle and taint-eviction controllers: --nl-silent of --nl-nodes kwok nodes with --nl-pods pods stop heartbeating), quotas (the resourcequota-controller: --rq-namespaces namespaces of --rq-pods-per-namespace pods get one ResourceQuota each, then --rq-delete-per-namespace pods of each are deleted)")
		refs       = fs.String("references", "default", "extra kube-controller-manager configurations in the sync benchmark: default (\"*\"); empty for none")
		out        = fs.String("out", "", "also write the markdown report to this file")
		kubeArgs   = fs.String("kube-controller-manager-args", "", "extra flags, space-separated, for every kube-controller-manager measured, e.g. --kube-api-content-type=application/json")
	)
	fs.StringVar(&cfg.KCMBinary, "kcm", "bin/kcm", "the kcm binary to measure (make bench-manager builds it from this tree)")
	fs.StringVar(&cfg.KubeBinary, "kube-controller-manager", "", "the kube-controller-manager binary; empty: testenv's cached build of the pinned version, built if missing")
	fs.StringVar(&cfg.WorkDir, "workdir", "", "where process logs go; empty: a new temporary directory, kept")
	fs.IntVar(&cfg.Runs, "runs", 3, "runs per manager and benchmark; the order alternates between runs")
	fs.IntVar(&cfg.Population.Namespaces, "namespaces", 10, "sync benchmark: namespaces")
	fs.IntVar(&cfg.Population.Deployments, "deployments", 10, "sync benchmark: Deployments per namespace")
	fs.IntVar(&cfg.Population.Replicas, "replicas", 100, "sync benchmark: pods per Deployment")
	fs.IntVar(&cfg.Replicas, "scale-replicas", 1000, "scale benchmark: the Deployment's replicas")
	fs.IntVar(&cfg.ESWorkload.Services, "es-services", 1000, "endpoints benchmark: Services")
	fs.IntVar(&cfg.ESWorkload.PodsPerService, "es-pods-per-service", 10, "endpoints benchmark: pods per Service")
	fs.Float64Var(&cfg.ESWorkload.Rate, "es-create-rate", 0, "endpoints benchmark: Services (with their pods) created per second; 0: as fast as 32 concurrent requests go")
	fs.BoolVar(&cfg.ESSameReference, "es-same-controllers-reference", true, "endpoints benchmark: when kcm lacks some of the endpoint controllers, also run kube-controller-manager with exactly kcm's (the like-for-like memory comparison)")
	fs.IntVar(&cfg.STSWorkload.Sets, "sts-sets", 100, "statefulsets benchmark: StatefulSets")
	fs.IntVar(&cfg.STSWorkload.Replicas, "sts-replicas", 3, "statefulsets benchmark: replicas per StatefulSet")
	fs.BoolVar(&cfg.STSWorkload.Parallel, "sts-parallel", false, "statefulsets benchmark: podManagementPolicy Parallel instead of OrderedReady")
	fs.Float64Var(&cfg.STSWorkload.Rate, "sts-create-rate", 0, "statefulsets benchmark: StatefulSets created per second; 0: as fast as 32 concurrent requests go")
	stsManagers := fs.String("sts-managers", "kcm,kube-controller-manager", "statefulsets benchmark: the managers measured (kcm, kube-controller-manager)")
	fs.IntVar(&cfg.NLWorkload.Nodes, "nl-nodes", 100, "nodes benchmark: kwok nodes (zones a, b, c in turn)")
	fs.IntVar(&cfg.NLWorkload.Pods, "nl-pods", 3000, "nodes benchmark: pods, spread round-robin over the nodes")
	fs.IntVar(&cfg.NLWorkload.Silent, "nl-silent", 10, "nodes benchmark: nodes that stop heartbeating, spread over the nodes")
	fs.DurationVar(&cfg.NLWorkload.Grace, "nl-grace", 20*time.Second, "nodes benchmark: --node-monitor-grace-period given to both managers")
	fs.DurationVar(&cfg.NLWorkload.Monitor, "nl-monitor", 30*time.Second, "nodes benchmark: how long a manager watches the healthy cluster (CPU healthy) before the outage")
	fs.IntVar(&cfg.RQWorkload.Namespaces, "rq-namespaces", 1000, "quotas benchmark: namespaces, each with one ResourceQuota")
	fs.IntVar(&cfg.RQWorkload.PodsPerNamespace, "rq-pods-per-namespace", 10, "quotas benchmark: pods per namespace (never bound to a node: Pending)")
	fs.IntVar(&cfg.RQWorkload.DeletePerNamespace, "rq-delete-per-namespace", 1, "quotas benchmark: pods deleted per namespace once every quota is correct")
	fs.IntVar(&cfg.QPS, "kube-api-qps", 20, "--kube-api-qps given to both managers")
	fs.IntVar(&cfg.Burst, "kube-api-burst", 30, "--kube-api-burst given to both managers")
	fs.DurationVar(&cfg.Settle, "settle", 15*time.Second, "sync benchmark: how long a manager runs after the probe pod before the last sample")
	fs.DurationVar(&cfg.Timeout, "timeout", 10*time.Minute, "bound on each wait for a manager")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	for _, b := range strings.Split(*benchmarks, ",") {
		switch strings.TrimSpace(b) {
		case "scale":
			cfg.Scale = true
		case "sync":
			cfg.Sync = true
		case "endpoints":
			cfg.Endpoints = true
		case "statefulsets":
			cfg.StatefulSets = true
		case "nodes":
			cfg.Nodes = true
		case "quotas":
			cfg.Quotas = true
		default:
			fmt.Fprintf(stderr, "kcm-bench: unknown benchmark %q (want scale, sync, endpoints, statefulsets, nodes or quotas)\n", b)
			return 2
		}
	}
	if cfg.Endpoints && (cfg.ESWorkload.Services < 1 || cfg.ESWorkload.PodsPerService < 1 || cfg.ESWorkload.Rate < 0) {
		fmt.Fprintf(stderr, "kcm-bench: --es-services and --es-pods-per-service must be at least 1, --es-create-rate not negative\n")
		return 2
	}
	if cfg.StatefulSets && (cfg.STSWorkload.Sets < 1 || cfg.STSWorkload.Replicas < 1 || cfg.STSWorkload.Rate < 0) {
		fmt.Fprintf(stderr, "kcm-bench: --sts-sets and --sts-replicas must be at least 1, --sts-create-rate not negative\n")
		return 2
	}
	for _, m := range strings.Split(*stsManagers, ",") {
		switch m = strings.TrimSpace(m); m {
		case "":
		case "kcm", "kube-controller-manager":
			cfg.STSManagers = append(cfg.STSManagers, m)
		default:
			fmt.Fprintf(stderr, "kcm-bench: unknown manager %q in --sts-managers (want kcm or kube-controller-manager)\n", m)
			return 2
		}
	}
	if cfg.Nodes {
		if err := cfg.NLWorkload.Validate(); err != nil {
			fmt.Fprintf(stderr, "kcm-bench: %v\n", err)
			return 2
		}
	}
	if cfg.Quotas {
		if err := cfg.RQWorkload.Validate(); err != nil {
			fmt.Fprintf(stderr, "kcm-bench: %v\n", err)
			return 2
		}
	}
	for _, r := range strings.Split(*refs, ",") {
		if r = strings.TrimSpace(r); r != "" {
			cfg.References = append(cfg.References, managerbench.Reference(r))
		}
	}
	cfg.KubeArgs = strings.Fields(*kubeArgs)
	abs, err := filepath.Abs(cfg.KCMBinary)
	if err != nil {
		fmt.Fprintf(stderr, "kcm-bench: %v\n", err)
		return 2
	}
	if _, err := os.Stat(abs); err != nil {
		fmt.Fprintf(stderr, "kcm-bench: the kcm binary: %v (build it: go build -o bin/kcm ./cmd/kcm)\n", err)
		return 2
	}
	cfg.KCMBinary = abs
	cfg.Repo, _ = os.Getwd()
	cfg.Progress = stderr
	cfg.Log = zerolog.New(zerolog.ConsoleWriter{Out: stderr, TimeFormat: "15:04:05"}).With().Timestamp().Logger()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := managerbench.Run(ctx, cfg)
	if rep != nil && (len(rep.Scale) > 0 || len(rep.Sync) > 0 || len(rep.Endpoints) > 0 || len(rep.StatefulSets) > 0 || len(rep.Nodes) > 0 || len(rep.Quotas) > 0 || err == nil) {
		md := rep.Markdown()
		fmt.Fprint(stdout, md)
		if *out != "" {
			if werr := os.WriteFile(*out, []byte(md), 0o644); werr != nil {
				fmt.Fprintf(stderr, "kcm-bench: %v\n", werr)
				return 1
			}
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "kcm-bench: %v\n", err)
		return 1
	}
	return 0
}
