package endpointslice

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kcmlab/kcm/ctrl/endpointslice/reconciler"
	"github.com/kcmlab/kcm/ctrl/endpointslice/topology"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// fixture is the sample-controller test shape: objects loaded into the
// listers and into the recording fake apiserver, which answers the sync's
// writes.
type fixture struct {
	t        *testing.T
	services []*api.Service
	pods     []*api.Pod
	slices   []*api.EndpointSlice
	nodes    []*api.Node
	api      *resttest.Server
	events   *resttest.Events
	enqueued []string
	topology *topology.Cache
	metrics  *reconciler.Metrics
	c        *Controller
}

// newFixture has the Node node-1, which the pods run on.
func newFixture(t *testing.T) *fixture {
	return &fixture{t: t, api: resttest.New(t, resttest.Options{}), events: &resttest.Events{},
		nodes: []*api.Node{{ObjectMeta: api.ObjectMeta{Name: "node-1"}}}}
}

// controller loads the server and the listers and builds the controller
// once; later calls return the same one (its trackers carry over).
func (f *fixture) controller() *Controller {
	if f.c == nil {
		resttest.Add(f.api, rest.Services, f.services...)
		resttest.Add(f.api, rest.Pods, f.pods...)
		resttest.Add(f.api, rest.EndpointSlices, f.slices...)
		resttest.Add(f.api, rest.Nodes, f.nodes...)
		f.c = NewController(informer.ServiceLister{Lister: resttest.Lister("services", f.services...)},
			informer.PodLister{Lister: resttest.Lister("pods", f.pods...)},
			informer.EndpointSliceLister{Lister: resttest.Lister("endpointslices", f.slices...)},
			f.api.Client(), Config{Recorder: f.events, Nodes: resttest.Lister("nodes", f.nodes...), Topology: f.topology, Metrics: f.metrics,
				Enqueue: func(k string) { f.enqueued = append(f.enqueued, k) }})
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

// caughtUp reloads the controller's listers from the server: its
// informers have seen every write.
func (f *fixture) caughtUp() {
	c := f.controller()
	c.services = informer.ServiceLister{Lister: resttest.ListerFrom[*api.Service](f.api, rest.Services)}
	c.pods = informer.PodLister{Lister: resttest.ListerFrom[*api.Pod](f.api, rest.Pods)}
	c.slices = informer.EndpointSliceLister{Lister: resttest.ListerFrom[*api.EndpointSlice](f.api, rest.EndpointSlices)}
}

// stored are the server's EndpointSlices of namespace ns, by name.
func (f *fixture) stored(ns string) []*api.EndpointSlice {
	out := resttest.List[*api.EndpointSlice](f.api, rest.EndpointSlices, ns)
	slices.SortFunc(out, func(a, b *api.EndpointSlice) int { return strings.Compare(a.Name, b.Name) })
	return out
}

var t0 = time.Date(2025, 9, 1, 8, 0, 0, 0, time.UTC)

var web = map[string]string{"app": "web"}

func service(name string, selector map[string]string) *api.Service {
	return &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name, UID: "svc-uid-" + name, CreationTimestamp: api.NewTime(t0)},
		Spec: api.ServiceSpec{Selector: selector, ClusterIP: "10.96.0.10", IPFamilies: []string{api.IPv4Protocol},
			Ports: []api.ServicePort{{Name: "http", Protocol: "TCP", Port: 80, TargetPort: api.IntOrStringFromInt(8080)}}}}
}

// pod is a running pod on node-1 with one IP, ready or not, labelled
// app=web, whose Ready condition moved at t0+1m, at resourceVersion 1.
func pod(name, ip string, ready bool) *api.Pod {
	status := api.ConditionFalse
	if ready {
		status = api.ConditionTrue
	}
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name, UID: "uid-" + name, ResourceVersion: "1", Labels: map[string]string{"app": "web"}},
		Spec:       api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "c"}}},
		Status: api.PodStatus{Phase: api.PodRunning, PodIP: ip, PodIPs: []api.PodIP{{IP: ip}},
			Conditions: []api.PodCondition{{Type: api.PodReady, Status: status, LastTransitionTime: api.NewTime(t0.Add(time.Minute))}}},
	}
}

// with applies changes to an object and returns it.
func with[T any](o T, change func(T)) T { change(o); return o }

// slice is an EndpointSlice of Service svc in namespace ns labelled as
// managed by managedBy, with a uid and generation.
func slice(name, svc, managedBy, uid string, generation int64) *api.EndpointSlice {
	l := map[string]string{}
	if svc != "" {
		l[reconciler.LabelServiceName] = svc
	}
	if managedBy != "" {
		l[reconciler.LabelManagedBy] = managedBy
	}
	return &api.EndpointSlice{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name, UID: uid, Generation: generation,
		ResourceVersion: "7", Labels: l}, AddressType: api.AddressTypeIPv4}
}

// recorded is a keyQueue that records each key with its delay.
type recorded struct {
	mu   sync.Mutex
	keys []string
}

func (r *recorded) Add(k string) { r.AddAfter(k, 0) }
func (r *recorded) AddAfter(k string, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys = append(r.keys, fmt.Sprintf("%s after %v", k, d))
}

// take returns the recorded keys, sorted, and forgets them.
func (r *recorded) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.keys
	r.keys = nil
	slices.Sort(out)
	return out
}

// show writes a slice compactly: its addressType, ports and endpoints as
// address(pod,ready/serving/terminating).
func show(s *api.EndpointSlice) string {
	var ports []string
	for _, p := range s.Ports {
		ports = append(ports, fmt.Sprintf("%s:%d/%s", deref(p.Name), deref(p.Port), deref(p.Protocol)))
	}
	var eps []string
	for _, e := range s.Endpoints {
		who := ""
		if e.TargetRef != nil {
			who = e.TargetRef.Name
		}
		eps = append(eps, fmt.Sprintf("%s(%s,%s)", strings.Join(e.Addresses, "+"), who, conds(e.Conditions)))
	}
	slices.Sort(eps)
	return fmt.Sprintf("%s [%s] %s", s.AddressType, strings.Join(ports, " "), strings.Join(eps, " "))
}

func conds(c api.EndpointConditions) string {
	b := func(p *bool) string {
		if p == nil {
			return "-"
		}
		if *p {
			return "T"
		}
		return "F"
	}
	return "r" + b(c.Ready) + "s" + b(c.Serving) + "t" + b(c.Terminating)
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
