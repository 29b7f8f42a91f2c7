package api_test

import (
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// TestEndpointSliceJSON: an EndpointSlice as kube-apiserver serves it
// decodes into the modelled fields (optional ports and conditions stay
// pointers, hints keep their zones) and encodes back without a wrong or
// dropped field.
func TestEndpointSliceJSON(t *testing.T) {
	const slice = `{"kind":"EndpointSlice","apiVersion":"discovery.k8s.io/v1","metadata":{"name":"web-abcde",
	"generateName":"web-","namespace":"team-a","uid":"e1","resourceVersion":"9","generation":2,
	"creationTimestamp":"2025-09-01T08:00:01Z",
	"labels":{"endpointslice.kubernetes.io/managed-by":"endpointslice-controller.k8s.io","kubernetes.io/service-name":"web"},
	"annotations":{"endpoints.kubernetes.io/last-change-trigger-time":"2025-09-01T08:00:05Z"},
	"ownerReferences":[{"apiVersion":"v1","kind":"Service","name":"web","uid":"s1","controller":true,"blockOwnerDeletion":true}]},
	"addressType":"IPv4",
	"endpoints":[{"addresses":["10.0.0.1"],"conditions":{"ready":true,"serving":true,"terminating":false},
	"hostname":"web-0","targetRef":{"kind":"Pod","namespace":"team-a","name":"web-0","uid":"p1"},"nodeName":"n1","zone":"z1",
	"hints":{"forZones":[{"name":"z1"}]}},
	{"addresses":["10.0.0.2"],"conditions":{"ready":false,"serving":true,"terminating":true},"nodeName":"n2",
	"deprecatedTopology":{"x":"y"}}],
	"ports":[{"name":"http","protocol":"TCP","port":8080,"appProtocol":"http"},{"name":"","protocol":"UDP","port":53}]}`
	for _, c := range apiCodecs {
		s, out := apiRoundTrip[api.EndpointSlice](t, c, slice)
		e := s.Endpoints
		if s.AddressType != api.AddressTypeIPv4 || len(e) != 2 || e[0].Addresses[0] != "10.0.0.1" ||
			!*e[0].Conditions.Ready || *e[0].Conditions.Terminating || *e[0].Hostname != "web-0" ||
			e[0].TargetRef.UID != "p1" || *e[0].Zone != "z1" || e[0].Hints.ForZones[0].Name != "z1" ||
			*e[1].Conditions.Ready || !*e[1].Conditions.Terminating || e[1].Zone != nil ||
			len(s.Ports) != 2 || *s.Ports[0].Name != "http" || *s.Ports[1].Port != 53 || *s.Ports[1].Name != "" ||
			s.OwnerReferences[0].Kind != "Service" {
			t.Errorf("%s: %+v", c.name, s)
		}
		wrong, dropped := apiDiffPaths(t, slice, out)
		apiMustEqualPaths(t, c.name+": slice wrong", wrong, nil)
		apiMustEqualPaths(t, c.name+": slice dropped", dropped, []string{".endpoints[1].deprecatedTopology"})
	}
}
