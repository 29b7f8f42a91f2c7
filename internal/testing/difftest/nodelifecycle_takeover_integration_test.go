//go:build !nocluster

package difftest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// The node lifecycle takeover (issue 31): kube-controller-manager runs
// NodeLifecycleControllers on a healthy cluster (NodeLifecycleNodes, the
// pods of SetUpNodeLifecycle) until it has registered every node, and
// stops; kcm starts with the same controllers and flags. The rule: kcm
// must taint no healthy node, mark no pod not Ready and evict nothing —
// a controller that took a node it has just met for a dead one would
// evict a healthy cluster.
//
// kcm's passes are made visible with a probe: a seventh node, probeNode,
// with no pods, whose heartbeat stops before kcm starts. kcm meets it
// with the same start-up state as every other node (no probe timestamp
// of its own yet), so the grace period that ends with probeNode's
// unreachable taint also covers every healthy node, on every pass in
// between. The probe's unreachable NoSchedule taint is the sign (the
// NoExecute one would not come if a broken kcm took every node for dead:
// with every zone fully disrupted nothing is tainted NoExecute). The
// nodes' watch delivers writes in commit order: once the probe's taint is
// seen, every earlier node write is seen. Then a barrier
// pod, zz-barrier, is created: once it is seen, every earlier pod write is
// seen too. From kcm's start to the barrier, the healthy nodes and the
// pods must have kept the one state they had.

// probeNode is the takeover's probe (zone-c, no pods).
const probeNode = "probe"

// TestNodeLifecycleTakeover: see above.
func TestNodeLifecycleTakeover(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	c, client := startNodeCluster(ctx, t)
	if err := c.AddNodes(ctx, testenv.NodeSpec{Name: probeNode, Zone: "zone-c"}); err != nil {
		t.Fatal(err)
	}
	w := watchNodeCluster(ctx, t, client)
	if err := SetUpNodeLifecycle(ctx, client, w); err != nil {
		t.Fatal(err)
	}
	all := append(nodeNames(NodeLifecycleNodes()), probeNode)

	ref := &KubeControllerManager{Controllers: NodeLifecycleControllers, Args: NodeLifecycleArgs, Logger: zerolog.Nop()}
	stopRef, err := ref.Start(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	stopRef = audited(t, c, ref, stopRef, NodeLifecycleNamespace)
	err = w.WaitFor(ctx, ref.Name()+" to register every node", func(v NodeView) bool {
		for _, n := range all {
			if !v.Events[registeredEvent(n)] {
				return false
			}
		}
		return true
	})
	if err := stopRef(); err != nil {
		t.Errorf("%s stopped with %v", ref.Name(), err)
	}
	if err != nil {
		t.Fatal(err, "\n", ref.Diagnose())
	}

	if err := c.PauseHeartbeat(ctx, probeNode); err != nil {
		t.Fatal(err)
	}
	// A second watch, from here: its histories start with the state
	// kube-controller-manager left.
	tw := watchNodeCluster(ctx, t, client)
	before := tw.Snapshot()
	kcm := &InProcess{Descriptors: nodeLifecycleDescriptors(t), Args: NodeLifecycleArgs, Logger: zerolog.Nop()}
	began := time.Now()
	stop, err := kcm.Start(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	stop = audited(t, c, kcm, stop, NodeLifecycleNamespace)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("%s stopped with %v", kcm.Name(), err)
		}
	}()
	if err := tw.WaitFor(ctx, probeNode+" tainted unreachable", func(v NodeView) bool {
		return v.Nodes[probeNode].HasTaint(api.TaintNodeUnreachable, api.TaintEffectNoSchedule)
	}); err != nil {
		t.Fatal(err)
	}
	pods := rest.NewResources(client, rest.Pods, decode.Typed[api.Pod]()).InNamespace(NodeLifecycleNamespace)
	barrier := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "zz-barrier"}}
	barrier.Spec.Containers = []api.Container{{Name: "c", Image: "busybox"}}
	if _, err := pods.Create(ctx, barrier); err != nil {
		t.Fatal(err)
	}
	if err := tw.WaitFor(ctx, "the barrier pod", func(v NodeView) bool { return v.Pods["zz-barrier"] != PodState{} }); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s tainted %s after %s", kcm.Name(), probeNode, time.Since(began).Round(time.Millisecond))

	for _, d := range takeoverChanges(before, tw.History()) {
		t.Error(d)
	}
}

// takeoverChanges returns a line for every healthy node and every pod
// (but the barrier) whose history since before has more than its one
// state, and for a node or pod of before that is missing.
func takeoverChanges(before NodeView, history map[string][]string) []string {
	var out []string
	check := func(key, was string) {
		h := history[key]
		if len(h) != 1 || h[0] != was {
			out = append(out, fmt.Sprintf("%s changed:\n  was %s\n  went through\n    %s", key, was, strings.Join(h, "\n    ")))
		}
	}
	for n, s := range before.Nodes {
		if n != probeNode {
			check("Node "+n, s.String())
		}
	}
	for p, s := range before.Pods {
		check("Pod "+p, s.String())
	}
	for k := range history {
		name, isPod := strings.CutPrefix(k, "Pod ")
		if _, known := before.Pods[name]; isPod && !known && name != "zz-barrier" {
			out = append(out, "new "+k+": "+strings.Join(history[k], " → "))
		}
	}
	return out
}

// registeredEvent is the Event line of a node's registration by the node
// lifecycle controller.
func registeredEvent(node string) string {
	return fmt.Sprintf("Node/%s RegisteredNode Normal: Node %s event: Registered Node %s in Controller", node, node, node)
}

func nodeNames(specs []testenv.NodeSpec) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}
