//go:build !nocluster

package tainteviction

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/ctrltest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// testTaintKey is the NoExecute taint the test puts on its kwok node.
const testTaintKey = "kcm.test/evict"

// TestOnRealAPIServer runs the controller as the manager does against
// kube-apiserver with a kwok node carrying four pods, then taints the node
// NoExecute: the pod without a toleration is deleted (DisruptionTarget
// first), the pod tolerating it for 2 s is deleted after them, the pod
// tolerating it forever stays, and the pod tolerating it for 10 minutes
// has its eviction cancelled when the taint is removed — each observed
// through a watch, never by sleeping.
func TestOnRealAPIServer(t *testing.T) {
	cl := testenv.Shared(t)
	base, err := rest.NewClient(cl.ManagerConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(base.CloseIdleConnections)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // only turns a hang into a failure
	t.Cleanup(cancel)
	ns := cl.Namespace(t)
	node := "node-" + ns
	if err := cl.AddNodes(ctx, testenv.NodeSpec{Name: node}); err != nil {
		t.Fatal(err)
	}
	nodes := rest.NewResources(base, rest.Nodes, decode.Typed[api.Node]())
	pods := rest.NewResources(base, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)
	events := rest.NewResources(base, rest.Events, decode.Typed[api.CoreEvent]()).InNamespace(ns)
	ctrltest.Start(t, ctx, base, Descriptor(), 1)

	tol := func(seconds *int64) []api.Toleration {
		return []api.Toleration{{Key: testTaintKey, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: seconds}}
	}
	for name, tolerations := range map[string][]api.Toleration{
		"plain": nil, "brief": tol(secs(2)), "forever": tol(nil), "long": tol(secs(600)),
	} {
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name}, Spec: api.PodSpec{NodeName: node, Tolerations: tolerations,
			Containers: []api.Container{{Name: "c", Image: "registry.example/never-pulled"}}}}
		if _, err := pods.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	list, err := pods.List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := pods.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: list.ResourceVersion, TimeoutSeconds: 170}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	setTaints := func(taints string) {
		t.Helper()
		patch := fmt.Appendf(nil, `{"spec":{"taints":%s}}`, taints)
		if _, err := nodes.Patch(ctx, node, rest.MergePatch, patch, rest.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	tainted := time.Now()
	setTaints(`[{"key":"` + testTaintKey + `","effect":"NoExecute"}]`)

	// Watch until plain and brief are being deleted (or gone); note what
	// each pod looked like when its deletion was seen.
	var order []string
	condition := map[string]bool{}
	for len(order) < 2 {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("watching pods (deleted so far: %v): %v", order, err)
		}
		p := ev.Object
		if ev.Type != rest.Deleted && p.DeletionTimestamp == nil {
			if hasDisruptionTarget(p) {
				condition[p.Name] = true
			}
			continue
		}
		if slices.Contains(order, p.Name) {
			continue
		}
		order = append(order, p.Name)
		t.Logf("pod %s: deletion seen %v after the taint", p.Name, time.Since(tainted).Round(time.Millisecond))
		if hasDisruptionTarget(p) {
			condition[p.Name] = true
		}
	}
	if !slices.Equal(order, []string{"plain", "brief"}) {
		t.Errorf("deletion order %v, want plain (no toleration) then brief (2 s)", order)
	}
	for _, name := range order {
		if !condition[name] {
			t.Errorf("pod %s was deleted without the DisruptionTarget condition first", name)
		}
	}
	// The node's update decided all four pods at once, before brief's 2 s
	// ran out: forever and long are decided and still there.
	for _, name := range []string{"forever", "long"} {
		p, err := pods.Get(ctx, name)
		if err != nil {
			t.Fatalf("pod %s: %v", name, err)
		}
		if p.DeletionTimestamp != nil || hasDisruptionTarget(p) {
			t.Errorf("pod %s is being evicted: %+v", name, p.Status.Conditions)
		}
	}

	// Removing the taint cancels long's eviction.
	setTaints(`null`)
	waitEvents(t, ctx, events,
		"TaintManagerEviction Marking for deletion Pod "+ns+"/plain",
		"TaintManagerEviction Marking for deletion Pod "+ns+"/brief",
		"TaintManagerEviction Cancelling deletion of Pod "+ns+"/long")
	evs, err := events.List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs.Items {
		if e.InvolvedObject.Name == "forever" {
			t.Errorf("event about the pod that tolerates forever: %s %s", e.Reason, e.Message)
		}
		if e.Source.Component != Name {
			t.Errorf("event %q from %q, want %q", e.Message, e.Source.Component, Name)
		}
	}
}

func hasDisruptionTarget(p *api.Pod) bool {
	return slices.ContainsFunc(p.Status.Conditions, func(c api.PodCondition) bool {
		return c.Type == api.DisruptionTarget && c.Status == api.ConditionTrue && c.Reason == ConditionReason && c.Message == ConditionMessage
	})
}

// waitEvents watches the namespace's events until each of want ("reason
// message") has been recorded.
func waitEvents(t *testing.T, ctx context.Context, events *rest.Resources[*api.CoreEvent], want ...string) {
	t.Helper()
	seen := map[string]bool{}
	missing := func() []string {
		var out []string
		for _, w := range want {
			if !seen[w] {
				out = append(out, w)
			}
		}
		return out
	}
	list, err := events.List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range list.Items {
		seen[e.Reason+" "+e.Message] = true
	}
	if len(missing()) == 0 {
		return
	}
	w, err := events.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: list.ResourceVersion, TimeoutSeconds: 170}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for len(missing()) > 0 {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("watching events, still missing %s: %v", strings.Join(missing(), "; "), err)
		}
		seen[ev.Object.Reason+" "+ev.Object.Message] = true
	}
}
