package managerbench

import (
	"fmt"
	"slices"
	"strings"
)

// Kind says which program a Manager runs.
type Kind int

const (
	// KCM is kcm's own binary (cmd/kcm), built from the tree measured.
	KCM Kind = iota
	// Kube is kube-controller-manager, as testenv builds it.
	Kube
)

// The lines each kind prints when its informer caches have synced: kcm
// once, when every shared informer has synced (manager/start.go);
// kube-controller-manager once per controller, as each controller's
// WaitForNamedCacheSync returns (client-go's tools/cache).
const (
	kcmSyncedLine  = "caches synced; starting controllers"
	kubeSyncedLine = "Caches are synced"
)

// The lines each kind prints when its garbage collector's resource
// monitors have synced: the garbage collector lists every deletable
// resource for itself (kcm on monitors of its own; kube-controller-manager
// on metadata informers, sharing the typed informers other controllers
// started), and only then collects. kcm prints it after "caches synced",
// so a sample at the probe alone would leave that work out.
const (
	kcmGCSyncedLine  = "all resource monitors have synced; proceeding to collect garbage"
	kubeGCSyncedLine = "Garbage collector: all resource monitors have synced"
)

// Manager is one controller-manager configuration under measurement.
type Manager struct {
	Label       string // a short name for tables: "kcm", "kube-controller-manager"
	Kind        Kind
	Binary      string
	Controllers []string // the --controllers list; empty means the default "*"
	ExtraArgs   []string // appended to the command line (a flag given twice: the last wins)
}

// SyncedLine is the log line that marks the manager's caches synced.
func (m Manager) SyncedLine() string {
	if m.Kind == KCM {
		return kcmSyncedLine
	}
	return kubeSyncedLine
}

// GCSyncedLine is the log line that marks the garbage collector's
// resource monitors synced, or "" when m does not run the garbage
// collector.
func (m Manager) GCSyncedLine() string {
	if len(m.Controllers) > 0 && !slices.Contains(m.Controllers, "garbage-collector-controller") {
		return ""
	}
	if m.Kind == KCM {
		return kcmGCSyncedLine
	}
	return kubeGCSyncedLine
}

// ControllerList is the --controllers value.
func (m Manager) ControllerList() string {
	if len(m.Controllers) == 0 {
		return "*"
	}
	return strings.Join(m.Controllers, ",")
}

// Args is the command line for one run: the cluster's kubeconfig, the
// controllers, leader election off (a fresh process would otherwise wait
// out the Lease the previous run held), HTTPS serving on a loopback port
// with a self-signed certificate written to certDir (both managers serve
// /healthz and /metrics in production; kcm's port authenticates and
// authorizes through the cluster), and the client's QPS and burst.
// kube-controller-manager is also told to use the kubeconfig's
// credentials for every controller (there are no controller
// ServiceAccounts to impersonate here); kcm has no such flag and always
// uses one identity.
func (m Manager) Args(kubeconfig string, port int, certDir string, qps, burst int) []string {
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--controllers=" + m.ControllerList(),
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		"--cert-dir=" + certDir,
		fmt.Sprintf("--kube-api-qps=%d", qps),
		fmt.Sprintf("--kube-api-burst=%d", burst),
	}
	if m.Kind == Kube {
		args = append(args, "--use-service-account-credentials=false")
	} else {
		// The report reads kcm's /metrics and heap profile: its port
		// delegates to the cluster, which trusts the harness's client
		// certificate (system:masters, signed by the cluster's client CA).
		args = append(args, "--profiling", "--authentication-kubeconfig="+kubeconfig, "--authorization-kubeconfig="+kubeconfig)
	}
	return append(args, m.ExtraArgs...)
}
