package endpointset

import (
	"slices"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

func podEndpoint(name, ip string) *api.Endpoint {
	return &api.Endpoint{Addresses: []string{ip}, TargetRef: &api.ObjectReference{Kind: "Pod", Namespace: "ns", Name: name}}
}

func names(eps []*api.Endpoint) []string {
	var out []string
	for _, ep := range eps {
		out = append(out, ep.TargetRef.Name)
	}
	return out
}

// TestSetOrder: kcm's deterministic stand-in for upstream's PopAny —
// Pop and List go in the order keys were first inserted; an insert of a
// present key replaces the endpoint in its place; Remove drops it.
func TestSetOrder(t *testing.T) {
	var s Set
	for i, n := range []string{"pod0", "pod1", "pod2", "pod3"} {
		s.Insert(podEndpoint(n, "10.0.0."+string(rune('1'+i))))
	}
	node := "n1"
	replaced := podEndpoint("pod0", "10.0.0.1")
	replaced.NodeName = &node
	s.Insert(replaced)
	s.Remove(podEndpoint("pod1", "10.0.0.2"))
	if got := names(s.List()); !slices.Equal(got, []string{"pod0", "pod2", "pod3"}) || s.Len() != 3 {
		t.Fatalf("listed %q (len %d)", got, s.Len())
	}
	if s.Get(podEndpoint("pod0", "10.0.0.1")) != replaced || s.Get(podEndpoint("pod1", "10.0.0.2")) != nil {
		t.Error("Get does not return the latest insert of a key, or returns a removed one")
	}
	var popped []*api.Endpoint
	for s.Len() > 0 {
		popped = append(popped, s.Pop())
	}
	if got := names(popped); !slices.Equal(got, []string{"pod0", "pod2", "pod3"}) {
		t.Errorf("popped %q", got)
	}
	if s.Pop() != nil || len(s.List()) != 0 {
		t.Error("an empty set pops or lists something")
	}
}

// TestPortMapKey: the same ports in any order, nil or empty, give the
// same key (NewPortMapKey normalises nil to empty and sorts); other ports
// another; NewPortMapKey leaves its argument as it was, SortPorts sorts it
// into Kubernetes' order.
func TestPortMapKey(t *testing.T) {
	port := func(name string, num int32) api.EndpointSlicePort {
		proto := "TCP"
		return api.EndpointSlicePort{Name: &name, Port: &num, Protocol: &proto}
	}
	a, b := port("http", 80), port("https", 443)
	in := []api.EndpointSlicePort{a, b}
	if NewPortMapKey(in) != NewPortMapKey([]api.EndpointSlicePort{b, a}) {
		t.Error("order changes the key")
	}
	if *in[0].Name != "http" {
		t.Error("NewPortMapKey reordered its argument (a cached slice's ports)")
	}
	if NewPortMapKey(nil) != NewPortMapKey([]api.EndpointSlicePort{}) {
		t.Error("nil and empty ports differ")
	}
	if NewPortMapKey([]api.EndpointSlicePort{a}) == NewPortMapKey([]api.EndpointSlicePort{b}) {
		t.Error("different ports, same key")
	}
	if k := SortPorts(in); k != NewPortMapKey(in) || *in[0].Name != "https" {
		t.Errorf("SortPorts left %s first (Kubernetes writes https:443 before http:80)", *in[0].Name)
	}
}
