package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/manager"
)

// devManager is the controller manager `kcm dev` runs on its cluster: the
// same manager.Run as `kcm`, in process, with kube-controller-manager's
// defaults (leader election on Lease kube-system/kube-controller-manager)
// and its endpoints on a free loopback port.
type devManager struct {
	opts *manager.Options
	desc []string // enabled controllers, for the hint
	ln   net.Listener
	cfg  *rest.Config
	log  zerolog.Logger
}

// newDevManager opens the serving socket; Run serves on it.
func newDevManager(cfg *rest.Config, log zerolog.Logger) (*devManager, error) {
	cmd := manager.NewControllerManagerCommand(manager.NewControllerDescriptors())
	enabled, err := cmd.Descriptors.Enabled(cmd.Options.Controllers.Controllers)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("manager endpoints: %w", err)
	}
	d := &devManager{opts: cmd.Options, ln: ln, cfg: cfg, log: log}
	for _, e := range enabled {
		d.desc = append(d.desc, e.Name)
	}
	return d, nil
}

// Run runs the manager until ctx ends.
func (d *devManager) Run(ctx context.Context) error {
	return manager.Run(ctx, manager.Config{Options: d.opts, REST: d.cfg, Listener: d.ln, Logger: d.log})
}

// describe says what runs and where its endpoints are.
func (d *devManager) describe(w io.Writer) {
	l := d.opts.LeaderElection
	url := "https://" + d.ln.Addr().String()
	fmt.Fprintf(w, `  manager        kcm %s: %s
                 leader election on Lease %s/%s; logs on stderr
                 curl -k %s/healthz?verbose   (also /readyz, /livez, /metrics)
`, manager.GetVersion(), strings.Join(d.desc, ", "), l.ResourceNamespace, l.ResourceName, url)
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
		fmt.Fprintf(&b, "  %s get rs,pods -w\n", k)
		fmt.Fprintf(&b, "  kcm-only: kcm trace pods --kubeconfig %s\n", kubeconfig)
		return b.String()
	}
	fmt.Fprintf(&b, "  %s create namespace hello && %s get serviceaccounts -n hello -w\n", k, k)
	fmt.Fprintf(&b, "  kcm-only: kcm trace serviceaccounts --kubeconfig %s   (then create a namespace with the curl line above)\n", kubeconfig)
	return b.String()
}
