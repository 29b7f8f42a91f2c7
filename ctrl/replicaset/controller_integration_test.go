//go:build !nocluster

package replicaset

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/internal/testing/ctrltest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// cluster is the controller running against a real kube-apiserver (no
// kubelet, no scheduler: the test plays the kubelet's part by writing pod
// status itself).
type cluster struct {
	t      *testing.T
	ctx    context.Context
	ns     string
	rss    *rest.Resources[*api.RawObject]
	rsT    *rest.Resources[*api.ReplicaSet]
	pods   *rest.Resources[*api.Pod]
	events *rest.Resources[*api.CoreEvent]
}

func startCluster(t *testing.T) *cluster {
	cl := testenv.Shared(t)
	base, err := rest.NewClient(cl.ManagerConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(base.CloseIdleConnections)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	ns := cl.Namespace(t)

	ctrltest.Start(t, ctx, base, Descriptor(), 2)
	return &cluster{
		t: t, ctx: ctx, ns: ns,
		rss:    rest.NewResources(base, rest.ReplicaSets, decode.Raw()).InNamespace(ns),
		rsT:    rest.NewResources(base, rest.ReplicaSets, decode.Typed[api.ReplicaSet]()).InNamespace(ns),
		pods:   rest.NewResources(base, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns),
		events: rest.NewResources(base, rest.Events, decode.Typed[api.CoreEvent]()).InNamespace(ns),
	}
}

// createRS creates a ReplicaSet from JSON, selecting app=<app>, whose
// template carries a field kcm does not model (shareProcessNamespace).
func (c *cluster) createRS(name, app string, replicas int, extraSpec string) *api.ReplicaSet {
	c.t.Helper()
	obj, err := api.DecodeRawObject(fmt.Appendf(nil, `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":%q},
	"spec":{"replicas":%d,"selector":{"matchLabels":{"app":%q}},"template":{"metadata":{"labels":{"app":%q},"annotations":{"note":"n"}},
	"spec":{"shareProcessNamespace":true,%s"containers":[{"name":"c","image":"registry.example/never-pulled"}]}}}}`,
		name, replicas, app, app, extraSpec))
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.rss.Create(c.ctx, obj); err != nil {
		c.t.Fatal(err)
	}
	rs, err := c.rsT.Get(c.ctx, name)
	if err != nil {
		c.t.Fatal(err)
	}
	return rs
}

// podsOf lists the pods with app=<app>.
func (c *cluster) podsOf(app string) []*api.Pod {
	c.t.Helper()
	l, err := c.pods.List(c.ctx, rest.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		c.t.Fatal(err)
	}
	return l.Items
}

// waitPods watches the namespace's pods until check holds for the pods
// with app=<app> (checked first, then after every pod event).
func (c *cluster) waitPods(app, what string, check func([]*api.Pod) bool) []*api.Pod {
	c.t.Helper()
	l, err := c.pods.List(c.ctx, rest.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		c.t.Fatal(err)
	}
	if check(l.Items) {
		return l.Items
	}
	w, err := c.pods.Watch(c.ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: l.ResourceVersion, TimeoutSeconds: 120}})
	if err != nil {
		c.t.Fatal(err)
	}
	defer w.Close()
	for {
		if _, err := w.Next(); err != nil {
			c.t.Fatalf("waiting for %s: %v (pods now: %v)", what, err, podNames(c.podsOf(app)))
		}
		if pods := c.podsOf(app); check(pods) {
			return pods
		}
	}
}

// waitRS watches the ReplicaSet until check holds.
func (c *cluster) waitRS(name, what string, check func(*api.ReplicaSet) bool) *api.ReplicaSet {
	c.t.Helper()
	rs, err := c.rsT.Get(c.ctx, name)
	if err != nil {
		c.t.Fatal(err)
	}
	if check(rs) {
		return rs
	}
	w, err := c.rsT.Watch(c.ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: rs.ResourceVersion,
		FieldSelector: "metadata.name=" + name, TimeoutSeconds: 120}})
	if err != nil {
		c.t.Fatal(err)
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err != nil {
			c.t.Fatalf("waiting for %s: %v (status now %+v)", what, err, rs.Status)
		}
		if ev.Object != nil && ev.Object.Name == name {
			rs = ev.Object
			if check(rs) {
				return rs
			}
		}
	}
}

// waitEvent watches the namespace's events until one about the named
// ReplicaSet has the reason.
func (c *cluster) waitEvent(rs, reason string) *api.CoreEvent {
	c.t.Helper()
	l, err := c.events.List(c.ctx, rest.ListOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	for _, e := range l.Items {
		if e.InvolvedObject.Name == rs && e.Reason == reason {
			return e
		}
	}
	w, err := c.events.Watch(c.ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: l.ResourceVersion, TimeoutSeconds: 120}})
	if err != nil {
		c.t.Fatal(err)
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err != nil {
			c.t.Fatalf("waiting for a %s event: %v", reason, err)
		}
		if e := ev.Object; e != nil && e.InvolvedObject.Name == rs && e.Reason == reason {
			return e
		}
	}
}

// makeReady plays the kubelet: Running and Ready since now.
func (c *cluster) makeReady(p *api.Pod) {
	c.t.Helper()
	cp, err := api.DeepCopy(p)
	if err != nil {
		c.t.Fatal(err)
	}
	cp.Status.Phase = api.PodRunning
	cp.Status.Conditions = append(cp.Status.Conditions, api.PodCondition{Type: api.PodReady, Status: api.ConditionTrue,
		LastTransitionTime: api.NewTime(time.Now())})
	if _, err := c.pods.UpdateStatus(c.ctx, cp); err != nil {
		c.t.Fatal(err)
	}
}

func (c *cluster) scale(name string, n int) {
	c.t.Helper()
	if _, err := c.rsT.Patch(c.ctx, name, rest.MergePatch, fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, n), rest.PatchOptions{}); err != nil {
		c.t.Fatal(err)
	}
}

func podNames(ps []*api.Pod) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	slices.Sort(out)
	return out
}

func count(n int) func([]*api.Pod) bool { return func(ps []*api.Pod) bool { return len(ps) == n } }

// TestOnRealAPIServer: a ReplicaSet of 3 gets 3 pods stamped from its
// template; scaling up and down, a deleted pod, readiness and status, as
// kube-controller-manager does them.
func TestOnRealAPIServer(t *testing.T) {
	c := startCluster(t)
	rs := c.createRS("web", "web", 3, "")

	pods := c.waitPods("web", "3 pods", count(3))
	for _, p := range pods {
		ref := p.ControllerRef()
		if !strings.HasPrefix(p.Name, "web-") || ref == nil || ref.UID != rs.UID || ref.Kind != "ReplicaSet" ||
			ref.APIVersion != "apps/v1" || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion ||
			p.Annotations["note"] != "n" {
			t.Fatalf("pod %s: owner %+v annotations %v", p.Name, ref, p.Annotations)
		}
	}
	// The pod as JSON (decode.Raw reads JSON whatever the client's
	// content type; a pod read as protobuf has no JSON).
	asJSON, err := rest.NewResources(c.pods.Client(), rest.Pods, decode.Raw()).InNamespace(c.pods.Namespace()).Get(c.ctx, pods[0].Name)
	if err != nil {
		t.Fatal(err)
	}
	raw := string(asJSON.Raw())
	if !strings.Contains(raw, `"shareProcessNamespace":true`) {
		t.Fatalf("the template's unmodelled field did not reach the pod: %s", raw)
	}

	// Ready pods: readyReplicas and availableReplicas follow.
	for _, p := range pods {
		c.makeReady(p)
	}
	got := c.waitRS("web", "3 ready and available", func(rs *api.ReplicaSet) bool {
		return rs.Status.ReadyReplicas == 3 && rs.Status.AvailableReplicas == 3
	})
	if got.Status.Replicas != 3 || got.Status.FullyLabeledReplicas != 3 || got.Status.ObservedGeneration != got.Generation {
		t.Fatalf("status %+v generation %d", got.Status, got.Generation)
	}

	// Up to 5; then down to 1: the two new pods (not ready) go first, so
	// the one kept is one of the three Ready pods.
	readyOnes := podNames(pods)
	c.scale("web", 5)
	five := c.waitPods("web", "5 pods", count(5))
	var fresh []string
	for _, n := range podNames(five) {
		if !slices.Contains(readyOnes, n) {
			fresh = append(fresh, n)
		}
	}
	c.scale("web", 1)
	one := c.waitPods("web", "1 pod", count(1))
	if slices.Contains(fresh, one[0].Name) || !slices.Contains(readyOnes, one[0].Name) {
		t.Fatalf("kept %s; want one of the Ready pods %v, not the new %v", one[0].Name, readyOnes, fresh)
	}
	c.waitEvent("web", ctrl.ReasonSuccessfulDelete)

	// A deleted pod is replaced.
	if err := c.pods.Delete(c.ctx, one[0].Name, rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	c.waitPods("web", "a replacement", func(ps []*api.Pod) bool { return len(ps) == 1 && ps[0].Name != one[0].Name })
	c.waitRS("web", "status of 1 not-ready replica", func(rs *api.ReplicaSet) bool {
		return rs.Status.Replicas == 1 && rs.Status.ReadyReplicas == 0 && rs.Status.AvailableReplicas == 0 &&
			rs.Status.ObservedGeneration == rs.Generation
	})
}

// TestAdoptionOnRealAPIServer: a matching orphan is adopted and counts, so
// a ReplicaSet of 1 creates nothing more.
func TestAdoptionOnRealAPIServer(t *testing.T) {
	c := startCluster(t)
	orphan := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "stray", Labels: map[string]string{"app": "adopt"}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "registry.example/x"}}}}
	if _, err := c.pods.Create(c.ctx, orphan); err != nil {
		t.Fatal(err)
	}
	rs := c.createRS("adopter", "adopt", 1, "")
	pods := c.waitPods("adopt", "the orphan adopted", func(ps []*api.Pod) bool {
		return len(ps) == 1 && ps[0].IsControlledBy(rs.UID)
	})
	if pods[0].Name != "stray" {
		t.Fatalf("pod %s, want the adopted stray", pods[0].Name)
	}
	c.waitRS("adopter", "status replicas 1", func(rs *api.ReplicaSet) bool { return rs.Status.Replicas == 1 })
	if ps := c.podsOf("adopt"); len(ps) != 1 {
		t.Fatalf("pods %v: the ReplicaSet created more after adopting", podNames(ps))
	}
}

// TestRejectedTemplateOnRealAPIServer: pods the apiserver refuses (here:
// their ServiceAccount does not exist, which ServiceAccount admission
// checks on pods only) give a FailedCreate event and the ReplicaFailure
// condition.
func TestRejectedTemplateOnRealAPIServer(t *testing.T) {
	c := startCluster(t)
	c.createRS("refused", "refused", 2, `"serviceAccountName":"missing",`)
	ev := c.waitEvent("refused", ctrl.ReasonFailedCreate)
	if ev.Type != api.EventTypeWarning || !strings.HasPrefix(ev.Message, "Error creating: ") || !strings.Contains(ev.Message, "missing") ||
		ev.Source.Component != Name {
		t.Fatalf("event %+v", ev)
	}
	rs := c.waitRS("refused", "ReplicaFailure", func(rs *api.ReplicaSet) bool {
		return getCondition(rs.Status, api.ReplicaSetReplicaFailure) != nil
	})
	cond := getCondition(rs.Status, api.ReplicaSetReplicaFailure)
	if cond.Status != api.ConditionTrue || cond.Reason != ReasonFailedCreate || !strings.Contains(cond.Message, "missing") {
		t.Fatalf("condition %+v", cond)
	}
	if ps := c.podsOf("refused"); len(ps) != 0 {
		t.Fatalf("pods %v", podNames(ps))
	}
}
