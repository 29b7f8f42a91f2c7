//go:build !nocluster

package endpointslicemirroring

import (
	"context"
	"maps"
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
// built by its descriptor, the factory started, the loop run (one worker,
// so keys are synced in the order their events came) — on kube-apiserver,
// the test writing Endpoints as a user does for a Service without a
// selector:
//
//   - the user's Endpoints gets a slice with its addresses, labelled,
//     annotated and owned by the Endpoints;
//   - an update of the Endpoints changes the slice;
//   - labelling the Endpoints endpointslice.kubernetes.io/skip-mirror=true
//     deletes the slice, removing the label brings it back;
//   - the Service gaining a selector deletes the slice;
//   - the Endpoints of a Service with a selector, made before all this,
//     never got one;
//   - deleting the Endpoints deletes the slice.
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

	ctrltest.Start(t, ctx, base, Descriptor(), 1)

	services := rest.NewResources(base, rest.Services, decode.Typed[api.Service]()).InNamespace(ns)
	endpointsClient := rest.NewResources(base, rest.Endpoints, decode.Typed[api.Endpoints]()).InNamespace(ns)
	slicesClient := rest.NewResources(base, rest.EndpointSlices, decode.Typed[api.EndpointSlice]()).InNamespace(ns)

	start, err := slicesClient.List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := slicesClient.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: start.ResourceVersion, TimeoutSeconds: 110}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// waitFor returns the first slice event of type want for the Endpoints
	// "db" that passes check.
	waitFor := func(want rest.EventType, what string, check func(*api.EndpointSlice) bool) *api.EndpointSlice {
		t.Helper()
		for {
			ev, err := w.Next()
			if err != nil {
				t.Fatalf("waiting for the slice %s: %v", what, err)
			}
			if ev.Object.Labels[LabelServiceName] == "selected" {
				t.Fatalf("a slice was mirrored for the Endpoints of a Service with a selector: %s %s", ev.Type, ev.Object.Name)
			}
			if ev.Type == want && ev.Object.Labels[LabelServiceName] == "db" && check(ev.Object) {
				return ev.Object
			}
		}
	}
	ips := func(s *api.EndpointSlice) []string {
		var out []string
		for _, ep := range s.Endpoints {
			r := "ready"
			if !*ep.Conditions.Ready {
				r = "notready"
			}
			out = append(out, ep.Addresses[0]+"/"+r)
		}
		slices.Sort(out)
		return out
	}
	port := []api.ServicePort{{Name: "pg", Port: 5432, Protocol: "TCP"}}
	epPort := []api.EndpointPort{{Name: "pg", Port: 5432, Protocol: "TCP"}}

	// A Service with a selector and an Endpoints of its name, made first:
	// never mirrored.
	if _, err := services.Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Name: "selected"},
		Spec: api.ServiceSpec{Selector: map[string]string{"app": "x"}, Ports: port}}); err != nil {
		t.Fatal(err)
	}
	if _, err := endpointsClient.Create(ctx, &api.Endpoints{ObjectMeta: api.ObjectMeta{Name: "selected"},
		Subsets: []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "10.10.0.1"}}, Ports: epPort}}}); err != nil {
		t.Fatal(err)
	}

	// The user's Service without a selector, and its Endpoints.
	if _, err := services.Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Name: "db"}, Spec: api.ServiceSpec{Ports: port}}); err != nil {
		t.Fatal(err)
	}
	eps, err := endpointsClient.Create(ctx, &api.Endpoints{
		ObjectMeta: api.ObjectMeta{Name: "db", Labels: map[string]string{"team": "data"},
			Annotations: map[string]string{"note": "by hand", AnnotationLastAppliedConfig: "{}"}},
		Subsets: []api.EndpointSubset{{
			Addresses:         []api.EndpointAddress{{IP: "192.168.10.1"}, {IP: "192.168.10.2"}},
			NotReadyAddresses: []api.EndpointAddress{{IP: "192.168.10.3"}},
			Ports:             epPort,
		}}})
	if err != nil {
		t.Fatal(err)
	}
	s := waitFor(rest.Added, "mirrored", func(*api.EndpointSlice) bool { return true })
	if got, want := ips(s), []string{"192.168.10.1/ready", "192.168.10.2/ready", "192.168.10.3/notready"}; !slices.Equal(got, want) {
		t.Errorf("endpoints %q, want %q", got, want)
	}
	if want := map[string]string{"team": "data", LabelServiceName: "db", LabelManagedBy: ControllerName}; !maps.Equal(s.Labels, want) {
		t.Errorf("labels %v, want %v", s.Labels, want)
	}
	if want := map[string]string{"note": "by hand"}; !maps.Equal(s.Annotations, want) {
		t.Errorf("annotations %v, want %v", s.Annotations, want)
	}
	if len(s.OwnerReferences) != 1 || s.OwnerReferences[0].Kind != "Endpoints" || s.OwnerReferences[0].UID != eps.UID {
		t.Errorf("ownerReferences %+v, want the Endpoints %s", s.OwnerReferences, eps.UID)
	}
	if s.AddressType != api.AddressTypeIPv4 || len(s.Ports) != 1 || *s.Ports[0].Port != 5432 {
		t.Errorf("addressType %s ports %+v", s.AddressType, s.Ports)
	}

	// The user replaces an address: the slice follows, in place.
	eps.Subsets[0].Addresses[1].IP = "192.168.10.4"
	if eps, err = endpointsClient.Update(ctx, eps); err != nil {
		t.Fatal(err)
	}
	waitFor(rest.Modified, "updated", func(u *api.EndpointSlice) bool {
		return u.Name == s.Name && slices.Equal(ips(u), []string{"192.168.10.1/ready", "192.168.10.3/notready", "192.168.10.4/ready"})
	})

	// skip-mirror=true: the slice goes; without it, a slice comes back.
	eps.Labels[LabelSkipMirror] = "true"
	if eps, err = endpointsClient.Update(ctx, eps); err != nil {
		t.Fatal(err)
	}
	waitFor(rest.Deleted, "deleted for skip-mirror", func(*api.EndpointSlice) bool { return true })
	delete(eps.Labels, LabelSkipMirror)
	if eps, err = endpointsClient.Update(ctx, eps); err != nil {
		t.Fatal(err)
	}
	waitFor(rest.Added, "back without skip-mirror", func(*api.EndpointSlice) bool { return true })

	// The Service gains a selector: its Endpoints are no longer the user's.
	svc, err := services.Get(ctx, "db")
	if err != nil {
		t.Fatal(err)
	}
	svc.Spec.Selector = map[string]string{"app": "db"}
	if _, err := services.Update(ctx, svc); err != nil {
		t.Fatal(err)
	}
	waitFor(rest.Deleted, "deleted when the Service gained a selector", func(*api.EndpointSlice) bool { return true })
	svc, err = services.Get(ctx, "db")
	if err != nil {
		t.Fatal(err)
	}
	svc.Spec.Selector = nil
	if _, err := services.Update(ctx, svc); err != nil {
		t.Fatal(err)
	}
	waitFor(rest.Added, "back when the selector went", func(*api.EndpointSlice) bool { return true })

	// The Endpoints goes: so does its slice (the controller deletes it;
	// no garbage collector runs here).
	if err := endpointsClient.Delete(ctx, "db", rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(rest.Deleted, "deleted with the Endpoints", func(*api.EndpointSlice) bool { return true })

	// The "selected" Endpoints' key was synced before the later db syncs
	// (one worker, its event first): it has no slice.
	left, err := slicesClient.List(ctx, rest.ListOptions{LabelSelector: LabelServiceName + "=selected"})
	if err != nil {
		t.Fatal(err)
	}
	if len(left.Items) != 0 {
		t.Fatalf("%d slices for the Service with a selector, want none", len(left.Items))
	}
}
