package endpointslicemirroring

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// fixture is the sample-controller test shape: objects loaded into the
// listers and into the recording fake apiserver, which answers the sync's
// writes.
type fixture struct {
	t            *testing.T
	endpoints    []*api.Endpoints
	services     []*api.Service
	slices       []*api.EndpointSlice
	maxPerSubset int32
	api          *resttest.Server
	events       *resttest.Events
	c            *Controller
}

func newFixture(t *testing.T) *fixture {
	return &fixture{t: t, api: resttest.New(t, resttest.Options{}), events: &resttest.Events{}}
}

// controller loads the server and the listers and builds the controller
// once; later calls return the same one (its tracker carries over).
func (f *fixture) controller() *Controller {
	if f.c == nil {
		resttest.Add(f.api, rest.Endpoints, f.endpoints...)
		resttest.Add(f.api, rest.Services, f.services...)
		resttest.Add(f.api, rest.EndpointSlices, f.slices...)
		f.c = NewController(informer.EndpointsLister{Lister: resttest.Lister("endpoints", f.endpoints...)},
			informer.EndpointSliceLister{Lister: resttest.Lister("endpointslices", f.slices...)},
			informer.ServiceLister{Lister: resttest.Lister("services", f.services...)},
			f.api.Client(), Config{Recorder: f.events, MaxEndpointsPerSubset: f.maxPerSubset})
	}
	return f.c
}

// run syncs key once and returns the actions and the error.
func (f *fixture) run(key string) ([]resttest.Action, error) {
	f.t.Helper()
	c := f.controller()
	_, err := c.Sync(context.Background(), key)
	return f.api.Take(), err
}

// writes are the actions but the reads.
func writes(actions []resttest.Action) []string {
	var out []string
	for _, a := range actions {
		if a.Verb != "get" && a.Verb != "list" {
			out = append(out, a.String())
		}
	}
	return out
}

// caughtUp reloads the controller's listers from the server: its
// informers have seen every write.
func (f *fixture) caughtUp() {
	c := f.controller()
	c.endpoints = informer.EndpointsLister{Lister: resttest.ListerFrom[*api.Endpoints](f.api, rest.Endpoints)}
	c.slices = informer.EndpointSliceLister{Lister: resttest.ListerFrom[*api.EndpointSlice](f.api, rest.EndpointSlices)}
	c.services = informer.ServiceLister{Lister: resttest.ListerFrom[*api.Service](f.api, rest.Services)}
}

// stored are the EndpointSlices the server holds in ns, by name.
func (f *fixture) stored() []*api.EndpointSlice {
	ss := resttest.List[*api.EndpointSlice](f.api, rest.EndpointSlices, "ns")
	slices.SortFunc(ss, func(a, b *api.EndpointSlice) int { return strings.Compare(a.Name, b.Name) })
	return ss
}

// selectorless is a Service without a selector, as a user makes one to
// point at endpoints of their own.
func selectorless(name string) *api.Service {
	return &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name, UID: "svc-" + name},
		Spec: api.ServiceSpec{ClusterIP: "10.96.0.10", Ports: []api.ServicePort{{Name: "http", Port: 80, Protocol: "TCP"}}}}
}

// withSelector is a Service whose Endpoints the endpoints controller owns.
func withSelector(name string) *api.Service {
	s := selectorless(name)
	s.Spec.Selector = map[string]string{"app": name}
	return s
}

// endpoints is an Endpoints object with uid "uid-<name>".
func endpoints(name string, subsets ...api.EndpointSubset) *api.Endpoints {
	return &api.Endpoints{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name, UID: "uid-" + name, ResourceVersion: "3"}, Subsets: subsets}
}

// subset builds a subset from "ip" (ready), "!ip" (not ready) and
// "name:port/proto" entries.
func subset(items ...string) api.EndpointSubset {
	var s api.EndpointSubset
	for _, it := range items {
		switch {
		case strings.Contains(it, "/"):
			np, proto, _ := strings.Cut(it, "/")
			name, p, _ := strings.Cut(np, ":")
			var port int32
			fmt.Sscan(p, &port)
			s.Ports = append(s.Ports, api.EndpointPort{Name: name, Port: port, Protocol: proto})
		case strings.HasPrefix(it, "!"):
			s.NotReadyAddresses = append(s.NotReadyAddresses, api.EndpointAddress{IP: it[1:]})
		default:
			s.Addresses = append(s.Addresses, api.EndpointAddress{IP: it})
		}
	}
	return s
}

// mirroredSlice is a slice as this controller writes it for eps, named
// name, with the given endpoints ("ip" ready, "!ip" not ready) and ports.
func mirroredSlice(eps *api.Endpoints, name, addressType string, ports []api.EndpointPort, eips ...string) *api.EndpointSlice {
	s := newSlice(eps, slicePorts(ports), addressType, name)
	s.GenerateName = ""
	s.UID = "uid-" + name
	s.ResourceVersion = "2"
	s.Generation = 1
	for _, ip := range eips {
		ready := !strings.HasPrefix(ip, "!")
		s.Endpoints = append(s.Endpoints, api.Endpoint{Addresses: []string{strings.TrimPrefix(ip, "!")},
			Conditions: api.EndpointConditions{Ready: &ready}})
	}
	return s
}

// show writes a slice compactly: "<type> [name:port/proto ...] ip ip(!ready) ...".
func show(s *api.EndpointSlice) string {
	var b strings.Builder
	b.WriteString(s.AddressType)
	b.WriteString(" [")
	for i, p := range s.Ports {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s:%d/%s", deref(p.Name), derefInt(p.Port), deref(p.Protocol))
	}
	b.WriteByte(']')
	for _, ep := range s.Endpoints {
		b.WriteByte(' ')
		b.WriteString(strings.Join(ep.Addresses, ","))
		if ep.Conditions.Ready == nil || !*ep.Conditions.Ready {
			b.WriteString("(!ready)")
		}
	}
	return b.String()
}

func showAll(ss []*api.EndpointSlice) []string {
	out := []string{}
	for _, s := range ss {
		out = append(out, show(s))
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func derefInt(p *int32) int32 {
	if p == nil {
		return -1
	}
	return *p
}

func ptr[T any](v T) *T { return &v }
