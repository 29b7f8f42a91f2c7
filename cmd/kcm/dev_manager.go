package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/manager"
	"github.com/kcmlab/kcm/pipeview"
)

// devManager is the controller manager `kcm dev` runs on its cluster: the
// same manager.Run as `kcm`, in process, with kube-controller-manager's
// defaults (leader election on Lease kube-system/kube-controller-manager)
// and its endpoints on a free loopback port — plus the pipeline view,
// served over plain HTTP on a loopback listener of its own (refusing any
// Host but a loopback one), so that a browser opens it without a
// certificate warning.
type devManager struct {
	opts *manager.Options
	desc []string // enabled controllers, for the hint
	ln   net.Listener
	cfg  *rest.Config
	log  zerolog.Logger
	// view is the pipeline view and viewLn its listener; nil: no view.
	view   *pipeview.Hub
	viewLn net.Listener
}

// newDevManager opens the serving socket and, unless viewAddr is "", the
// view's (a loopback address; port 0 picks a free one); Run serves on them.
//
// The secure port delegates to the dev cluster, as
// kube-controller-manager's given --authentication-kubeconfig and
// --authorization-kubeconfig: kubeconfig (the cluster's admin, a member of
// system:masters) reads everything on it.
func newDevManager(cfg *rest.Config, kubeconfig string, log zerolog.Logger, viewAddr string) (*devManager, error) {
	cmd := manager.NewControllerManagerCommand(manager.NewControllerDescriptors())
	cmd.Options.Auth.AuthenticationKubeconfig, cmd.Options.Auth.AuthorizationKubeconfig = kubeconfig, kubeconfig
	enabled, err := cmd.Descriptors.Enabled(cmd.Options.Controllers.Controllers)
	if err != nil {
		return nil, err
	}
	var viewLn net.Listener
	if viewAddr != "" {
		if viewLn, err = listenLoopback(viewAddr); err != nil {
			return nil, fmt.Errorf("--view: %w", err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		if viewLn != nil {
			_ = viewLn.Close()
		}
		return nil, fmt.Errorf("manager endpoints: %w", err)
	}
	d := &devManager{opts: cmd.Options, ln: ln, cfg: cfg, log: log, viewLn: viewLn}
	if viewLn != nil {
		d.view = pipeview.New(pipeview.Options{Logger: log, LoopbackOnly: true})
	}
	for _, e := range enabled {
		d.desc = append(d.desc, e.Name)
	}
	return d, nil
}

// errNotLoopback: kcm dev serves the view on plain HTTP, so only on this
// machine's loopback.
var errNotLoopback = errors.New("not a loopback address (127.0.0.1, [::1] or localhost)")

// listenLoopback listens on addr, which must name a loopback host.
func listenLoopback(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); !(host == "localhost" || (ip != nil && ip.IsLoopback())) {
		return nil, fmt.Errorf("%q: %w", addr, errNotLoopback)
	}
	return net.Listen("tcp", addr)
}

// ViewURL is where the pipeline view is served ("" without one).
func (d *devManager) ViewURL() string {
	if d.viewLn == nil {
		return ""
	}
	return "http://" + d.viewLn.Addr().String() + pipeview.Path
}

// Run runs the manager (and the view) until ctx ends; it returns once
// everything it started has stopped.
func (d *devManager) Run(ctx context.Context) error {
	if d.view == nil {
		return manager.Run(ctx, manager.Config{Options: d.opts, REST: d.cfg, Listener: d.ln, Logger: d.log})
	}
	viewCtx, stopView := context.WithCancel(context.Background())
	viewDone := make(chan struct{})
	go func() { defer close(viewDone); _ = d.view.Run(viewCtx) }()
	mux := http.NewServeMux()
	d.view.Install(mux)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.Serve(d.viewLn) }()
	defer func() {
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut) // hijacked WebSockets are the view's: Run's end closes them
		<-served
		stopView()
		<-viewDone
	}()
	return manager.Run(ctx, manager.Config{Options: d.opts, REST: d.cfg, Listener: d.ln, Logger: d.log, Pipeline: d.view})
}

// describe says what runs and where its endpoints are.
func (d *devManager) describe(w io.Writer) {
	l := d.opts.LeaderElection
	url := "https://" + d.ln.Addr().String()
	fmt.Fprintf(w, `  manager        kcm %s: %s
                 leader election on Lease %s/%s; logs on stderr
                 curl -k %s/healthz?verbose   (also /readyz, /livez; /metrics with the kubeconfig's token:
                 curl -k -H "Authorization: Bearer $(awk '/token:/{print $2}' "$KUBECONFIG")" %s/metrics)
`, manager.GetVersion(), strings.Join(d.desc, ", "), l.ResourceNamespace, l.ResourceName, url, url)
	if v := d.ViewURL(); v != "" {
		fmt.Fprintf(w, "  pipeline view  %s   (open it in a browser; this machine only)\n", v)
	}
}

// watchHint is one way to watch the manager work, chosen by the
// controllers it runs: with the deployment controller, a Deployment's
// ReplicaSet and pods; else a new namespace's default ServiceAccount.
// kubectl may not be installed, so a kcm-only way follows.
func watchHint(kubeconfig string, controllers []string) string {
	k := "kubectl --kubeconfig " + kubeconfig
	var b strings.Builder
	b.WriteString("Watch it work (kubectl is not part of kcm; install it, or use the kcm-only line):\n")
	if slices.Contains(controllers, "deployment-controller") {
		fmt.Fprintf(&b, "  %s create deployment web --image=nginx --replicas=3\n", k)
		fmt.Fprintf(&b, "  %s get rs,pods -o wide -w\n", k)
		fmt.Fprintf(&b, "  kcm-only: kcm trace pods --kubeconfig %s\n", kubeconfig)
		return b.String()
	}
	fmt.Fprintf(&b, "  %s create namespace hello && %s get serviceaccounts -n hello -w\n", k, k)
	fmt.Fprintf(&b, "  kcm-only: kcm trace serviceaccounts --kubeconfig %s   (then create a namespace with the curl line above)\n", kubeconfig)
	return b.String()
}
