//go:build !nocluster

package nodelifecycle_test

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/nodelifecycle"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// startController builds the controller from its descriptor with the
// given command-line flags, as the manager does, and runs it until the
// test ends.
func startController(t *testing.T, ctx context.Context, client *rest.Client, args ...string) {
	t.Helper()
	r, err := ctrl.NewDescriptors(nodelifecycle.Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	o := r.NewOptions()
	fs := pflag.NewFlagSet("kcm", pflag.ContinueOnError)
	r.AddFlags(fs, o)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	cc, err := ctrl.CreateControllerContext(client, ctrl.Config{Version: "vtest", Logger: zerolog.Nop(), Options: o})
	if err != nil {
		t.Fatal(err)
	}
	c, err := nodelifecycle.New(ctx, cc, nodelifecycle.Name)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	cc.InformerFactory.Start(runCtx)
	go func() { done <- c.Run(runCtx, 1) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		cc.InformerFactory.Shutdown()
	})
}

// waitFor watches the object name until cond holds.
func waitFor[T api.Object](ctx context.Context, t *testing.T, r *rest.Resources[T], name, what string, cond func(T) bool) T {
	t.Helper()
	list, err := r.List(ctx, rest.ListOptions{FieldSelector: "metadata.name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) == 1 && cond(list.Items[0]) {
		return list.Items[0]
	}
	w, err := r.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: list.ResourceVersion,
		FieldSelector: "metadata.name=" + name}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("waiting for %s %s: %v", name, what, err)
		}
		if ev.Type != rest.Bookmark && ev.Type != rest.Deleted && cond(ev.Object) {
			return ev.Object
		}
	}
}

// waitForEvent watches the namespace's events until one about node with
// reason exists.
func waitForEvent(ctx context.Context, t *testing.T, events *rest.Resources[*api.CoreEvent], node, reason string) {
	t.Helper()
	match := func(e *api.CoreEvent) bool {
		return e.InvolvedObject.Kind == "Node" && e.InvolvedObject.Name == node && e.Reason == reason
	}
	list, err := events.List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range list.Items {
		if match(e) {
			return
		}
	}
	w, err := events.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: list.ResourceVersion}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("waiting for event %s of %s: %v", reason, node, err)
		}
		if ev.Type != rest.Bookmark && ev.Type != rest.Deleted && match(ev.Object) {
			return
		}
	}
}

func nodeReady(n *api.Node) api.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == nodelifecycle.ConditionReady {
			return c.Status
		}
	}
	return ""
}

func hasTaint(n *api.Node, key, effect string) bool {
	return api.TaintExists(n.Spec.Taints, &api.Taint{Key: key, Effect: effect})
}

func podReady(p *api.Pod) api.ConditionStatus {
	for _, c := range p.Status.Conditions {
		if c.Type == api.PodReady {
			return c.Status
		}
	}
	return ""
}

// TestSilentNodeOnRealAPIServer: kwok nodes in two zones on a real
// kube-apiserver, the controller with short periods
// (--node-monitor-grace-period 16s, --node-monitor-period 2s). A node whose
// heartbeat stops (PauseHeartbeat: its Lease and status no longer renewed)
// gets Ready Unknown with reason NodeStatusUnknown, the unreachable
// NoExecute and NoSchedule taints, and its pod Ready=False; the other nodes
// stay untouched. When the heartbeat resumes the taints come off. Taking
// over healthy nodes writes nothing to them.
func TestSilentNodeOnRealAPIServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cluster, err := testenv.Start(ctx, testenv.Options{NodeLeaseDurationSeconds: 20, Nodes: []testenv.NodeSpec{
		{Name: "n1", Zone: "zone-a"}, {Name: "n2", Zone: "zone-a"}, {Name: "n3", Zone: "zone-b"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Stop()
	client, err := rest.NewClient(cluster.ManagerConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	nodes := rest.NewResources(client, rest.Nodes, decode.Typed[api.Node]())
	pods := rest.NewResources(client, rest.Pods, decode.Typed[api.Pod]()).InNamespace("default")
	// No serviceaccount controller runs: the pods' account is made here.
	accounts := rest.NewResources(client, rest.ServiceAccounts, decode.Typed[api.ServiceAccount]()).InNamespace("default")
	if _, err := accounts.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "default", Namespace: "default"}}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"p1", "p2"} {
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"}}
		p.Spec.NodeName = map[string]string{"p1": "n1", "p2": "n2"}[name]
		p.Spec.Containers = []api.Container{{Name: "c", Image: "busybox"}}
		if _, err := pods.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		waitFor(ctx, t, pods, name, "Ready", func(p *api.Pod) bool { return podReady(p) == api.ConditionTrue })
	}

	// n1's heartbeat stops before the controller starts: the first Lease
	// the controller sees is the one PauseHeartbeat fenced (its last
	// renewal). A fence that left renewTime alone would change the Lease's
	// resourceVersion unseen by a watching controller, and the circuit
	// breaker would then hold the node back on every pass, under
	// kube-controller-manager 1.37.2 and kcm alike
	// (TestLeaseChangedWithoutRenewal); testenv's fence therefore renews.
	if err := cluster.PauseHeartbeat(ctx, "n1"); err != nil {
		t.Fatal(err)
	}
	// Takeover: on healthy nodes the first pass registers them (three
	// RegisteredNode events) and writes nothing to them.
	before := map[string]string{}
	for _, name := range []string{"n2", "n3"} {
		n, err := nodes.Get(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		before[name] = n.ResourceVersion
	}
	startController(t, ctx, client, "--node-monitor-grace-period=16s", "--node-monitor-period=2s")
	events := rest.NewResources(client, rest.Events, decode.Typed[api.CoreEvent]()).InNamespace("default")
	for _, name := range []string{"n1", "n2", "n3"} {
		waitForEvent(ctx, t, events, name, "RegisteredNode")
	}
	for _, name := range []string{"n2", "n3"} {
		n, err := nodes.Get(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if n.ResourceVersion != before[name] || len(n.Spec.Taints) != 0 {
			t.Errorf("healthy %s written at takeover: resourceVersion %s -> %s, taints %v", name, before[name], n.ResourceVersion, n.Spec.Taints)
		}
	}

	n1 := waitFor(ctx, t, nodes, "n1", "unreachable taints", func(n *api.Node) bool {
		return nodeReady(n) == api.ConditionUnknown &&
			hasTaint(n, api.TaintNodeUnreachable, api.TaintEffectNoExecute) && hasTaint(n, api.TaintNodeUnreachable, api.TaintEffectNoSchedule)
	})
	for _, c := range n1.Status.Conditions {
		if c.Type == nodelifecycle.ConditionReady && (c.Reason != "NodeStatusUnknown" || c.Message != "Kubelet stopped posting node status.") {
			t.Errorf("n1 Ready %+v", c)
		}
	}
	waitFor(ctx, t, pods, "p1", "Ready=False", func(p *api.Pod) bool { return podReady(p) == api.ConditionFalse })
	for _, name := range []string{"n2", "n3"} {
		n, err := nodes.Get(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if nodeReady(n) != api.ConditionTrue || len(n.Spec.Taints) != 0 {
			t.Errorf("healthy %s: Ready %s, taints %v", name, nodeReady(n), n.Spec.Taints)
		}
	}
	if p2, err := pods.Get(ctx, "p2"); err != nil || podReady(p2) != api.ConditionTrue {
		t.Errorf("p2 on a healthy node: %v %v", podReady(p2), err)
	}

	if err := cluster.ResumeHeartbeat(ctx, "n1"); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, nodes, "n1", "no taints", func(n *api.Node) bool {
		return nodeReady(n) == api.ConditionTrue && len(n.Spec.Taints) == 0
	})
}

// TestZoneDownOnRealAPIServer: every node of one zone silent while another
// zone is healthy: zone-a is in FullDisruption but, one zone being Normal,
// it keeps the primary rate (HealthyQPSFunc) and both its nodes get the
// unreachable NoExecute taint; the healthy zone is untouched.
func TestZoneDownOnRealAPIServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cluster, err := testenv.Start(ctx, testenv.Options{NodeLeaseDurationSeconds: 20, Nodes: []testenv.NodeSpec{
		{Name: "a1", Zone: "zone-a"}, {Name: "a2", Zone: "zone-a"}, {Name: "b1", Zone: "zone-b"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Stop()
	client, err := rest.NewClient(cluster.ManagerConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	nodes := rest.NewResources(client, rest.Nodes, decode.Typed[api.Node]())
	for _, n := range []string{"a1", "a2"} { // before the controller starts: see TestSilentNodeOnRealAPIServer
		if err := cluster.PauseHeartbeat(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	startController(t, ctx, client, "--node-monitor-grace-period=16s", "--node-monitor-period=2s")
	for _, n := range []string{"a1", "a2"} {
		waitFor(ctx, t, nodes, n, "unreachable NoExecute", func(n *api.Node) bool {
			return nodeReady(n) == api.ConditionUnknown && hasTaint(n, api.TaintNodeUnreachable, api.TaintEffectNoExecute)
		})
	}
	b1, err := nodes.Get(ctx, "b1")
	if err != nil {
		t.Fatal(err)
	}
	if nodeReady(b1) != api.ConditionTrue || len(b1.Spec.Taints) != 0 {
		t.Errorf("healthy b1: Ready %s, taints %v", nodeReady(b1), b1.Spec.Taints)
	}
}
