package reconciler

import (
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// TestPortHashTextIsSpews: the text kcm hashes to order a slice's ports
// is what k8s.io/utils/dump.ForHash prints for the same k8s.io/api
// discovery/v1 EndpointPort, and so are the hashes (the want strings were
// printed by dump.ForHash and FNV-128a with k8s.io/api v0.37.2, go-spew
// v1.1.2): kcm writes ports in kube-controller-manager's order
// (NewPortMapKey's portsInOrder).
func TestPortHashTextIsSpews(t *testing.T) {
	s := func(v string) *string { return &v }
	app := slicePort("metrics", 9090)
	app.AppProtocol = s("h2c")
	for _, tc := range []struct {
		p          api.EndpointSlicePort
		text, hash string
	}{
		{slicePort("http", 8080), "(v1.EndpointPort){Name:(*string)http Protocol:(*v1.Protocol)TCP Port:(*int32)8080 AppProtocol:(*string)<nil>}",
			"0e874d5677090ee5c32afa85f637c347"},
		{app, "(v1.EndpointPort){Name:(*string)metrics Protocol:(*v1.Protocol)TCP Port:(*int32)9090 AppProtocol:(*string)h2c}",
			"26b2f7033f1fb7e7ded38efcea2316ca"},
		{api.EndpointSlicePort{}, "(v1.EndpointPort){Name:(*string)<nil> Protocol:(*v1.Protocol)<nil> Port:(*int32)<nil> AppProtocol:(*string)<nil>}",
			"ad866eb7cd5162a9e20434ebd9deeacd"},
	} {
		if got := portHashText(tc.p); got != tc.text {
			t.Errorf("hash text\n got %s\nwant %s", got, tc.text)
		}
		if got := sortPortsByHash([]api.EndpointSlicePort{tc.p}); got[0] != tc.hash {
			t.Errorf("hash of %s = %s, want %s", tc.text, got[0], tc.hash)
		}
	}
	// Sorted by hash: 0e87… (http) before 26b2… (metrics) before ad86….
	ports := []api.EndpointSlicePort{{}, app, slicePort("http", 8080)}
	sortPortsByHash(ports)
	if got := showPorts(ports); got != "[http:8080/TCP metrics:9090/TCP <nil>:<nil>/<nil>]" {
		t.Errorf("sorted ports %s", got)
	}
}

// TestPortMapKey: the same ports in any order, nil or empty, give the
// same key (NewPortMapKey normalises nil to empty and sorts); other ports
// another; the ports given are not reordered.
func TestPortMapKey(t *testing.T) {
	a, b := slicePort("a", 1), slicePort("b", 2)
	in := []api.EndpointSlicePort{b, a}
	if newPortMapKey(in) != newPortMapKey([]api.EndpointSlicePort{a, b}) {
		t.Error("order changes the key")
	}
	if *in[0].Name != "b" {
		t.Error("newPortMapKey reordered its argument (a cached slice's ports)")
	}
	if newPortMapKey(nil) != newPortMapKey([]api.EndpointSlicePort{}) {
		t.Error("nil and empty ports differ")
	}
	if newPortMapKey([]api.EndpointSlicePort{a}) == newPortMapKey([]api.EndpointSlicePort{b}) {
		t.Error("different ports, same key")
	}
}

// TestEndpointKey follows util's hashEndpoint: addresses (as a set),
// hostname and the pod's namespace/name identify an endpoint; its
// conditions, node, zone and the pod's uid do not (they are compared by
// endpointsEqualBeyondKey, so a change updates the endpoint in place).
func TestEndpointKey(t *testing.T) {
	svc := service()
	base := podToEndpoint(pod(0, true), node("node-1", "zone-a"), svc, api.AddressTypeIPv4)
	host := "h"
	for _, tc := range []struct {
		name       string
		change     func(*api.Endpoint)
		sameKey    bool
		equalOther bool
	}{
		{"identical", func(*api.Endpoint) {}, true, true},
		{"not ready", func(e *api.Endpoint) { f := false; e.Conditions.Ready = &f }, true, false},
		{"terminating", func(e *api.Endpoint) { v := true; e.Conditions.Terminating = &v }, true, false},
		{"serving unset", func(e *api.Endpoint) { e.Conditions.Serving = nil }, true, false},
		{"zone", func(e *api.Endpoint) { z := "zone-b"; e.Zone = &z }, true, false},
		{"node", func(e *api.Endpoint) { e.NodeName = nil }, true, false},
		{"pod uid (re-created pod of the same name)", func(e *api.Endpoint) { r := *e.TargetRef; r.UID = "other"; e.TargetRef = &r }, true, false},
		{"pod resourceVersion only", func(e *api.Endpoint) { r := *e.TargetRef; r.ResourceVersion = "9"; e.TargetRef = &r }, true, true},
		{"hints are not compared here", func(e *api.Endpoint) { e.Hints = &api.EndpointHints{ForZones: []api.ForZone{{Name: "z"}}} }, true, true},
		{"address", func(e *api.Endpoint) { e.Addresses = []string{"10.0.0.9"} }, false, true},
		{"hostname", func(e *api.Endpoint) { e.Hostname = &host }, false, true},
		{"pod name", func(e *api.Endpoint) { r := *e.TargetRef; r.Name = "x"; e.TargetRef = &r }, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			c.Addresses = append([]string(nil), base.Addresses...)
			tc.change(&c)
			if got := keyOf(&c) == keyOf(&base); got != tc.sameKey {
				t.Errorf("same key = %v, want %v", got, tc.sameKey)
			}
			if got := endpointsEqualBeyondKey(&c, &base); got != tc.equalOther {
				t.Errorf("equal beyond key = %v, want %v", got, tc.equalOther)
			}
		})
	}
	two := base
	two.Addresses = []string{"10.0.0.2", "10.0.0.1"}
	rev := base
	rev.Addresses = []string{"10.0.0.1", "10.0.0.2"}
	if keyOf(&two) != keyOf(&rev) {
		t.Error("address order changes the key")
	}
	if two.Addresses[0] != "10.0.0.2" {
		t.Error("keyOf sorted the endpoint's addresses in place")
	}
}

// TestEndpointSetPopsInInsertionOrder: kcm's deterministic stand-in for
// upstream's PopAny.
func TestEndpointSetPopsInInsertionOrder(t *testing.T) {
	s := newEndpointSet()
	svc := service()
	var eps []api.Endpoint
	for i := 0; i < 4; i++ {
		eps = append(eps, podToEndpoint(pod(i, true), nil, svc, api.AddressTypeIPv4))
	}
	for i := range eps {
		s.insert(&eps[i])
	}
	s.remove(&eps[1])
	var got []string
	for s.len() > 0 {
		got = append(got, s.pop().TargetRef.Name)
	}
	equalLines(t, "popped", got, []string{"pod0", "pod2", "pod3"})
	if s.pop() != nil {
		t.Error("pop of an empty set")
	}
}
