//go:build !nocluster

package manager

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kcmlab/kcm/ctrl/deployment"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// TestManagerSmoke runs the manager as `kcm` runs it (every controller,
// leader election, kube-controller-manager's defaults) on a real
// kube-apiserver and checks what an operator sees first, one step after
// the other:
//
//  1. a new namespace gets its "default" ServiceAccount (serviceaccount);
//  2. a Deployment rolls out: its ReplicaSet and pods are made and it
//     reports every replica updated and available (deployment, replicaset);
//  3. a new template rolls out to a second ReplicaSet, the first scaled to 0;
//  4. it scales from 2 to 4;
//  5. deleting it removes its ReplicaSets and pods (garbagecollector);
//  6. deleting the namespace empties it and then it is gone (namespace).
//
// No kubelet runs: a stand-in marks each new pod Running and Ready, as the
// controllers' own real-cluster tests do. `make compat` runs this against
// every supported kube-apiserver release (KCM_KUBE_VERSION).
func TestManagerSmoke(t *testing.T) {
	cl := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	o := NewOptions(NewControllerDescriptors())
	o.LeaderElection.ResourceName = "kcm-smoke"
	startManager(t, cl, o, "kcm-smoke")

	c, err := rest.NewClient(cl.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()

	// 1. A namespace gets its ServiceAccount.
	namespaces := rest.NewResources(c, rest.Namespaces, decode.Typed[api.Namespace]())
	created, err := namespaces.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{GenerateName: "kcm-smoke-"}})
	if err != nil {
		t.Fatal(err)
	}
	ns := created.Name
	t.Cleanup(func() { _ = namespaces.Delete(context.Background(), ns, rest.DeleteOptions{}) })
	accounts := rest.NewResources(c, rest.ServiceAccounts, decode.Typed[api.ServiceAccount]()).InNamespace(ns)
	awaitState(t, ctx, accounts, rest.ListOptions{}, "step 1: the namespace's default ServiceAccount",
		func(m map[string]*api.ServiceAccount) bool { return m["default"] != nil })

	// A kubelet stand-in: every pod becomes Running and Ready.
	pods := rest.NewResources(c, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)
	kctx, stopKubelet := context.WithCancel(ctx)
	var kubelet sync.WaitGroup
	kubelet.Add(1)
	go func() { defer kubelet.Done(); readyPods(t, kctx, pods) }()
	defer func() { stopKubelet(); kubelet.Wait() }()

	// 2. A Deployment rolls out.
	deployments := rest.NewResources(c, rest.Deployments, decode.Typed[api.Deployment]()).InNamespace(ns)
	two, four := int32(2), int32(4)
	d := &api.Deployment{ObjectMeta: api.ObjectMeta{Name: "web"}, Spec: api.DeploymentSpec{
		Replicas: &two,
		Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "web", Image: "web:1"}}}},
	}}
	if _, err := deployments.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	awaitState(t, ctx, deployments, rest.ListOptions{}, "step 2: Deployment web rolled out with 2 replicas", rolledOut("web", 2))
	replicaSets := rest.NewResources(c, rest.ReplicaSets, decode.Typed[api.ReplicaSet]()).InNamespace(ns)
	awaitState(t, ctx, replicaSets, rest.ListOptions{}, "step 2: one ReplicaSet of 2",
		func(m map[string]*api.ReplicaSet) bool { return describeRSs(m) == "web:1=2" })

	// 3. A new template rolls out.
	patch := []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"web:2"}]}}}}`)
	if _, err := deployments.Patch(ctx, "web", rest.StrategicMergePatch, patch, rest.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitState(t, ctx, deployments, rest.ListOptions{}, "step 3: Deployment web rolled out to image web:2", rolledOut("web", 2))
	awaitState(t, ctx, replicaSets, rest.ListOptions{}, "step 3: the old ReplicaSet scaled to 0, the new one to 2",
		func(m map[string]*api.ReplicaSet) bool { return describeRSs(m) == "web:1=0 web:2=2" })

	// 4. It scales.
	if _, err := deployments.Patch(ctx, "web", rest.MergePatch, fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, four), rest.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitState(t, ctx, deployments, rest.ListOptions{}, "step 4: Deployment web scaled to 4", rolledOut("web", 4))
	awaitState(t, ctx, pods, rest.ListOptions{}, "step 4: 4 pods",
		func(m map[string]*api.Pod) bool { return len(m) == 4 })

	// 5. Its deletion is garbage-collected.
	if err := deployments.Delete(ctx, "web", rest.DeleteOptions{PropagationPolicy: rest.PropagationBackground}); err != nil {
		t.Fatal(err)
	}
	awaitState(t, ctx, replicaSets, rest.ListOptions{}, "step 5: the garbage collector deleting the ReplicaSets",
		func(m map[string]*api.ReplicaSet) bool { return len(m) == 0 })
	awaitState(t, ctx, pods, rest.ListOptions{}, "step 5: the garbage collector deleting the pods",
		func(m map[string]*api.Pod) bool { return len(m) == 0 })

	// 6. A deleted namespace is emptied, then goes.
	one := int32(1)
	d.Spec.Replicas = &one
	if _, err := deployments.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	configMaps := rest.NewResources(c, rest.ConfigMaps, decode.Typed[api.ConfigMap]()).InNamespace(ns)
	if _, err := configMaps.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "settings"}}); err != nil {
		t.Fatal(err)
	}
	awaitState(t, ctx, pods, rest.ListOptions{}, "step 6: the second Deployment's pod",
		func(m map[string]*api.Pod) bool { return len(m) == 1 })
	stopKubelet()
	kubelet.Wait()
	if err := namespaces.Delete(ctx, ns, rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitState(t, ctx, namespaces, rest.ListOptions{FieldSelector: "metadata.name=" + ns},
		"step 6: the namespace controller emptying and removing the namespace",
		func(m map[string]*api.Namespace) bool { return len(m) == 0 })
	for _, res := range []rest.Resource{rest.Deployments, rest.ReplicaSets, rest.Pods, rest.ConfigMaps, rest.ServiceAccounts} {
		left, err := rest.NewResources(c, res, decode.Raw()).InNamespace(ns).List(ctx, rest.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(left.Items) != 0 {
			t.Errorf("step 6: %d %s left after namespace %s went", len(left.Items), res.Resource, ns)
		}
	}
}

// rolledOut: the Deployment's controller has seen its current generation,
// and every replica is updated and available, the rollout complete
// (Progressing=True, NewReplicaSetAvailable), as `kubectl rollout status`
// waits for.
func rolledOut(name string, replicas int32) func(map[string]*api.Deployment) bool {
	return func(m map[string]*api.Deployment) bool {
		d := m[name]
		if d == nil {
			return false
		}
		st := d.Status
		p := api.GetDeploymentCondition(&st, api.DeploymentProgressing)
		return st.ObservedGeneration >= d.Generation && st.Replicas == replicas && st.UpdatedReplicas == replicas &&
			st.AvailableReplicas == replicas && p != nil && p.Reason == deployment.ReasonNewReplicaSetAvailable
	}
}

// describeRSs lists the ReplicaSets as "image=replicas", sorted.
func describeRSs(m map[string]*api.ReplicaSet) string {
	var out []string
	for _, rs := range m {
		img := ""
		if cs := rs.Spec.Template.Spec.Containers; len(cs) > 0 {
			img = cs[0].Image
		}
		n := int32(1)
		if rs.Spec.Replicas != nil {
			n = *rs.Spec.Replicas
		}
		out = append(out, fmt.Sprintf("%s=%d", img, n))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// awaitState lists r, then follows it by watch, keeping the objects by
// name, until cond holds for them. A watch the server ends is resumed from
// a fresh list. It fails t, naming what it waited for and the last state,
// when ctx ends first.
func awaitState[T api.Object](t *testing.T, ctx context.Context, r *rest.Resources[T], opts rest.ListOptions,
	what string, cond func(map[string]T) bool) {
	t.Helper()
	state := map[string]T{}
	fail := func(err error) {
		t.Helper()
		names := make([]string, 0, len(state))
		for n := range state {
			names = append(names, n)
		}
		sort.Strings(names)
		t.Fatalf("waiting for %s: %v (last seen: %v)", what, err, names)
	}
	for {
		list, err := r.List(ctx, opts)
		if err != nil {
			fail(err)
		}
		clear(state)
		for _, o := range list.Items {
			state[o.GetObjectMeta().Name] = o
		}
		if cond(state) {
			return
		}
		wo := opts
		wo.ResourceVersion, wo.TimeoutSeconds = list.ResourceVersion, 60
		w, err := r.Watch(ctx, rest.WatchOptions{ListOptions: wo})
		if err != nil {
			fail(err)
		}
		for {
			ev, err := w.Next()
			if errors.Is(err, io.EOF) || rest.IsGone(err) {
				break // the server ended the watch: list again
			}
			if err != nil {
				w.Close()
				fail(err)
			}
			switch ev.Type {
			case rest.Added, rest.Modified:
				state[ev.Object.GetObjectMeta().Name] = ev.Object
			case rest.Deleted:
				delete(state, ev.Object.GetObjectMeta().Name)
			default:
				continue
			}
			if cond(state) {
				w.Close()
				return
			}
		}
		w.Close()
	}
}

// readyPods plays the kubelet until ctx ends: every pod that is not yet
// Ready and not being deleted is set Running and Ready. It lists, then
// watches from the list, so that no pod is missed when a watch ends.
func readyPods(t *testing.T, ctx context.Context, pods *rest.Resources[*api.Pod]) {
	makeReady := func(p *api.Pod) {
		if p.DeletionTimestamp != nil || podReady(p) {
			return
		}
		cp, err := api.DeepCopy(p)
		if err != nil {
			t.Errorf("kubelet stand-in: %v", err)
			return
		}
		cp.Status.Phase = api.PodRunning
		cp.Status.Conditions = append(cp.Status.Conditions, api.PodCondition{Type: api.PodReady,
			Status: api.ConditionTrue, LastTransitionTime: api.NewTime(time.Now())})
		if _, err := pods.UpdateStatus(ctx, cp); err != nil && !rest.IsConflict(err) && !rest.IsNotFound(err) && ctx.Err() == nil {
			t.Errorf("kubelet stand-in: status of %s: %v", p.Name, err)
		}
	}
	for ctx.Err() == nil {
		list, err := pods.List(ctx, rest.ListOptions{})
		if err != nil {
			if ctx.Err() == nil {
				t.Errorf("kubelet stand-in: list pods: %v", err)
			}
			return
		}
		for _, p := range list.Items {
			makeReady(p)
		}
		w, err := pods.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: list.ResourceVersion, TimeoutSeconds: 60}})
		if err != nil {
			if ctx.Err() == nil {
				t.Errorf("kubelet stand-in: watch pods: %v", err)
			}
			return
		}
		for {
			ev, err := w.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) && !rest.IsGone(err) && ctx.Err() == nil {
					t.Errorf("kubelet stand-in: watching pods: %v", err)
					w.Close()
					return
				}
				break
			}
			if ev.Type == rest.Added || ev.Type == rest.Modified {
				makeReady(ev.Object)
			}
		}
		w.Close()
	}
}

func podReady(p *api.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == api.PodReady && c.Status == api.ConditionTrue {
			return true
		}
	}
	return false
}
