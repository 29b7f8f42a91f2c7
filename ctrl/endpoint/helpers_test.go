package endpoint

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// fixture is the sample-controller test shape: objects loaded into the
// listers and into the recording fake apiserver, which answers the sync's
// writes.
type fixture struct {
	t         *testing.T
	services  []*api.Service
	pods      []*api.Pod
	endpoints []*api.Endpoints
	api       *resttest.Server
	events    *resttest.Events
	c         *Controller
}

func newFixture(t *testing.T) *fixture {
	return &fixture{t: t, api: resttest.New(t, resttest.Options{}), events: &resttest.Events{}}
}

// controller loads the server and the listers and builds the controller
// once; later calls return the same one (its trackers carry over).
func (f *fixture) controller() *Controller {
	if f.c == nil {
		resttest.Add(f.api, rest.Services, f.services...)
		resttest.Add(f.api, rest.Pods, f.pods...)
		resttest.Add(f.api, rest.Endpoints, f.endpoints...)
		f.c = NewController(informer.ServiceLister{Lister: resttest.Lister("services", f.services...)},
			informer.PodLister{Lister: resttest.Lister("pods", f.pods...)},
			informer.EndpointsLister{Lister: resttest.Lister("endpoints", f.endpoints...)},
			f.api.Client(), Config{Recorder: f.events})
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
	c.endpoints = informer.EndpointsLister{Lister: resttest.ListerFrom[*api.Endpoints](f.api, rest.Endpoints)}
}

// stored is the Endpoints the server holds for ns/name.
func (f *fixture) stored(ns, name string) *api.Endpoints {
	f.t.Helper()
	e, ok := resttest.Get[*api.Endpoints](f.api, rest.Endpoints, ns, name)
	if !ok {
		f.t.Fatalf("no Endpoints %s/%s on the server", ns, name)
	}
	return e
}

var t0 = time.Date(2025, 9, 1, 8, 0, 0, 0, time.UTC)

func service(name string, selector map[string]string, ports ...api.ServicePort) *api.Service {
	return &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name, CreationTimestamp: api.NewTime(t0)},
		Spec: api.ServiceSpec{Selector: selector, Ports: ports, ClusterIP: "10.96.0.10", IPFamilies: []string{api.IPv4Protocol}}}
}

func port(name string, num int32, target api.IntOrString) api.ServicePort {
	return api.ServicePort{Name: name, Protocol: "TCP", Port: num, TargetPort: target}
}

var num = api.IntOrStringFromInt
var named = api.IntOrStringFromString

// pod is a running pod on node-1 with one IP, ready or not, labelled
// app=web, its container declaring the given ports ("name=8080").
func pod(name, ip string, ready bool, containerPorts ...string) *api.Pod {
	status := api.ConditionFalse
	if ready {
		status = api.ConditionTrue
	}
	p := &api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name, UID: "uid-" + name, ResourceVersion: "1", Labels: map[string]string{"app": "web"}},
		Spec:       api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "c"}}},
		Status: api.PodStatus{Phase: api.PodRunning, PodIP: ip, PodIPs: []api.PodIP{{IP: ip}},
			Conditions: []api.PodCondition{{Type: api.PodReady, Status: status, LastTransitionTime: api.NewTime(t0.Add(time.Minute))}}},
	}
	for _, cp := range containerPorts {
		n, v, _ := strings.Cut(cp, "=")
		var port int32
		fmt.Sscan(v, &port)
		p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, api.ContainerPort{Name: n, ContainerPort: port, Protocol: "TCP"})
	}
	return p
}

// with applies changes to a pod and returns it.
func with(p *api.Pod, change func(*api.Pod)) *api.Pod { change(p); return p }

var web = map[string]string{"app": "web"}

// show writes subsets compactly: one line per subset, "ready:" and
// "notready:" addresses as ip(pod[,host h]) and ports as name:port/proto.
func show(subsets []api.EndpointSubset) []string {
	var out []string
	addrs := func(as []api.EndpointAddress) string {
		var parts []string
		for _, a := range as {
			s := a.IP
			if a.TargetRef != nil {
				s += "(" + a.TargetRef.Name
				if a.Hostname != "" {
					s += ",host " + a.Hostname
				}
				s += ")"
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, " ")
	}
	for _, s := range subsets {
		var ps []string
		for _, p := range s.Ports {
			ps = append(ps, fmt.Sprintf("%s:%d/%s", p.Name, p.Port, p.Protocol))
		}
		out = append(out, fmt.Sprintf("ready:[%s] notready:[%s] ports:[%s]", addrs(s.Addresses), addrs(s.NotReadyAddresses), strings.Join(ps, " ")))
	}
	return out
}
