//go:build !nocluster

package difftest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/manager"
	"github.com/kcmlab/kcm/testenv"
)

// nodeLifecycleDescriptors are kcm's descriptors of
// NodeLifecycleControllers as the manager registers them; it fails the
// test when kcm registers one of them not.
func nodeLifecycleDescriptors(t *testing.T) func() []*ctrl.ControllerDescriptor {
	t.Helper()
	var ds []*ctrl.ControllerDescriptor
	for _, name := range NodeLifecycleControllers {
		d, ok := manager.NewControllerDescriptors().Lookup(name)
		if !ok {
			t.Fatalf("kcm registers no %s (manager.NewControllerDescriptors)", name)
		}
		ds = append(ds, d)
	}
	return func() []*ctrl.ControllerDescriptor { return ds }
}

// startNodeCluster starts a cluster with NodeLifecycleNodes (kwok renews
// the Leases every 5 s: a 20 s lease) and a client for it.
func startNodeCluster(ctx context.Context, t *testing.T) (*testenv.Cluster, *rest.Client) {
	t.Helper()
	c, err := testenv.Start(ctx, testenv.Options{NodeLeaseDurationSeconds: 20, Nodes: NodeLifecycleNodes(), AuditWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	client, err := rest.NewClient(c.Config())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.CloseIdleConnections)
	return c, client
}

// watchNodeCluster starts a NodeWatch on the comparison's namespace and
// the Events of nodes (namespace default), stopped when the test ends.
func watchNodeCluster(ctx context.Context, t *testing.T, client *rest.Client) *NodeWatch {
	t.Helper()
	wctx, stop := context.WithCancel(ctx)
	w, err := WatchNodes(wctx, client, NodeLifecycleNamespace, NodeLifecycleNamespace, "default")
	if err != nil {
		stop()
		t.Fatal(err)
	}
	t.Cleanup(func() { stop(); w.Wait() })
	return w
}

// recordNodeLifecycle runs RunNodeLifecycle under m on a fresh cluster,
// in a subtest that stops the cluster when it ends.
func recordNodeLifecycle(ctx context.Context, t *testing.T, m Manager) *NodeLifecycleRun {
	t.Helper()
	var run *NodeLifecycleRun
	if !t.Run(m.Name(), func(t *testing.T) { run = recordNodeLifecycleOn(ctx, t, m) }) {
		t.FailNow()
	}
	return run
}

func recordNodeLifecycleOn(ctx context.Context, t *testing.T, m Manager) *NodeLifecycleRun {
	t.Helper()
	began := time.Now()
	c, client := startNodeCluster(ctx, t)
	w := watchNodeCluster(ctx, t, client)
	if err := SetUpNodeLifecycle(ctx, client, w); err != nil {
		t.Fatal(err)
	}
	stop, err := m.Start(ctx, c)
	if err != nil {
		t.Fatalf("%s: %v", m.Name(), err)
	}
	stop = audited(t, c, m, stop, NodeLifecycleNamespace)
	run, err := RunNodeLifecycle(ctx, c, client, w)
	if err != nil {
		msg := err.Error()
		logNodeLifecycle(t, m.Name()+" when it failed", &NodeLifecycleRun{
			Checkpoints: []Checkpoint{{Name: "failure", View: w.Snapshot()}}, History: w.History()})
		if d, ok := m.(Diagnoser); ok {
			msg += "\n" + d.Diagnose()
		}
		_ = stop()
		t.Fatalf("%s: %s", m.Name(), msg)
	}
	if err := stop(); err != nil {
		t.Errorf("%s stopped with %v", m.Name(), err)
	}
	t.Logf("%s: recorded in %s", m.Name(), time.Since(began).Round(time.Millisecond))
	return run
}

// TestNodeLifecycleMatchesKCM is the node lifecycle comparison: the
// steps of RunNodeLifecycle (a silent node evicted and recovered, a
// silent zone, a deleted node's pods collected) under kube-controller-
// manager v1.37.2 and under kcm, each on a fresh cluster of six kwok
// nodes in three zones, both with NodeLifecycleControllers and
// NodeLifecycleArgs; CompareNodeLifecycle must find no difference.
func TestNodeLifecycleMatchesKCM(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	ref := &KubeControllerManager{Controllers: NodeLifecycleControllers, Args: NodeLifecycleArgs, Logger: zerolog.Nop()}
	kcm := &InProcess{Descriptors: nodeLifecycleDescriptors(t), Args: NodeLifecycleArgs, Logger: zerolog.Nop()}
	rb := recordNodeLifecycle(ctx, t, ref)
	ra := recordNodeLifecycle(ctx, t, kcm)
	if d := CompareNodeLifecycle(ra, rb); len(d) > 0 {
		t.Errorf("a = %s, b = %s: %d difference(s):\n  %s", kcm.Name(), ref.Name(), len(d), strings.Join(d, "\n  "))
	}
	// After the differences, so that they come first in the output.
	logNodeLifecycle(t, ref.Name(), rb)
	// The comparison can fail: a pod evicted under one side only, and a
	// taint missing, are reported.
	tampered := *rb
	tampered.Checkpoints = append([]Checkpoint(nil), rb.Checkpoints...)
	v := tampered.Checkpoints[0].View
	v = NodeView{Nodes: clone(v.Nodes), Pods: clone(v.Pods), Events: v.Events}
	p := v.Pods[KeptPod]
	p.Deleting = true
	v.Pods[KeptPod] = p
	n := v.Nodes["a-1"]
	n.Taints = n.Taints[1:]
	v.Nodes["a-1"] = n
	tampered.Checkpoints[0].View = v
	if d := CompareNodeLifecycle(rb, &tampered); len(d) != 2 {
		t.Errorf("a pod evicted and a taint dropped: %d difference(s) reported, want 2:\n  %s", len(d), strings.Join(d, "\n  "))
	}
}

func clone[V any](m map[string]V) map[string]V {
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// logNodeLifecycle logs one side's checkpoints and histories.
func logNodeLifecycle(t *testing.T, side string, r *NodeLifecycleRun) {
	t.Helper()
	var sb strings.Builder
	for _, c := range r.Checkpoints {
		sb.WriteString("  at " + c.Name + ":\n")
		for _, n := range unionKeys(c.View.Nodes, nil) {
			sb.WriteString("    node " + n + ": " + c.View.Nodes[n].String() + "\n")
		}
		for _, p := range unionKeys(c.View.Pods, nil) {
			sb.WriteString("    pod " + p + ": " + c.View.Pods[p].String() + "\n")
		}
	}
	for _, k := range unionKeys(r.History, nil) {
		if strings.HasPrefix(k, "Pod ") {
			sb.WriteString("  " + k + ": " + strings.Join(r.History[k], " → ") + "\n")
		}
	}
	if n := len(r.Checkpoints); n > 0 {
		for _, e := range unionKeys(r.Checkpoints[n-1].View.Events, nil) {
			sb.WriteString("  event " + e + "\n")
		}
	}
	t.Logf("%s:\n%s", side, sb.String())
}
