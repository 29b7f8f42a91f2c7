//go:build !nocluster

package podgc

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/ctrltest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// realCluster is the package's shared kube-apiserver (no kubelet, no
// scheduler, no kube-controller-manager: pods are bound and their status
// written by the test) and a namespace of its own.
type realCluster struct {
	t     *testing.T
	ctx   context.Context
	base  *rest.Client
	pods  *rest.Resources[*api.Pod]
	nodes *rest.Resources[*api.Node]
}

// start runs the controller built with cfg, as the manager builds it
// (its descriptor, the shared factory started, the loop run), until the
// subtest ends.
func (c *realCluster) start(t *testing.T, cfg Config) {
	d := Descriptor()
	d.Constructor = Constructor(cfg)
	ctrltest.Start(t, c.ctx, c.base, d, 1)
}

func (c *realCluster) createPod(name, nodeName string) *api.Pod {
	c.t.Helper()
	p, err := c.pods.Create(c.ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: name},
		Spec: api.PodSpec{NodeName: nodeName, Containers: []api.Container{{Name: "c", Image: "registry.example/never-pulled"}}}})
	if err != nil {
		c.t.Fatal(err)
	}
	// No namespace controller runs: what the subtest leaves, it removes.
	c.t.Cleanup(func() {
		zero := int64(0)
		_ = c.pods.Delete(context.Background(), name, rest.DeleteOptions{GracePeriodSeconds: &zero})
	})
	return p
}

func (c *realCluster) setStatus(p *api.Pod, phase api.PodPhase, reason string) {
	c.t.Helper()
	p.Status.Phase, p.Status.Reason = phase, reason
	if _, err := c.pods.UpdateStatus(c.ctx, p); err != nil {
		c.t.Fatal(err)
	}
}

func (c *realCluster) createNode(name string, taints ...api.Taint) {
	c.t.Helper()
	if _, err := c.nodes.Create(c.ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: name}, Spec: api.NodeSpec{Taints: taints}}); err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { _ = c.nodes.Delete(context.Background(), name, rest.DeleteOptions{}) })
}

// watch opens a watch on the namespace's pods from now.
func (c *realCluster) watch() *rest.Watcher[*api.Pod] {
	c.t.Helper()
	l, err := c.pods.List(c.ctx, rest.ListOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	w, err := c.pods.Watch(c.ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: l.ResourceVersion, TimeoutSeconds: 110}})
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { _ = w.Close() })
	return w
}

// deletions reads w until n pods were deleted and returns their names in
// the order they went, and the last state seen of each before it went.
func (c *realCluster) deletions(w *rest.Watcher[*api.Pod], n int) ([]string, map[string]*api.Pod) {
	c.t.Helper()
	var gone []string
	before := map[string]*api.Pod{}
	for len(gone) < n {
		ev, err := w.Next()
		if err != nil {
			c.t.Fatalf("waiting for %d pod deletions (seen %q): %v", n, gone, err)
		}
		switch ev.Type {
		case rest.Modified:
			before[ev.Object.Name] = ev.Object
		case rest.Deleted:
			gone = append(gone, ev.Object.Name)
		}
	}
	return gone, before
}

func (c *realCluster) remaining() []string {
	c.t.Helper()
	l, err := c.pods.List(c.ctx, rest.ListOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	var names []string
	for _, p := range l.Items {
		names = append(names, p.Name)
	}
	return names
}

// TestOnRealAPIServer runs the collector on kube-apiserver with a short
// period and quarantine, one rule per subtest, each with a controller of
// its own:
//
//   - orphaned: a pod bound to a node that never existed is marked Failed
//     with the DisruptionTarget condition, then force-deleted, after the
//     quarantine and the live GET; a pod on an existing node stays;
//   - out-of-service: a terminating pod on a not-Ready node tainted
//     node.kubernetes.io/out-of-service is force-deleted; a terminating
//     pod on an untainted node stays terminating;
//   - terminated: of five finished pods and a threshold of 2, the evicted
//     one and then the two oldest go, in that order.
func TestOnRealAPIServer(t *testing.T) {
	cl := testenv.Shared(t)
	base, err := rest.NewClient(cl.ManagerConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer base.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	newCluster := func(t *testing.T) *realCluster {
		return &realCluster{t: t, ctx: ctx, base: base,
			pods:  rest.NewResources(base, rest.Pods, decode.Typed[api.Pod]()).InNamespace(cl.Namespace(t)),
			nodes: rest.NewResources(base, rest.Nodes, decode.Typed[api.Node]())}
	}
	fast := Config{TerminatedPodGCThreshold: DefaultTerminatedPodGCThreshold, CheckPeriod: 100 * time.Millisecond,
		QuarantineTime: time.Second}

	t.Run("orphaned", func(t *testing.T) {
		c := newCluster(t)
		c.createNode("podgc-present")
		w := c.watch()
		c.createPod("kept", "podgc-present")
		orphan := c.createPod("orphan", "podgc-never-existed")
		c.setStatus(orphan, api.PodRunning, "")
		c.start(t, fast)

		gone, before := c.deletions(w, 1)
		if !slices.Equal(gone, []string{"orphan"}) {
			t.Fatalf("deleted %q, want [orphan]", gone)
		}
		last := before["orphan"]
		cond := api.GetPodCondition(&last.Status, api.DisruptionTarget)
		if last.Status.Phase != api.PodFailed || cond == nil || cond.Status != api.ConditionTrue ||
			cond.Reason != "DeletionByPodGC" || cond.Message != "PodGC: node no longer exists" {
			t.Fatalf("orphan before its deletion: phase %q, DisruptionTarget %+v; want Failed, True DeletionByPodGC",
				last.Status.Phase, cond)
		}
		if got := c.remaining(); !slices.Equal(got, []string{"kept"}) {
			t.Fatalf("pods left %q, want [kept]", got)
		}
	})

	t.Run("out-of-service", func(t *testing.T) {
		c := newCluster(t)
		c.createNode("podgc-shut-down", api.Taint{Key: api.TaintNodeOutOfService, Value: "nodeshutdown", Effect: api.TaintEffectNoExecute})
		c.createNode("podgc-untainted")
		doomed := c.createPod("doomed", "podgc-shut-down")
		c.createPod("spared", "podgc-untainted")
		c.setStatus(doomed, api.PodRunning, "")
		for _, name := range []string{"doomed", "spared"} { // bound and running: they stay, terminating
			if err := c.pods.Delete(ctx, name, rest.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		w := c.watch()
		c.start(t, Config{CheckPeriod: 100 * time.Millisecond})

		gone, before := c.deletions(w, 1)
		if !slices.Equal(gone, []string{"doomed"}) || before["doomed"] == nil || before["doomed"].Status.Phase != api.PodFailed {
			t.Fatalf("deleted %q (state before: %+v), want [doomed], marked Failed first", gone, before["doomed"])
		}
		p, err := c.pods.Get(ctx, "spared")
		if err != nil || p.DeletionTimestamp == nil {
			t.Fatalf("spared: %v, %+v; want it still terminating", err, p)
		}
	})

	t.Run("terminated", func(t *testing.T) {
		c := newCluster(t)
		for i, name := range []string{"t-0", "t-1", "t-2", "t-3", "e-4"} {
			p := c.createPod(name, "")
			switch {
			case name == "e-4":
				c.setStatus(p, api.PodFailed, "Evicted")
			case i%2 == 0:
				c.setStatus(p, api.PodSucceeded, "")
			default:
				c.setStatus(p, api.PodFailed, "")
			}
		}
		w := c.watch()
		cfg := fast
		cfg.TerminatedPodGCThreshold = 2
		c.start(t, cfg)

		// Created in this order, the pods' creationTimestamps (seconds)
		// rise with their names, so oldest first is t-0, t-1, ...
		if gone, _ := c.deletions(w, 3); !slices.Equal(gone, []string{"e-4", "t-0", "t-1"}) {
			t.Fatalf("deleted %q, want [e-4 t-0 t-1]: the evicted pod, then the oldest", gone)
		}
		if got := c.remaining(); !slices.Equal(got, []string{"t-2", "t-3"}) {
			t.Fatalf("pods left %q, want [t-2 t-3]", got)
		}
	})
}
