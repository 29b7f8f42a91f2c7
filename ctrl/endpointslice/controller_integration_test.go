//go:build !nocluster

package endpointslice

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/ctrl/endpointslice/reconciler"
	"github.com/kcmlab/kcm/ctrl/endpointslice/topology"
	"github.com/kcmlab/kcm/internal/testing/ctrltest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// TestOnRealAPIServer runs the controller the way the manager will —
// built by its descriptor, the factory started, the loop run — on
// kube-apiserver, the test writing pod status as a kubelet would, on a
// Node in zone-a that it made (no kubelet: a deleted pod stays
// terminating). A Service with a ready, an unready and a terminating pod
// gets one slice with their conditions, zone and the named port resolved;
// the unready pod turning ready updates it. Then a fresh controller with
// one worker resyncs everything and writes nothing, and the Service's
// deletion leaves its slice to the garbage collector (none runs here).
// "Nothing written" is read off a watch of the namespace's slices, up to a
// barrier: a Service created after the event under test, whose slice the
// single worker writes only after the syncs before it (the queue is FIFO,
// and one informer delivers both Services' events in order).
func TestOnRealAPIServer(t *testing.T) {
	cl := testenv.Shared(t)
	base, err := rest.NewClient(cl.ManagerConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer base.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := cl.Namespace(t)

	nodes := rest.NewResources(base, rest.Nodes, decode.Typed[api.Node]())
	node := "es-node-" + ns[len(ns)-5:]
	if _, err := nodes.Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: node, Labels: map[string]string{topology.LabelTopologyZone: "zone-a"}}}); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = nodes.Delete(context.Background(), node, rest.DeleteOptions{}) }()

	services := rest.NewResources(base, rest.Services, decode.Typed[api.Service]()).InNamespace(ns)
	pods := rest.NewResources(base, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)
	eps := rest.NewResources(base, rest.EndpointSlices, decode.Typed[api.EndpointSlice]()).InNamespace(ns)

	start, err := eps.List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := eps.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: start.ResourceVersion, TimeoutSeconds: 110}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// waitFor returns the first event of a slice of Service svc that passes
	// check, and the events of other Services' slices before it.
	waitFor := func(svc, what string, check func(rest.EventType, *api.EndpointSlice) bool) (*api.EndpointSlice, []string) {
		t.Helper()
		var others []string
		for {
			ev, err := w.Next()
			if err != nil {
				t.Fatalf("waiting for the slice of %s %s: %v", svc, what, err)
			}
			if ev.Object.Labels[reconciler.LabelServiceName] == svc && check(ev.Type, ev.Object) {
				return ev.Object, others
			}
			others = append(others, fmt.Sprintf("%s %s (service %s)", ev.Type, ev.Object.Name, ev.Object.Labels[reconciler.LabelServiceName]))
		}
	}

	mkPod := func(name, ip string, ready api.ConditionStatus) *api.Pod {
		p, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"app": "web"}},
			Spec: api.PodSpec{NodeName: node, Containers: []api.Container{{Name: "c", Image: "nginx",
				Ports: []api.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: "TCP"}}}}}})
		if err != nil {
			t.Fatal(err)
		}
		p.Status = api.PodStatus{Phase: api.PodRunning, PodIP: ip, PodIPs: []api.PodIP{{IP: ip}},
			Conditions: []api.PodCondition{{Type: api.PodReady, Status: ready, LastTransitionTime: api.NewTime(time.Now())}}}
		if p, err = pods.UpdateStatus(ctx, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mkPod("ready", "10.244.0.1", api.ConditionTrue)
	unready := mkPod("unready", "10.244.0.2", api.ConditionFalse)
	mkPod("terminating", "10.244.0.3", api.ConditionTrue)
	// Bound to a node without a kubelet, the pod stays terminating.
	if err := pods.Delete(ctx, "terminating", rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		zero := int64(0)
		_ = pods.Delete(context.Background(), "terminating", rest.DeleteOptions{GracePeriodSeconds: &zero})
	}()
	mkService := func(name string) *api.Service {
		s, err := services.Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Name: name},
			Spec: api.ServiceSpec{Selector: map[string]string{"app": "web"},
				Ports: []api.ServicePort{{Name: "http", Port: 80, Protocol: "TCP", TargetPort: api.IntOrStringFromString("http")}}}})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	first := ctrltest.Start(t, ctx, base, Descriptor(), 2)
	web := mkService("web")

	got, _ := waitFor("web", "with three endpoints", func(_ rest.EventType, s *api.EndpointSlice) bool { return len(s.Endpoints) == 3 })
	if want := []string{"10.244.0.1(ready,rTsTtF)", "10.244.0.2(unready,rFsFtF)", "10.244.0.3(terminating,rFsTtT)"}; !slices.Equal(endpoints(got), want) {
		t.Errorf("endpoints %q, want %q", endpoints(got), want)
	}
	for _, e := range got.Endpoints {
		if deref(e.Zone) != "zone-a" || deref(e.NodeName) != node {
			t.Errorf("endpoint %v: zone %q node %q, want zone-a and %s", e.Addresses, deref(e.Zone), deref(e.NodeName), node)
		}
	}
	if len(got.Ports) != 1 || deref(got.Ports[0].Port) != 8080 || deref(got.Ports[0].Name) != "http" {
		t.Errorf("ports %+v, want http:8080 (the named targetPort resolved)", got.Ports)
	}
	if got.Labels[reconciler.LabelManagedBy] != ControllerName || len(got.OwnerReferences) != 1 || got.OwnerReferences[0].UID != web.UID ||
		!strings.HasPrefix(got.Name, "web-") {
		t.Errorf("slice %s labels %v owners %+v", got.Name, got.Labels, got.OwnerReferences)
	}

	// The unready pod turns ready: the slice is updated in place.
	unready.Status.Conditions[0].Status = api.ConditionTrue
	if _, err := pods.UpdateStatus(ctx, unready); err != nil {
		t.Fatal(err)
	}
	updated, _ := waitFor("web", "with the pod ready", func(typ rest.EventType, s *api.EndpointSlice) bool {
		return typ == rest.Modified && slices.Contains(endpoints(s), "10.244.0.2(unready,rTsTtF)")
	})
	if updated.Name != got.Name {
		t.Errorf("the readiness change wrote slice %s, want an update of %s", updated.Name, got.Name)
	}

	// A fresh controller, one worker: its full resync writes nothing
	// before the barrier Service's slice.
	first.Stop(t)
	ctrltest.Start(t, ctx, base, Descriptor(), 1)
	mkService("barrier-1")
	if _, before := waitFor("barrier-1", "created", func(typ rest.EventType, _ *api.EndpointSlice) bool { return typ == rest.Added }); len(before) != 0 {
		t.Errorf("the resync of an unchanged Service wrote %q", before)
	}

	// The Service goes: its slice stays for the garbage collector.
	if err := services.Delete(ctx, "web", rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	mkService("barrier-2")
	if _, before := waitFor("barrier-2", "created", func(typ rest.EventType, _ *api.EndpointSlice) bool { return typ == rest.Added }); len(before) != 0 {
		t.Errorf("the Service's deletion wrote %q, want its slice left to the garbage collector", before)
	}
	if _, err := eps.Get(ctx, got.Name); err != nil {
		t.Errorf("the deleted Service's slice: %v, want it still there", err)
	}
}

// endpoints shows a slice's endpoints as address(pod,conditions), sorted.
func endpoints(s *api.EndpointSlice) []string {
	var out []string
	for _, e := range s.Endpoints {
		name := ""
		if e.TargetRef != nil {
			name = e.TargetRef.Name
		}
		out = append(out, fmt.Sprintf("%s(%s,%s)", strings.Join(e.Addresses, "+"), name, conds(e.Conditions)))
	}
	slices.Sort(out)
	return out
}

// TestEventsOnRealAPIServer: the controller's Events reach the apiserver
// with kube-controller-manager's source component,
// endpoint-slice-controller. A Service asking for topology hints
// (service.kubernetes.io/topology-mode: Auto) in a cluster with one zone
// gets the Warning TopologyAwareHintsDisabled (the topology cache is on,
// as in kube-controller-manager 1.37).
func TestEventsOnRealAPIServer(t *testing.T) {
	cl := testenv.Shared(t)
	base, err := rest.NewClient(cl.ManagerConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer base.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := cl.Namespace(t)

	nodes := rest.NewResources(base, rest.Nodes, decode.Typed[api.Node]())
	node := "es-node-" + ns[len(ns)-5:]
	if _, err := nodes.Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: node, Labels: map[string]string{topology.LabelTopologyZone: "zone-a"}}}); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = nodes.Delete(context.Background(), node, rest.DeleteOptions{}) }()
	events := rest.NewResources(base, rest.Events, decode.Typed[api.CoreEvent]()).InNamespace(ns)
	start, err := events.List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := events.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: start.ResourceVersion, TimeoutSeconds: 110}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	ctrltest.Start(t, ctx, base, Descriptor(), 1)
	pods := rest.NewResources(base, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)
	p, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{NodeName: node, Containers: []api.Container{{Name: "c", Image: "nginx"}}}})
	if err != nil {
		t.Fatal(err)
	}
	p.Status = api.PodStatus{Phase: api.PodRunning, PodIP: "10.244.1.1", PodIPs: []api.PodIP{{IP: "10.244.1.1"}},
		Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(time.Now())}}}
	if _, err := pods.UpdateStatus(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := rest.NewResources(base, rest.Services, decode.Typed[api.Service]()).InNamespace(ns).Create(ctx, &api.Service{
		ObjectMeta: api.ObjectMeta{Name: "hinted", Annotations: map[string]string{"service.kubernetes.io/topology-mode": "Auto"}},
		Spec:       api.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []api.ServicePort{{Port: 80, Protocol: "TCP"}}}}); err != nil {
		t.Fatal(err)
	}
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("waiting for the TopologyAwareHintsDisabled Event: %v", err)
		}
		e := ev.Object
		if e.InvolvedObject.Kind != "Service" || e.InvolvedObject.Name != "hinted" || e.Reason != "TopologyAwareHintsDisabled" {
			continue
		}
		if e.Type != api.EventTypeWarning || e.Source.Component != Component || Component != "endpoint-slice-controller" {
			t.Errorf("event %s %s from %q: %s; want a Warning from endpoint-slice-controller", e.Type, e.Reason, e.Source.Component, e.Message)
		}
		return
	}
}
