//go:build !nocluster

package garbagecollector

import (
	"slices"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// workload creates what the Deployment and ReplicaSet controllers would:
// Deployment web, ReplicaSet web-1 controlled by it, pods web-1-a and
// web-1-b controlled by the ReplicaSet, every reference with
// blockOwnerDeletion. It returns once the collector's graph holds all
// four (see waitObserved).
func (c *cluster) workload() {
	c.t.Helper()
	labels := map[string]any{"app": "web"}
	template := map[string]any{"metadata": map[string]any{"labels": labels},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "web", "image": "registry.example/web:1"}}}}
	d := c.create(rest.Deployments, map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web"},
		"spec":     map[string]any{"replicas": 2, "selector": map[string]any{"matchLabels": labels}, "template": template}})
	d.APIVersion, d.Kind = "apps/v1", "Deployment"
	rs := c.create(rest.ReplicaSets, map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet",
		"metadata": map[string]any{"name": "web-1", "ownerReferences": []any{ownerRefMap(d, true, true)}},
		"spec":     map[string]any{"replicas": 2, "selector": map[string]any{"matchLabels": labels}, "template": template}})
	rs.APIVersion, rs.Kind = "apps/v1", "ReplicaSet"
	objs := []*api.RawObject{d, rs}
	for _, n := range []string{"web-1-a", "web-1-b"} {
		objs = append(objs, c.create(rest.Pods, map[string]any{"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": n, "labels": labels, "ownerReferences": []any{ownerRefMap(rs, true, true)}},
			"spec":     template["spec"]}))
	}
	c.waitObserved(objs...)
}

// TestDeploymentDeletion deletes a Deployment with each propagation
// policy and checks what remains and the order of disappearance, as
// Kubernetes documents them and kube-controller-manager does them
// (REFERENCE.md: seen with KCM 1.34):
//
//   - Background: kube-apiserver deletes the Deployment at once; the
//     collector then deletes its ReplicaSet, then the pods.
//   - Foreground: the Deployment waits with foregroundDeletion; the
//     collector deletes its ReplicaSet in the foreground too (it has
//     dependents), so the pods go first, then the ReplicaSet, then the
//     Deployment.
//   - Orphan: the collector strips the Deployment's reference from the
//     ReplicaSet before the Deployment goes; ReplicaSet and pods stay,
//     the pods still owned by the ReplicaSet.
func TestDeploymentDeletion(t *testing.T) {
	c := startCluster(t)
	all := []string{"Deployment/web", "ReplicaSet/web-1", "Pod/web-1-a", "Pod/web-1-b"}
	for _, tc := range []struct {
		policy string
		check  func(t *testing.T, c *cluster, order []string)
	}{
		{rest.PropagationBackground, func(t *testing.T, c *cluster, order []string) {
			if order[0] != "Deployment/web" || order[1] != "ReplicaSet/web-1" || !isPods(order[2:]) {
				t.Errorf("background: order %v, want the Deployment, then the ReplicaSet, then the pods", order)
			}
		}},
		{rest.PropagationForeground, func(t *testing.T, c *cluster, order []string) {
			if !isPods(order[:2]) || order[2] != "ReplicaSet/web-1" || order[3] != "Deployment/web" {
				t.Errorf("foreground: order %v, want the pods, then the ReplicaSet, then the Deployment", order)
			}
		}},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			c.ns = testenv.Shared(t).Namespace(t)
			rec := c.watchDeletions(rest.Deployments, rest.ReplicaSets, rest.Pods)
			c.workload()
			c.deleteWith(rest.Deployments, "web", tc.policy)
			rec.waitDeleted(t, c.ctx, all...)
			order := rec.order()
			if len(order) != 4 {
				t.Fatalf("deleted %v, want each of %v once", order, all)
			}
			tc.check(t, c, order)
		})
	}
	t.Run(rest.PropagationOrphan, func(t *testing.T) {
		c.ns = testenv.Shared(t).Namespace(t)
		rec := c.watchDeletions(rest.Deployments, rest.ReplicaSets, rest.Pods)
		c.workload()
		c.deleteWith(rest.Deployments, "web", rest.PropagationOrphan)
		rec.waitDeleted(t, c.ctx, "Deployment/web")
		// The finalizer goes only after the dependents were orphaned, so
		// the ReplicaSet must already be free of the reference now.
		rs := c.get(rest.ReplicaSets, "web-1")
		if rs == nil || len(rs.OwnerReferences) != 0 {
			t.Fatalf("orphan: ReplicaSet %s, want it kept without ownerReferences", describe(rs))
		}
		for _, p := range []string{"web-1-a", "web-1-b"} {
			pod := c.get(rest.Pods, p)
			if pod == nil || len(pod.OwnerReferences) != 1 || pod.OwnerReferences[0].UID != rs.UID {
				t.Errorf("orphan: pod %s = %s, want it kept, owned by the ReplicaSet", p, describe(pod))
			}
		}
		if d := rec.order(); !slices.Equal(d, []string{"Deployment/web"}) {
			t.Errorf("orphan: deleted %v, want only the Deployment", d)
		}
	})
}

func isPods(whats []string) bool {
	return len(whats) == 2 && strings.HasPrefix(whats[0], "Pod/") && strings.HasPrefix(whats[1], "Pod/")
}

// TestDanglingAndMismatchedOwners: a dependent whose owner reference
// names a uid nothing has, or a name whose object has another uid (the
// owner was replaced), is collected; a dependent whose owner exists with
// the referenced uid is not. The kept one names a dangling owner too, so
// that the collector must look at it: it drops that reference and keeps
// the object (Kubernetes: "item has at least one existing owner").
func TestDanglingAndMismatchedOwners(t *testing.T) {
	c := startCluster(t)
	rec := c.watchDeletions(rest.ConfigMaps)
	owner := c.create(rest.ConfigMaps, configMap("owner"))
	owner.APIVersion, owner.Kind = "v1", "ConfigMap"
	ghost := &api.RawObject{TypeMeta: owner.TypeMeta, ObjectMeta: api.ObjectMeta{Name: "never-existed", UID: "5f1c7a64-0000-4000-8000-000000000001"}}
	replaced := &api.RawObject{TypeMeta: owner.TypeMeta, ObjectMeta: api.ObjectMeta{Name: "owner", UID: "5f1c7a64-0000-4000-8000-000000000002"}}
	kept := c.create(rest.ConfigMaps, configMap("kept", ownerRefMap(owner, false, false), ownerRefMap(ghost, false, false)))
	c.create(rest.ConfigMaps, configMap("dangling", ownerRefMap(ghost, false, false)))
	c.create(rest.ConfigMaps, configMap("mismatched", ownerRefMap(replaced, false, false)))
	rec.waitDeleted(t, c.ctx, "ConfigMap/dangling", "ConfigMap/mismatched")
	c.waitObject(rest.ConfigMaps, "kept", kept.ResourceVersion, "the dangling reference of kept removed", func(o *api.RawObject) bool {
		return len(o.OwnerReferences) == 1 && o.OwnerReferences[0].UID == owner.UID
	})
	if d := rec.order(); len(d) != 2 {
		t.Errorf("deleted %v, want only the dangling and the mismatched dependents", d)
	}
}

// TestCustomResourcesOwnedByConfigMap: a CRD installed while the
// collector runs joins the graph at the next discovery; its custom
// resources owned by a ConfigMap are collected when the ConfigMap is
// deleted in the background, deleted first when it is deleted in the
// foreground, and orphaned — by a JSON merge patch, since custom
// resources refuse strategic merge — when it is deleted with Orphan.
// When the CRD is deleted, its resource leaves the monitored set.
func TestCustomResourcesOwnedByConfigMap(t *testing.T) {
	c := startCluster(t)
	widgets := testenv.InstallCRD(t, c.ctx, c.client, "gc.kcm.example", "Widget")
	widget := func(name string, owner *api.RawObject) map[string]any {
		return map[string]any{"apiVersion": widgets.GroupVersion(), "kind": "Widget",
			"metadata": map[string]any{"name": name, "ownerReferences": []any{ownerRefMap(owner, true, true)}}}
	}
	// The widgets must be in the graph before an owner goes: a foreground
	// deletion processed before the collector watches widgets finds no
	// dependents and lets the owner go first (the widget is then
	// collected later, as a dangling dependent).
	c.waitMonitors(func(m map[rest.Resource]bool) bool { return m[widgets] }, "the CRD's resource to join the monitors")
	mon, _ := c.gc.monitors.Lookup(widgets)
	reg := mon.Registration()
	if !informer.WaitForCacheSync(c.ctx, clock.Real{}, reg)[reg.Name()] {
		t.Fatal("the widgets' monitor did not sync")
	}
	for _, policy := range []string{rest.PropagationBackground, rest.PropagationForeground, rest.PropagationOrphan} {
		t.Run(policy, func(t *testing.T) {
			c.ns = testenv.Shared(t).Namespace(t)
			rec := c.watchDeletions(rest.ConfigMaps, widgets)
			owner := c.create(rest.ConfigMaps, configMap("owner"))
			owner.APIVersion, owner.Kind = "v1", "ConfigMap"
			c.waitObserved(owner, c.create(widgets, widget("w1", owner)))
			c.deleteWith(rest.ConfigMaps, "owner", policy)
			switch policy {
			case rest.PropagationOrphan:
				rec.waitDeleted(t, c.ctx, "ConfigMap/owner")
				w := c.get(widgets, "w1")
				if w == nil || len(w.OwnerReferences) != 0 {
					t.Fatalf("orphan: widget %s, want it kept without ownerReferences", describe(w))
				}
			default:
				rec.waitDeleted(t, c.ctx, "ConfigMap/owner", "Widget/w1")
				if o := rec.order(); policy == rest.PropagationForeground && !slices.Equal(o, []string{"Widget/w1", "ConfigMap/owner"}) {
					t.Errorf("foreground: order %v, want the widget first", o)
				}
			}
		})
	}
	crd := widgets.Resource + "." + widgets.Group
	if err := rest.NewResources(c.client, rest.CRDs, decode.Raw()).Delete(c.ctx, crd, rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	c.waitMonitors(func(m map[rest.Resource]bool) bool { return !m[widgets] }, "the deleted CRD's resource to leave the monitors")
}

// waitMonitors waits until the collector's monitored resources satisfy
// cond, after each discovery resync.
func (c *cluster) waitMonitors(cond func(map[rest.Resource]bool) bool, what string) {
	c.t.Helper()
	for {
		m, changed := c.gc.monitors.Resources()
		if cond(m) {
			return
		}
		select {
		case <-c.ctx.Done():
			c.t.Fatalf("timed out waiting for %s", what)
		case <-changed:
		}
	}
}

// TestCycleDoesNotHangForeground: two ConfigMaps that own each other,
// both references blocking, both go when one is deleted in the
// foreground: the collector unblocks the cycle instead of waiting on it.
func TestCycleDoesNotHangForeground(t *testing.T) {
	c := startCluster(t)
	rec := c.watchDeletions(rest.ConfigMaps)
	a := c.create(rest.ConfigMaps, configMap("a"))
	a.APIVersion, a.Kind = "v1", "ConfigMap"
	b := c.create(rest.ConfigMaps, configMap("b", ownerRefMap(a, false, true)))
	b.APIVersion, b.Kind = "v1", "ConfigMap"
	patch := `{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"b","uid":"` + b.UID + `","blockOwnerDeletion":true}]}}`
	if _, err := c.resources(rest.ConfigMaps).Patch(c.ctx, "a", rest.MergePatch, []byte(patch), rest.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	c.deleteWith(rest.ConfigMaps, "a", rest.PropagationForeground)
	rec.waitDeleted(t, c.ctx, "ConfigMap/a", "ConfigMap/b")
}

// TestOwnerScope checks the scope rules as Kubernetes applies them:
//
//   - a namespaced dependent's namespaced owner is looked up in the
//     dependent's namespace only: one that exists only in another
//     namespace is absent there, so the dependent is collected, and the
//     collector, having seen that owner, reports OwnerRefInvalidNamespace;
//   - a cluster-scoped dependent may not have a namespaced owner: it is
//     never collected for it, and the event is reported too;
//   - a namespaced dependent may have a cluster-scoped owner.
func TestOwnerScope(t *testing.T) {
	c := startCluster(t)
	owner := c.create(rest.ConfigMaps, configMap("owner"))
	owner.APIVersion, owner.Kind = "v1", "ConfigMap"
	home := c.ns

	other := testenv.Shared(t).Namespace(t)
	c.ns = other
	rec := c.watchDeletions(rest.ConfigMaps)
	c.create(rest.ConfigMaps, configMap("cross-namespace", ownerRefMap(owner, false, false)))
	msg := c.waitEvent(other, "OwnerRefInvalidNamespace", "cross-namespace")
	if want := `ownerRef [v1/ConfigMap, namespace: ` + other + `, name: owner, uid: ` + owner.UID + `] does not exist in namespace "` + other + `"`; msg != want {
		t.Errorf("event message %q, want %q", msg, want)
	}
	rec.waitDeleted(t, c.ctx, "ConfigMap/cross-namespace")

	clusterRoles := rest.Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles", Kind: "ClusterRole"}
	name := "kcm-gc-test-" + strings.ToLower(other)
	c.create(clusterRoles, map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
		"metadata": map[string]any{"name": name, "ownerReferences": []any{ownerRefMap(owner, false, false)}}})
	t.Cleanup(func() { _ = c.resources(clusterRoles).Delete(c.ctx, name, rest.DeleteOptions{}) })
	if msg := c.waitEvent("default", "OwnerRefInvalidNamespace", name); !strings.Contains(msg, "does not exist in namespace \"\"") {
		t.Errorf("cluster-scoped dependent: event message %q", msg)
	}

	c.ns = home
	node := c.create(rest.Nodes, map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": name}})
	node.APIVersion, node.Kind = "v1", "Node"
	t.Cleanup(func() { _ = c.resources(rest.Nodes).Delete(c.ctx, name, rest.DeleteOptions{}) })
	rec = c.watchDeletions(rest.ConfigMaps)
	c.create(rest.ConfigMaps, configMap("node-owned", ownerRefMap(node, false, false)))
	c.create(rest.ConfigMaps, configMap("sentinel", ownerRefMap(&api.RawObject{TypeMeta: owner.TypeMeta,
		ObjectMeta: api.ObjectMeta{Name: "gone", UID: "5f1c7a64-0000-4000-8000-000000000003"}}, false, false)))
	rec.waitDeleted(t, c.ctx, "ConfigMap/sentinel")
	if c.get(rest.ConfigMaps, "node-owned") == nil {
		t.Error("a namespaced dependent of an existing cluster-scoped owner was collected")
	}
	if c.get(clusterRoles, name) == nil {
		t.Error("a cluster-scoped dependent of a namespaced owner was collected")
	}
}
