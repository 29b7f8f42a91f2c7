package testenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// The node annotation that hands a node to kwok: kwok manages exactly the
// nodes that carry it (and not the paused label below).
const (
	KwokNodeAnnotation      = "kwok.x-k8s.io/node"
	KwokNodeAnnotationValue = "fake"
)

// HeartbeatPausedLabel marks a node whose heartbeat PauseHeartbeat stopped.
// kwok runs with the label selector HeartbeatPausedLabel!=paused, so to
// kwok a labelled node is gone: it stops renewing the node's Lease and
// writing its status, as when a kubelet dies.
const (
	HeartbeatPausedLabel = "testenv.kcm.local/heartbeat"
	heartbeatPausedValue = "paused"
)

// defaultNodeLeaseDurationSeconds is the kubelet's default
// --node-lease-duration-seconds; kwok renews at a quarter of it.
const defaultNodeLeaseDurationSeconds = 40

// kwokDefaultPodCIDR is where kwok takes pod IPs for a node that has no
// spec.podCIDR. AddNodes gives every node its own range above it
// (10.244.N.0/24), so the two never overlap.
const kwokDefaultPodCIDR = "10.244.0.0/24"

// StartKwok builds (or finds cached) kwok at KwokVersion and runs it
// against the cluster with the Stage configuration of KwokStagesFile,
// returning once its /healthz answers ok. It is idempotent like
// StartScheduler. Cluster.Stop ends it.
//
// kwok manages the nodes annotated KwokNodeAnnotation=fake that are not
// labelled HeartbeatPausedLabel=paused: it keeps their Lease in
// kube-node-lease renewed, makes them Ready, and plays the pod stages
// (Running and Ready with an IP, Succeeded for Job pods, deletion of
// pods marked for deletion) for the pods bound to them. Its log is
// kwok.log in the cluster's directory.
func (c *Cluster) StartKwok(ctx context.Context) error {
	c.helpers.Lock()
	defer c.helpers.Unlock()
	return c.startKwokLocked(ctx)
}

// startKwokLocked is StartKwok for a caller that holds c.helpers.
func (c *Cluster) startKwokLocked(ctx context.Context) error {
	return c.startHelperDaemon(ctx, &c.kwok, func(ctx context.Context) (daemonSpec, error) {
		files := c.opts.Kwok
		if files == nil {
			f, err := EnsureKwok(ctx, c.progress, c.log)
			if err != nil {
				return daemonSpec{}, err
			}
			files = &f
		}
		// kwok also loads ~/.kwok/kwok.yaml when it exists; a home of its own
		// keeps a developer's kwok settings out of the cluster.
		home := filepath.Join(c.dir, "kwok-home")
		if err := os.MkdirAll(home, 0o700); err != nil {
			return daemonSpec{}, fmt.Errorf("testenv: %w", err)
		}
		lease := c.opts.NodeLeaseDurationSeconds
		if lease <= 0 {
			lease = defaultNodeLeaseDurationSeconds
		}
		return daemonSpec{
			name:      "kwok",
			bin:       files.Binary,
			logPath:   filepath.Join(c.dir, "kwok.log"),
			env:       []string{"HOME=" + home},
			args:      func(port int) []string { return kwokArgs(c.kubeconfigPath, files.Stages, port, lease) },
			healthURL: func(port int) string { return fmt.Sprintf("http://127.0.0.1:%d/healthz", port) },
		}, nil
	})
}

// kwokArgs are kwok's flags for a test cluster.
func kwokArgs(kubeconfig, stages string, port, leaseSeconds int) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--config=" + stages,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=" + KwokNodeAnnotation + "=" + KwokNodeAnnotationValue,
		// A label selector is applied by kube-apiserver, so labelling a
		// node reaches kwok as the node's deletion from its watch: it
		// stops the node's Lease renewals and cancels its pending stages.
		"--manage-nodes-with-label-selector=" + HeartbeatPausedLabel + "!=" + heartbeatPausedValue,
		"--node-lease-duration-seconds=" + strconv.Itoa(leaseSeconds),
		"--cidr=" + kwokDefaultPodCIDR,
		fmt.Sprintf("--server-address=127.0.0.1:%d", port),
	}
}
