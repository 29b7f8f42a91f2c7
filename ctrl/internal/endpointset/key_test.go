package endpointset

import (
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// TestKeyAndEqualBeyondKey follows util's hashEndpoint and
// EndpointsEqualBeyondHash: addresses (as a set), hostname and the pod's
// namespace/name identify an endpoint; its conditions, node, zone and the
// pod's uid do not, but make two endpoints of one Key differ; hints and
// the targetRef's resourceVersion are not compared at all.
func TestKeyAndEqualBeyondKey(t *testing.T) {
	yes, no := true, false
	h1, h2, n1, n2 := "h1", "h2", "n1", "n2"
	base := api.Endpoint{Addresses: []string{"10.0.0.1"}, Hostname: &h1, NodeName: &n1,
		Conditions: api.EndpointConditions{Ready: &yes, Serving: &yes, Terminating: &no},
		TargetRef:  &api.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "p", UID: "u", ResourceVersion: "1"}}
	with := func(f func(*api.Endpoint)) api.Endpoint {
		e := base
		r := *base.TargetRef
		e.TargetRef = &r
		e.Addresses = append([]string(nil), base.Addresses...)
		f(&e)
		return e
	}
	for _, tc := range []struct {
		name           string
		other          api.Endpoint
		sameKey, equal bool
	}{
		{"identical", with(func(*api.Endpoint) {}), true, true},
		{"another address", with(func(e *api.Endpoint) { e.Addresses = []string{"10.0.0.2"} }), false, true},
		{"another hostname", with(func(e *api.Endpoint) { e.Hostname = &h2 }), false, true},
		{"no hostname", with(func(e *api.Endpoint) { e.Hostname = nil }), false, true},
		{"another pod", with(func(e *api.Endpoint) { e.TargetRef.Name = "q" }), false, false},
		{"another node", with(func(e *api.Endpoint) { e.NodeName = &n2 }), true, false},
		{"no node", with(func(e *api.Endpoint) { e.NodeName = nil }), true, false},
		{"not ready", with(func(e *api.Endpoint) { e.Conditions.Ready = &no }), true, false},
		{"serving unset", with(func(e *api.Endpoint) { e.Conditions.Serving = nil }), true, false},
		{"terminating", with(func(e *api.Endpoint) { e.Conditions.Terminating = &yes }), true, false},
		{"a zone", with(func(e *api.Endpoint) { e.Zone = &n1 }), true, false},
		{"another pod uid (a re-created pod of the same name)", with(func(e *api.Endpoint) { e.TargetRef.UID = "v" }), true, false},
		{"another resourceVersion only", with(func(e *api.Endpoint) { e.TargetRef.ResourceVersion = "2" }), true, true},
		{"hints are not compared", with(func(e *api.Endpoint) { e.Hints = &api.EndpointHints{ForZones: []api.ForZone{{Name: "z"}}} }), true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := KeyOf(&base) == KeyOf(&tc.other); got != tc.sameKey {
				t.Errorf("same key = %v, want %v", got, tc.sameKey)
			}
			if got := EqualBeyondKey(&base, &tc.other); got != tc.equal {
				t.Errorf("equal beyond key = %v, want %v", got, tc.equal)
			}
		})
	}
	two := with(func(e *api.Endpoint) { e.Addresses = []string{"10.0.0.2", "10.0.0.1"} })
	rev := with(func(e *api.Endpoint) { e.Addresses = []string{"10.0.0.1", "10.0.0.2"} })
	if KeyOf(&two) != KeyOf(&rev) {
		t.Error("address order changes the key")
	}
	if two.Addresses[0] != "10.0.0.2" {
		t.Error("KeyOf sorted the endpoint's addresses in place")
	}
}
