package topology

import (
	"encoding/json"
	"testing"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
)

// epOpt changes an endpoint built by ep.
type epOpt func(*api.Endpoint)

// ep builds a ready endpoint at addr.
func ep(addr string, opts ...epOpt) api.Endpoint {
	e := api.Endpoint{Addresses: []string{addr}, Conditions: api.EndpointConditions{Ready: ptr(true)}}
	for _, o := range opts {
		o(&e)
	}
	return e
}

func zone(z string) epOpt     { return func(e *api.Endpoint) { e.Zone = ptr(z) } }
func node(n string) epOpt     { return func(e *api.Endpoint) { e.NodeName = ptr(n) } }
func notReady() epOpt         { return func(e *api.Endpoint) { e.Conditions.Ready = ptr(false) } }
func readyUnknown() epOpt     { return func(e *api.Endpoint) { e.Conditions.Ready = nil } }
func zoneHint(z string) epOpt { return func(e *api.Endpoint) { addZoneHint(e, z) } }
func nodeHint(n string) epOpt {
	return func(e *api.Endpoint) {
		if e.Hints == nil {
			e.Hints = &api.EndpointHints{}
		}
		e.Hints.ForNodes = append(e.Hints.ForNodes, api.ForNode{Name: n})
	}
}
func emptyHints() epOpt { return func(e *api.Endpoint) { e.Hints = &api.EndpointHints{} } }

func addZoneHint(e *api.Endpoint, z string) {
	if e.Hints == nil {
		e.Hints = &api.EndpointHints{}
	}
	e.Hints.ForZones = append(e.Hints.ForZones, api.ForZone{Name: z})
}

// slice builds an IPv4 EndpointSlice named name.
func slice(name string, eps ...api.Endpoint) *api.EndpointSlice {
	return &api.EndpointSlice{
		ObjectMeta:  api.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{"kubernetes.io/service-name": "svc"}},
		AddressType: api.AddressTypeIPv4,
		Endpoints:   eps,
	}
}

func list(s ...*api.EndpointSlice) []*api.EndpointSlice { return s }

func ptr[T any](v T) *T { return &v }

// names lists the slices' names, to compare lists.
func names(ss []*api.EndpointSlice) []string {
	out := []string{}
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

// jsonOf renders v for comparisons and failure messages.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// cloneAll copies slices so a test can compare what a call did with what
// it was given.
func cloneAll(ss []*api.EndpointSlice) []*api.EndpointSlice {
	out := []*api.EndpointSlice{}
	for _, s := range ss {
		out = append(out, cloneSlice(s))
	}
	return out
}

// nodeOpt changes a node built by mkNode.
type nodeOpt func(*api.Node)

// mkNode builds a Ready node in zone z (no label when z is "") with cpu
// allocatable CPU (none when cpu is "").
func mkNode(name, z, cpu string, opts ...nodeOpt) *api.Node {
	n := &api.Node{ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{}}}
	if z != "" {
		n.Labels[LabelTopologyZone] = z
	}
	n.Status.Allocatable = api.ResourceList{"memory": "1Gi"}
	if cpu != "" {
		n.Status.Allocatable["cpu"] = cpu
	}
	n.Status.Conditions = []api.NodeCondition{{Type: "MemoryPressure", Status: api.ConditionFalse}, {Type: "Ready", Status: api.ConditionTrue}}
	for _, o := range opts {
		o(n)
	}
	return n
}

func nodeNotReady() nodeOpt {
	return func(n *api.Node) { n.Status.Conditions[1].Status = api.ConditionFalse }
}
func nodeLabel(k string) nodeOpt { return func(n *api.Node) { n.Labels[k] = "" } }

// cacheWith returns a cache that has seen nodes.
func cacheWith(nodes ...*api.Node) *Cache {
	c := NewCache()
	c.SetNodes(zerolog.Nop(), nodes)
	return c
}

// twoZones: zones a and b with equal CPU.
func twoZones() *Cache { return cacheWith(mkNode("n1", "a", "2"), mkNode("n2", "b", "2")) }

// threeZones: a 35%, b 35%, c 30% of the CPU.
func threeZones() *Cache {
	return cacheWith(mkNode("n1", "a", "3500m"), mkNode("n2", "b", "3500m"), mkNode("n3", "c", "3"))
}

func warning(msg string) Event {
	return Event{Type: api.EventTypeWarning, Reason: ReasonHintsDisabled, Message: msg + ", addressType: IPv4"}
}

func enabled() Event {
	return Event{Type: api.EventTypeNormal, Reason: ReasonHintsEnabled, Message: TopologyAwareHintsEnabled + ", addressType: IPv4"}
}
