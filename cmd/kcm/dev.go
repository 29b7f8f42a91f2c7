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
	buildOnly := fs.Bool("build-only", false, "build (or find in the cache) etcd, kube-apiserver and kube-controller-manager, print their paths, and exit")
	verbose := fs.BoolP("verbose", "v", false, "log each step and its timing")
	demo := fs.Bool("demo", false, "also run the demo workload (pods and configmaps written directly) in namespace "+DemoNamespace)
	noManager := fs.Bool("no-manager", false, "do not run the controller manager (only the cluster, the trace and the demo)")
	traced := fs.String("trace", "pods", "trace this resource in all namespaces (\"\" = no trace); see kcm trace --help")
	view := fs.String("view", "127.0.0.1:0", "serve the pipeline view (/debug/pipeline) over HTTP at this loopback address; port 0 picks a free one; \"\" = no view")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: kcm dev [flags]\n\n"+
			"Starts etcd %s and kube-apiserver %s on free loopback ports, building them from the Go module\n"+
			"proxy the first time (cached in $%s or the user cache directory), runs the kcm controller manager\n"+
			"against it (as `kcm` would, leader election on), traces pods through kcm's informer pipeline, and\n"+
			"runs until interrupted. --demo adds a workload that churns pods and configmaps in namespace "+DemoNamespace+".\n\nflags:\n",
			testenv.EtcdVersion, testenv.KubernetesVersion, testenv.EnvCache)
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
		fmt.Fprintf(stdout, "etcd:                    %s\nkube-apiserver:          %s\nkube-controller-manager: %s\n",
			bins.Etcd, bins.APIServer, kcm)
		return 0
	}

	began := time.Now()
	c, err := testenv.Start(ctx, testenv.Options{Logger: log, Progress: stderr})
	if err != nil {
		fmt.Fprintf(stderr, "kcm dev: %v\n", err)
		return 1
	}
	defer c.Stop()
	w := devWorkload{Demo: *demo, Trace: *traced, Logger: log}
	if !*noManager {
		mlog := manager.NewLogger(manager.NewOptions(manager.NewControllerDescriptors()), stderr)
		if w.Manager, err = newDevManager(c.Config(), mlog, *view); err != nil {
			fmt.Fprintf(stderr, "kcm dev: %v\n", err)
			return 1
		}
	}
	printReach(stdout, c, time.Since(began), w.Manager)
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
func printReach(w io.Writer, c *testenv.Cluster, took time.Duration, m *devManager) {
	cfg := c.Config()
	fmt.Fprintf(w, `kcm dev: cluster ready in %s
  kube-apiserver %s  %s
  etcd           %s  %s
  kubeconfig     %s

  export KUBECONFIG=%s
  kubectl get --raw /version
  curl --cacert <(awk '/certificate-authority-data:/{print $2}' "$KUBECONFIG" | base64 -d) \
       -H "Authorization: Bearer $(awk '/token:/{print $2}' "$KUBECONFIG")" %s/version
`, took.Round(time.Millisecond), testenv.KubernetesVersion, cfg.Host, testenv.EtcdVersion, c.EtcdURL(),
		c.KubeconfigPath(), c.KubeconfigPath(), cfg.Host)
	if m != nil {
		fmt.Fprintln(w)
		m.describe(w)
		fmt.Fprintln(w)
		fmt.Fprint(w, watchHint(c.KubeconfigPath(), m.desc))
	}
	fmt.Fprintln(w, "\nPress Ctrl-C to stop; the cluster's data is deleted on exit.")
}
