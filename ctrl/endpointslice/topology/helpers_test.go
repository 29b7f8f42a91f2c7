package topology

import (
	"encoding/json"
	"testing"

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
