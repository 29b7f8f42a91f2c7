package difftest

import (
	"context"
	"fmt"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// The node lifecycle comparison (issue 31): kwok nodes in three zones,
// two each, one pod per node, and both managers running the node
// lifecycle, taint eviction and pod garbage collector controllers with
// the same short periods (NodeLifecycleArgs).

// NodeLifecycleControllers are the compared controllers, by their
// canonical v1.37 names.
var NodeLifecycleControllers = []string{"node-lifecycle-controller", "taint-eviction-controller", "pod-garbage-collector-controller"}

// NodeLifecycleArgs are the flags both managers get: a node is declared
// Unknown 16 s after its last heartbeat, checked every 2 s.
var NodeLifecycleArgs = []string{"--node-monitor-grace-period=16s", "--node-monitor-period=2s"}

// NodeLifecycleNamespace holds the comparison's pods.
const NodeLifecycleNamespace = "nl-diff"

// NodeLifecycleNodes are the comparison's nodes: zone-a, zone-b and
// zone-c with two nodes each.
func NodeLifecycleNodes() []testenv.NodeSpec {
	var out []testenv.NodeSpec
	for _, z := range []string{"a", "b", "c"} {
		for i := 1; i <= 2; i++ {
			out = append(out, testenv.NodeSpec{Name: fmt.Sprintf("%s-%d", z, i), Zone: "zone-" + z})
		}
	}
	return out
}

// EvictAfterSeconds is the tolerationSeconds of the evictable pods for the
// not-ready and unreachable NoExecute taints. Explicit tolerations keep
// kube-apiserver's DefaultTolerationSeconds admission plugin from giving
// the pods its 300 s.
const EvictAfterSeconds = 5

// PodFor names the evictable pod bound to node.
func PodFor(node string) string { return "p-" + node }

// KeptPod is a pod on a-1 that tolerates the unreachable and not-ready
// NoExecute taints forever: marked not Ready but never evicted.
const KeptPod = "keep-a-1"

// nodeLifecyclePod is a pod bound to node, tolerating the node lifecycle
// taints for seconds (nil: forever).
func nodeLifecyclePod(name, node string, seconds *int64) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: NodeLifecycleNamespace}}
	p.Spec.NodeName = node
	p.Spec.Containers = []api.Container{{Name: "c", Image: "busybox"}}
	for _, key := range []string{api.TaintNodeNotReady, api.TaintNodeUnreachable} {
		p.Spec.Tolerations = append(p.Spec.Tolerations, api.Toleration{Key: key, Operator: api.TolerationOpExists,
			Effect: api.TaintEffectNoExecute, TolerationSeconds: seconds})
	}
	return p
}

// SetUpNodeLifecycle creates the namespace, its default ServiceAccount (no
// serviceaccount controller runs) and the pods: PodFor(n) on every node n
// and KeptPod on a-1, and returns once kwok reports all of them Ready.
func SetUpNodeLifecycle(ctx context.Context, client *rest.Client, w *NodeWatch) error {
	nss := rest.NewResources(client, rest.Namespaces, decode.Typed[api.Namespace]())
	if _, err := nss.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: NodeLifecycleNamespace}}); err != nil {
		return fmt.Errorf("difftest: namespace: %w", err)
	}
	accounts := rest.NewResources(client, rest.ServiceAccounts, decode.Typed[api.ServiceAccount]()).InNamespace(NodeLifecycleNamespace)
	if _, err := accounts.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "default"}}); err != nil {
		return fmt.Errorf("difftest: service account: %w", err)
	}
	pods := rest.NewResources(client, rest.Pods, decode.Typed[api.Pod]()).InNamespace(NodeLifecycleNamespace)
	secs := int64(EvictAfterSeconds)
	want := []*api.Pod{nodeLifecyclePod(KeptPod, "a-1", nil)}
	for _, n := range NodeLifecycleNodes() {
		want = append(want, nodeLifecyclePod(PodFor(n.Name), n.Name, &secs))
	}
	for _, p := range want {
		if _, err := pods.Create(ctx, p); err != nil {
			return fmt.Errorf("difftest: pod %s: %w", p.Name, err)
		}
	}
	return w.WaitFor(ctx, "every pod Ready", func(v NodeView) bool {
		for _, p := range want {
			if v.Pods[p.Name].Ready != "True" {
				return false
			}
		}
		return true
	})
}

// StepTimeout bounds the wait for each step's outcome: the slowest, the
// pod garbage collector's, takes its 40 s quarantine and 20 s period.
const StepTimeout = 2 * time.Minute

// waitStep is w.WaitFor bounded by StepTimeout.
func waitStep(ctx context.Context, w *NodeWatch, what string, cond func(NodeView) bool) error {
	ctx, cancel := context.WithTimeout(ctx, StepTimeout)
	defer cancel()
	return w.WaitFor(ctx, what, cond)
}

// NodeLifecycleRun is one manager's record of the comparison: the view at
// each checkpoint and the history of every object.
type NodeLifecycleRun struct {
	Checkpoints []Checkpoint
	History     map[string][]string
}

// Checkpoint is the view once a step's outcome was reached.
type Checkpoint struct {
	Name string
	View NodeView
}

// RunNodeLifecycle plays the comparison's steps on a cluster that m
// manages, recording a checkpoint after each:
//
//  1. "silent node": a-1's heartbeat stops; wait for its unreachable
//     NoExecute taint, the eviction of PodFor(a-1) (deletionTimestamp set)
//     and KeptPod not Ready.
//  2. "recovered node": a-1's heartbeat resumes; wait for its Ready=True
//     and no not-ready/unreachable taint.
//  3. "silent zone": b-1 and b-2 stop (zone-b fully disrupted, zones a
//     and c healthy); wait for both unreachable NoExecute taints and both
//     pods evicted.
//  4. "deleted node": the Node c-2 is deleted; wait for its pod to be
//     gone (the pod garbage collector's orphan rule).
//
// Not a step: every zone silent at once (upstream's "stop evicting when
// all zones are fully disrupted"). The outcome depends on whether the
// nodes go Unknown in one monitor pass or two: one run of
// kube-controller-manager v1.37.2 tainted c-1 NoExecute in between, kept
// the taint after every zone was fully disrupted and evicted its pod; the
// run before it evicted nothing. ctrl/nodelifecycle's unit tests cover
// the rule with an injected clock.
func RunNodeLifecycle(ctx context.Context, c *testenv.Cluster, client *rest.Client, w *NodeWatch) (*NodeLifecycleRun, error) {
	run := &NodeLifecycleRun{}
	checkpoint := func(name string) {
		run.Checkpoints = append(run.Checkpoints, Checkpoint{Name: name, View: w.Snapshot()})
	}
	evicted := func(v NodeView, nodes ...string) bool {
		for _, n := range nodes {
			if !v.Nodes[n].HasTaint(api.TaintNodeUnreachable, api.TaintEffectNoExecute) || !v.Pods[PodFor(n)].Deleting {
				return false
			}
		}
		return true
	}

	if err := c.PauseHeartbeat(ctx, "a-1"); err != nil {
		return nil, err
	}
	if err := waitStep(ctx, w, "a-1 tainted, its pod evicted, "+KeptPod+" not Ready", func(v NodeView) bool {
		return evicted(v, "a-1") && v.Pods[KeptPod].Ready == "False"
	}); err != nil {
		return nil, err
	}
	checkpoint("silent node")

	if err := c.ResumeHeartbeat(ctx, "a-1"); err != nil {
		return nil, err
	}
	if err := waitStep(ctx, w, "a-1 Ready and untainted", func(v NodeView) bool {
		s := v.Nodes["a-1"]
		return s.Ready == "True" && len(s.Taints) == 0
	}); err != nil {
		return nil, err
	}
	checkpoint("recovered node")

	for _, n := range []string{"b-1", "b-2"} {
		if err := c.PauseHeartbeat(ctx, n); err != nil {
			return nil, err
		}
	}
	if err := waitStep(ctx, w, "b-1 and b-2 tainted, their pods evicted", func(v NodeView) bool {
		return evicted(v, "b-1", "b-2")
	}); err != nil {
		return nil, err
	}
	checkpoint("silent zone")

	nodes := rest.NewResources(client, rest.Nodes, decode.Typed[api.Node]())
	if err := nodes.Delete(ctx, "c-2", rest.DeleteOptions{}); err != nil {
		return nil, fmt.Errorf("difftest: delete node c-2: %w", err)
	}
	if err := waitStep(ctx, w, PodFor("c-2")+" collected", func(v NodeView) bool {
		return v.Pods[PodFor("c-2")].Deleted
	}); err != nil {
		return nil, err
	}
	checkpoint("deleted node")
	run.History = w.History()
	return run, nil
}
