package endpointslicemirroring

import (
	"slices"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// TestPortHashTextIsSpews: the text kcm hashes to order a slice's ports is
// what k8s.io/utils/dump.ForHash prints for the same k8s.io/api
// discovery/v1 EndpointPort (the want strings were printed by it, go-spew
// v1.1.2, k8s.io/api v0.37.2), and the resulting orders are the ones
// k8s.io/endpointslice v0.37.2 NewPortMapKey leaves its argument in.
func TestPortHashTextIsSpews(t *testing.T) {
	s := func(v string) *string { return &v }
	p := func(v int32) *int32 { return &v }
	for _, tc := range []struct {
		port api.EndpointSlicePort
		want string
	}{
		{api.EndpointSlicePort{Name: s("http"), Protocol: s("TCP"), Port: p(80), AppProtocol: s("h2c")},
			"(v1.EndpointPort){Name:(*string)http Protocol:(*v1.Protocol)TCP Port:(*int32)80 AppProtocol:(*string)h2c}"},
		{api.EndpointSlicePort{Name: s(""), Protocol: s("UDP"), Port: p(53)},
			"(v1.EndpointPort){Name:(*string) Protocol:(*v1.Protocol)UDP Port:(*int32)53 AppProtocol:(*string)<nil>}"},
		{api.EndpointSlicePort{},
			"(v1.EndpointPort){Name:(*string)<nil> Protocol:(*v1.Protocol)<nil> Port:(*int32)<nil> AppProtocol:(*string)<nil>}"},
	} {
		if got := portHashText(tc.port); got != tc.want {
			t.Errorf("hash text\n got %s\nwant %s", got, tc.want)
		}
	}
	for _, tc := range []struct {
		in   []api.EndpointPort
		want []string
	}{
		{[]api.EndpointPort{{Name: "http", Port: 80, Protocol: "TCP"}, {Name: "https", Port: 443, Protocol: "TCP"}}, []string{"https", "http"}},
		{[]api.EndpointPort{{Name: "https", Port: 443, Protocol: "UDP"}, {Name: "http", Port: 80, Protocol: "TCP"}}, []string{"http", "https"}},
		{[]api.EndpointPort{{Name: "a", Port: 1, Protocol: "TCP"}, {Name: "b", Port: 2, Protocol: "TCP"}, {Name: "c", Port: 3, Protocol: "UDP"}}, []string{"c", "b", "a"}},
		{[]api.EndpointPort{{Name: "http", Port: 80, Protocol: "TCP", AppProtocol: s("h2c")}, {Port: 53, Protocol: "UDP"}}, []string{"", "http"}},
	} {
		var got []string
		for _, sp := range slicePorts(tc.in) {
			got = append(got, *sp.Name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("ports %v written in order %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestEndpointIdentity follows hashEndpoint and EndpointsEqualBeyondHash:
// identity is addresses, hostname and targetRef namespace/name; other
// fields but hints and the targetRef's resourceVersion make two endpoints
// of one identity differ.
func TestEndpointIdentity(t *testing.T) {
	yes, no := true, false
	h1, h2, n1, n2 := "h1", "h2", "n1", "n2"
	base := api.Endpoint{Addresses: []string{"10.0.0.1"}, Hostname: &h1, NodeName: &n1, Conditions: api.EndpointConditions{Ready: &yes},
		TargetRef: &api.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "p", UID: "u", ResourceVersion: "1"}}
	with := func(f func(*api.Endpoint)) api.Endpoint {
		e := base
		r := *base.TargetRef
		e.TargetRef = &r
		f(&e)
		return e
	}
	for _, tc := range []struct {
		name         string
		other        api.Endpoint
		sameID, same bool
	}{
		{"identical", with(func(*api.Endpoint) {}), true, true},
		{"another address", with(func(e *api.Endpoint) { e.Addresses = []string{"10.0.0.2"} }), false, false},
		{"another hostname", with(func(e *api.Endpoint) { e.Hostname = &h2 }), false, false},
		{"another pod", with(func(e *api.Endpoint) { e.TargetRef.Name = "q" }), false, false},
		{"another node", with(func(e *api.Endpoint) { e.NodeName = &n2 }), true, false},
		{"no node", with(func(e *api.Endpoint) { e.NodeName = nil }), true, false},
		{"not ready", with(func(e *api.Endpoint) { e.Conditions.Ready = &no }), true, false},
		{"serving set", with(func(e *api.Endpoint) { e.Conditions.Serving = &yes }), true, false},
		{"a zone", with(func(e *api.Endpoint) { e.Zone = &n1 }), true, false},
		{"another pod uid", with(func(e *api.Endpoint) { e.TargetRef.UID = "v" }), true, false},
		{"another resourceVersion", with(func(e *api.Endpoint) { e.TargetRef.ResourceVersion = "2" }), true, true},
		{"hints", with(func(e *api.Endpoint) { e.Hints = &api.EndpointHints{ForZones: []api.ForZone{{Name: "z"}}} }), true, true},
	} {
		if id := endpointID(&base) == endpointID(&tc.other); id != tc.sameID {
			t.Errorf("%s: same identity %v, want %v", tc.name, id, tc.sameID)
		}
		if tc.sameID {
			if same := sameBeyondID(&base, &tc.other); same != tc.same {
				t.Errorf("%s: equal beyond identity %v, want %v", tc.name, same, tc.same)
			}
		}
	}
}
