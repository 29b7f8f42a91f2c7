package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/kcmlab/kcm/manager"
	"github.com/kcmlab/kcm/testenv"
)

// runDev implements `kcm dev`: it starts the same etcd + kube-apiserver
// that the integration tests use and the controller manager against it
// (in process, leader election on), prints how to reach both and how to
// watch the manager work, and stops everything on SIGINT or SIGTERM.
func runDev(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("kcm dev", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	buildOnly := fs.Bool("build-only", false, "build (or find in the cache) etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok, print their paths, and exit")
	verbose := fs.BoolP("verbose", "v", false, "log each step and its timing")
	demo := fs.Bool("demo", false, "also run the demo workload (pods and configmaps written directly) in namespace "+DemoNamespace)
	noManager := fs.Bool("no-manager", false, "do not run the controller manager (only the cluster, the trace and the demo)")
	traced := fs.String("trace", "pods", "trace this resource in all namespaces (\"\" = no trace); see kcm trace --help")
	nodes := fs.Int("nodes", 3, "start kube-scheduler and kwok with this many fake nodes, spread over zones zone-a, zone-b, zone-c, so that pods run (0 = no nodes, no scheduler: pods stay Pending)")
	view := fs.String("view", "127.0.0.1:0", "serve the pipeline view (/debug/pipeline) over HTTP at this loopback address; port 0 picks a free one; \"\" = no view")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: kcm dev [flags]\n\n"+
			"Starts etcd %s and kube-apiserver %s on free loopback ports, building them from the Go module\n"+
			"proxy the first time (cached in $%s or the user cache directory), with kube-scheduler and\n"+
			"kwok %s playing --nodes fake nodes (pods get scheduled, an IP, and become Running and Ready),\n"+
			"runs the kcm controller manager against it (as `kcm` would, leader election on), traces pods\n"+
			"through kcm's informer pipeline, and runs until interrupted. --demo adds a workload that churns\n"+
			"pods and configmaps in namespace "+DemoNamespace+".\n\nflags:\n",
			testenv.EtcdVersion, testenv.KubernetesVersion, testenv.EnvCache, testenv.KwokVersion)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "kcm dev: %v\n", err)
		fs.Usage()
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "kcm dev: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if *nodes < 0 || *nodes > maxDevNodes {
		fmt.Fprintf(stderr, "kcm dev: --nodes=%d: want 0 to %d\n", *nodes, maxDevNodes)
		return 2
	}
	log := zerolog.Nop()
	if *verbose {
		log = zerolog.New(zerolog.ConsoleWriter{Out: stderr, TimeFormat: time.TimeOnly}).With().Timestamp().Logger()
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *buildOnly {
		bins, err := testenv.EnsureBinaries(ctx, stderr, log)
		if err != nil {
			fmt.Fprintf(stderr, "kcm dev: %v\n", err)
			return 1
		}
		// kube-controller-manager is only the reference the difftest
		// package compares kcm with; it is built here too so that
		// `make prepare` (and CI's cache) holds everything the tests run.
		kcm, err := testenv.EnsureControllerManager(ctx, stderr, log)
		if err != nil {
			fmt.Fprintf(stderr, "kcm dev: %v\n", err)
			return 1
		}
		// kube-scheduler and kwok: `kcm dev`'s nodes, and the tests that
		// need pods to run.
		sched, err := testenv.EnsureScheduler(ctx, stderr, log)
		if err != nil {
			fmt.Fprintf(stderr, "kcm dev: %v\n", err)
			return 1
		}
		kwok, err := testenv.EnsureKwok(ctx, stderr, log)
		if err != nil {
			fmt.Fprintf(stderr, "kcm dev: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "etcd:                    %s\nkube-apiserver:          %s\nkube-controller-manager: %s\n"+
			"kube-scheduler:          %s\nkwok:                    %s\nkwok stages:             %s\n",
			bins.Etcd, bins.APIServer, kcm, sched, kwok.Binary, kwok.Stages)
		return 0
	}

	began := time.Now()
	c, err := testenv.Start(ctx, devClusterOptions(*nodes, log, stderr))
	if err != nil {
		fmt.Fprintf(stderr, "kcm dev: %v\n", err)
		return 1
	}
	defer c.Stop()
	w := devWorkload{Demo: *demo, Trace: *traced, Logger: log}
	if !*noManager {
		mlog := manager.NewLogger(manager.NewOptions(manager.NewControllerDescriptors()), stderr)
		if w.Manager, err = newDevManager(c.Config(), c.KubeconfigPath(), mlog, *view); err != nil {
			fmt.Fprintf(stderr, "kcm dev: %v\n", err)
			return 1
		}
	}
	printReach(stdout, c, time.Since(began), w.Manager, devNodes(*nodes))
	out := &lineWriter{w: stdout}
	err = runDevWorkload(ctx, c.Config(), w, out)
	fmt.Fprintln(stderr, "kcm dev: stopping")
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "kcm dev: %v\n", err)
		return 1
	}
	return 0
}

// printReach tells the user how to talk to the cluster, without showing
// the token (it is in the kubeconfig file).
func printReach(w io.Writer, c *testenv.Cluster, took time.Duration, m *devManager, nodes []testenv.NodeSpec) {
	cfg := c.Config()
	fmt.Fprintf(w, `kcm dev: cluster ready in %s
  kube-apiserver %s  %s
  etcd           %s  %s
%s  kubeconfig     %s

  export KUBECONFIG=%s
  kubectl get --raw /version
  kubectl get nodes -L topology.kubernetes.io/zone
  curl --cacert <(awk '/certificate-authority-data:/{print $2}' "$KUBECONFIG" | base64 -d) \
       -H "Authorization: Bearer $(awk '/token:/{print $2}' "$KUBECONFIG")" %s/version
`, took.Round(time.Millisecond), testenv.KubernetesVersion, cfg.Host, testenv.EtcdVersion, c.EtcdURL(),
		describeNodes(nodes), c.KubeconfigPath(), c.KubeconfigPath(), cfg.Host)
	if m != nil {
		fmt.Fprintln(w)
		m.describe(w)
		fmt.Fprintln(w)
		fmt.Fprint(w, watchHint(c.KubeconfigPath(), m.desc))
	}
	fmt.Fprintln(w, "\nPress Ctrl-C to stop; the cluster's data is deleted on exit.")
}
