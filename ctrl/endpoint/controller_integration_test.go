//go:build !nocluster

package endpoint

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

// TestOnRealAPIServer runs the controller the way the manager will —
// built by its descriptor, the factory started, the loop run — on
// kube-apiserver, the test writing pod status as a kubelet would (on a
// node that need not exist: kube-apiserver refuses an address whose
// nodeName is empty, so pods are bound as a scheduler would): a
// Service with a ready and an unready pod gets Endpoints with one address
// each in addresses and notReadyAddresses on the resolved named port,
// labelled and annotated; the pod turning ready moves its address; the
// Service's deletion deletes the Endpoints.
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

	ctrltest.Start(t, ctx, base, Descriptor(), 2)

	services := rest.NewResources(base, rest.Services, decode.Typed[api.Service]()).InNamespace(ns)
	pods := rest.NewResources(base, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)
	endpoints := rest.NewResources(base, rest.Endpoints, decode.Typed[api.Endpoints]()).InNamespace(ns)

	start, err := endpoints.List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := endpoints.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: start.ResourceVersion, TimeoutSeconds: 110}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// waitFor returns the first Endpoints "web" event of type want that
	// passes check.
	waitFor := func(want rest.EventType, what string, check func(*api.Endpoints) bool) *api.Endpoints {
		t.Helper()
		for {
			ev, err := w.Next()
			if err != nil {
				t.Fatalf("waiting for Endpoints web %s: %v", what, err)
			}
			if ev.Type == want && ev.Object.Name == "web" && check(ev.Object) {
				return ev.Object
			}
		}
	}

	mkPod := func(name, ip string, ready api.ConditionStatus) *api.Pod {
		p, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"app": "web"}},
			Spec: api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "c", Image: "nginx",
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
	if _, err := services.Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Name: "web", Labels: map[string]string{"tier": "front"}},
		Spec: api.ServiceSpec{Selector: map[string]string{"app": "web"},
			Ports: []api.ServicePort{{Name: "http", Port: 80, Protocol: "TCP", TargetPort: api.IntOrStringFromString("http")}}}}); err != nil {
		t.Fatal(err)
	}

	ips := func(as []api.EndpointAddress) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.IP+"/"+a.TargetRef.Name)
		}
		return out
	}
	both := waitFor(rest.Added, "with both pods", func(e *api.Endpoints) bool {
		return len(e.Subsets) == 1 && len(e.Subsets[0].Addresses) == 1 && len(e.Subsets[0].NotReadyAddresses) == 1
	})
	s := both.Subsets[0]
	if got := ips(s.Addresses); !slices.Equal(got, []string{"10.244.0.1/ready"}) {
		t.Errorf("addresses %q, want the ready pod", got)
	}
	if got := ips(s.NotReadyAddresses); !slices.Equal(got, []string{"10.244.0.2/unready"}) {
		t.Errorf("notReadyAddresses %q, want the unready pod", got)
	}
	if len(s.Ports) != 1 || s.Ports[0].Port != 8080 || s.Ports[0].Name != "http" {
		t.Errorf("ports %+v, want http:8080 (the named targetPort resolved)", s.Ports)
	}
	if both.Labels[LabelManagedBy] != ManagedByValue || both.Labels["tier"] != "front" || both.Annotations[AnnotationLastChangeTriggerTime] == "" {
		t.Errorf("labels %v annotations %v", both.Labels, both.Annotations)
	}

	// The unready pod turns ready: both addresses ready.
	unready.Status.Conditions[0].Status = api.ConditionTrue
	if _, err := pods.UpdateStatus(ctx, unready); err != nil {
		t.Fatal(err)
	}
	waitFor(rest.Modified, "with both pods ready", func(e *api.Endpoints) bool {
		return len(e.Subsets) == 1 && len(e.Subsets[0].Addresses) == 2 && len(e.Subsets[0].NotReadyAddresses) == 0
	})

	if err := services.Delete(ctx, "web", rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(rest.Deleted, "deleted with its Service", func(*api.Endpoints) bool { return true })
}
