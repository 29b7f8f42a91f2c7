package reconciler

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/ctrl/endpointslice/topology"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// fixture is the sample-controller test shape for the reconciler: a
// recording fake apiserver holding the existing slices, a node lister,
// a metrics registry, an event recorder and one Reconciler whose tracker
// and metrics carry over between reconciles.
type fixture struct {
	t        *testing.T
	api      *resttest.Server
	events   *resttest.Events
	reg      *prometheus.Registry
	metrics  *Metrics
	tracker  *Tracker
	nodes    []*api.Node
	max      int32
	topology *topology.Cache
	r        *Reconciler
}

func newFixture(t *testing.T) *fixture {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, api: resttest.New(t, resttest.Options{}), events: &resttest.Events{}, reg: reg, metrics: m,
		tracker: NewTracker(), nodes: []*api.Node{node("node-1", "zone-a")}}
}

// reconciler builds the Reconciler once.
func (f *fixture) reconciler() *Reconciler {
	if f.r == nil {
		f.r = New(Config{Client: f.api.Client(), Nodes: resttest.Lister("nodes", f.nodes...), MaxEndpointsPerSlice: f.max,
			Tracker: f.tracker, Topology: f.topology, Recorder: f.events, Metrics: f.metrics})
	}
	return f.r
}

// load stores slices on the server as the cache would hold them (uid and
// resourceVersion filled in) and returns them as read back.
func (f *fixture) load(slices ...*api.EndpointSlice) []*api.EndpointSlice {
	f.t.Helper()
	resttest.Add(f.api, rest.EndpointSlices, slices...)
	return f.stored()
}

// reconcile runs one Reconcile and returns the actions it made.
func (f *fixture) reconcile(svc *api.Service, pods []*api.Pod, existing []*api.EndpointSlice) ([]resttest.Action, error) {
	f.t.Helper()
	err := f.reconciler().Reconcile(context.Background(), svc, pods, existing, time.Time{})
	return f.api.Take(), err
}

// stored returns the slices the server holds in namespace "ns", by name.
func (f *fixture) stored() []*api.EndpointSlice {
	return resttest.List[*api.EndpointSlice](f.api, rest.EndpointSlices, "ns")
}

var t0 = time.Date(2025, 9, 1, 8, 0, 0, 0, time.UTC)

func node(name, zone string) *api.Node {
	n := &api.Node{ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{}}}
	if zone != "" {
		n.Labels[LabelTopologyZone] = zone
	}
	return n
}

// service is a ClusterIP IPv4 Service "ns/foo" selecting app=web, with
// one port "http" 80 → 8080 unless ports are given.
func service(ports ...api.ServicePort) *api.Service {
	if len(ports) == 0 {
		ports = []api.ServicePort{port("http", 80, api.IntOrStringFromInt(8080))}
	}
	return &api.Service{
		ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "foo", UID: "svc-uid", CreationTimestamp: api.NewTime(t0)},
		Spec: api.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: ports, ClusterIP: "10.96.0.10",
			ClusterIPs: []string{"10.96.0.10"}, IPFamilies: []string{api.IPv4Protocol}},
	}
}

func port(name string, num int32, target api.IntOrString) api.ServicePort {
	return api.ServicePort{Name: name, Protocol: "TCP", Port: num, TargetPort: target}
}

// pod is pod i: "pod<i>" on node-1 with IPv4 10.0.<i/250>.<i%250+1> and
// IPv6 fd00::<i+1> when dualStack, Ready or not, its container declaring
// the given ports ("name=8080").
func pod(i int, ready bool, containerPorts ...string) *api.Pod {
	status := api.ConditionFalse
	if ready {
		status = api.ConditionTrue
	}
	ip := fmt.Sprintf("10.0.%d.%d", i/250, i%250+1)
	p := &api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("pod%d", i), UID: fmt.Sprintf("uid-%d", i),
			ResourceVersion: "1", Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "c"}}},
		Status: api.PodStatus{Phase: api.PodRunning, PodIP: ip, PodIPs: []api.PodIP{{IP: ip}},
			Conditions: []api.PodCondition{{Type: api.PodReady, Status: status}}},
	}
	for _, cp := range containerPorts {
		n, v, _ := strings.Cut(cp, "=")
		var num int32
		fmt.Sscan(v, &num)
		p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, api.ContainerPort{Name: n, ContainerPort: num, Protocol: "TCP"})
	}
	return p
}

// pods returns pods 0..n-1, every third one not ready (upstream's tests'
// shape).
func pods(n int) []*api.Pod {
	out := make([]*api.Pod, n)
	for i := range out {
		out[i] = pod(i, i%3 != 0)
	}
	return out
}

func with[T any](x T, change func(T)) T { change(x); return x }

// existingSlice is a slice of svc named name, as this controller would
// have written it, holding the endpoints of pods for the given ports.
func existingSlice(svc *api.Service, name string, ports []api.EndpointSlicePort, ps ...*api.Pod) *api.EndpointSlice {
	s := New(Config{}).newSlice(svc, ports, api.AddressTypeIPv4)
	s.Name, s.GenerateName = name, ""
	for _, p := range ps {
		s.Endpoints = append(s.Endpoints, podToEndpoint(p, node("node-1", "zone-a"), svc, api.AddressTypeIPv4))
	}
	return s
}

// httpPorts are the slice ports of service()'s default port.
func httpPorts() []api.EndpointSlicePort { return []api.EndpointSlicePort{slicePort("http", 8080)} }

func slicePort(name string, num int32) api.EndpointSlicePort {
	proto := "TCP"
	return api.EndpointSlicePort{Name: &name, Port: &num, Protocol: &proto}
}

// lengths are the numbers of endpoints of the slices, sorted.
func lengths(ss []*api.EndpointSlice) []int {
	out := make([]int, 0, len(ss))
	for _, s := range ss {
		out = append(out, len(s.Endpoints))
	}
	slices.Sort(out)
	return out
}

// verbs are the actions' one-line forms up to the name (resttest's lines
// without generated names).
func verbs(actions []resttest.Action) []string {
	out := make([]string, len(actions))
	for i, a := range actions {
		out[i] = a.Verb + " " + a.Resource
	}
	return out
}

// showEndpoint writes an endpoint compactly: addresses, pod, conditions
// as r/s/t (ready, serving, terminating; "-" when false), node, zone,
// hostname and hints when set.
func showEndpoint(ep api.Endpoint) string {
	flag := func(b *bool, c string) string {
		switch {
		case b == nil:
			return "?"
		case *b:
			return c
		}
		return "-"
	}
	s := strings.Join(ep.Addresses, ",")
	if ep.TargetRef != nil {
		s += "(" + ep.TargetRef.Name + ")"
	}
	s += " " + flag(ep.Conditions.Ready, "r") + flag(ep.Conditions.Serving, "s") + flag(ep.Conditions.Terminating, "t")
	if ep.NodeName != nil {
		s += " node=" + *ep.NodeName
	}
	if ep.Zone != nil {
		s += " zone=" + *ep.Zone
	}
	if ep.Hostname != nil {
		s += " host=" + *ep.Hostname
	}
	if ep.Hints != nil {
		var zs []string
		for _, z := range ep.Hints.ForZones {
			zs = append(zs, z.Name)
		}
		s += " hints=" + strings.Join(zs, ",")
	}
	return s
}

// showPorts writes slice ports as name:port/proto.
func showPorts(ps []api.EndpointSlicePort) string {
	var out []string
	for _, p := range ps {
		n, num, proto := "<nil>", "<nil>", "<nil>"
		if p.Name != nil {
			n = *p.Name
		}
		if p.Port != nil {
			num = fmt.Sprint(*p.Port)
		}
		if p.Protocol != nil {
			proto = *p.Protocol
		}
		out = append(out, n+":"+num+"/"+proto)
	}
	return "[" + strings.Join(out, " ") + "]"
}

// showSlice is "<addressType> <ports> <endpoint>; <endpoint>...".
func showSlice(s *api.EndpointSlice) string {
	var eps []string
	for _, ep := range s.Endpoints {
		eps = append(eps, showEndpoint(ep))
	}
	return s.AddressType + " " + showPorts(s.Ports) + " " + strings.Join(eps, "; ")
}

func showSlices(ss []*api.EndpointSlice) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = showSlice(s)
	}
	slices.Sort(out)
	return out
}

func equalLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}
