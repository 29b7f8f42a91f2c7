package api_test

import (
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// TestServiceAndEndpointsJSON: a Service and its Endpoints as
// kube-apiserver serves them decode into the modelled fields (a named
// targetPort stays a string, a headless clusterIP "None") and encode back
// without a wrong or dropped field.
func TestServiceAndEndpointsJSON(t *testing.T) {
	const svc = `{"kind":"Service","apiVersion":"v1","metadata":{"name":"web","namespace":"team-a","uid":"s1",
	"resourceVersion":"7","creationTimestamp":"2025-09-01T08:00:01Z","labels":{"app":"web"}},
	"spec":{"ports":[{"name":"http","protocol":"TCP","appProtocol":"http","port":80,"targetPort":"http"},
	{"name":"metrics","protocol":"TCP","port":9090,"targetPort":9090,"nodePort":30090}],
	"selector":{"app":"web"},"clusterIP":"None","clusterIPs":["None"],"type":"ClusterIP",
	"publishNotReadyAddresses":true,"ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack","trafficDistribution":"PreferClose",
	"sessionAffinity":"None","internalTrafficPolicy":"Cluster","allocateLoadBalancerNodePorts":false},"status":{"loadBalancer":{}}}`
	const eps = `{"kind":"Endpoints","apiVersion":"v1","metadata":{"name":"web","namespace":"team-a",
	"annotations":{"endpoints.kubernetes.io/last-change-trigger-time":"2025-09-01T08:00:05Z"},
	"labels":{"app":"web","endpoints.kubernetes.io/managed-by":"endpoint-controller","service.kubernetes.io/headless":""}},
	"subsets":[{"addresses":[{"ip":"10.0.0.1","hostname":"web-0","nodeName":"n1","targetRef":{"kind":"Pod","namespace":"team-a","name":"web-0","uid":"p1"}}],
	"notReadyAddresses":[{"ip":"10.0.0.2","nodeName":"n2","targetRef":{"kind":"Pod","namespace":"team-a","name":"web-1","uid":"p2"}}],
	"ports":[{"name":"http","port":8080,"protocol":"TCP","appProtocol":"http"}]}]}`
	for _, c := range apiCodecs {
		s, out := apiRoundTrip[api.Service](t, c, svc)
		p := s.Spec.Ports
		if len(p) != 2 || !p[0].TargetPort.IsString() || p[0].TargetPort.StrValue() != "http" || p[1].TargetPort.IntValue() != 9090 ||
			*p[0].AppProtocol != "http" || s.Spec.ClusterIP != api.ClusterIPNone || !s.Spec.PublishNotReadyAddresses ||
			s.Spec.Selector["app"] != "web" || s.Spec.IPFamilies[0] != api.IPv4Protocol || *s.Spec.AllocateLoadBalancerNodePorts {
			t.Errorf("%s: %+v", c.name, s)
		}
		wrong, dropped := apiDiffPaths(t, svc, out)
		apiMustEqualPaths(t, c.name+": service wrong", wrong, nil)
		apiMustEqualPaths(t, c.name+": service dropped", dropped,
			[]string{".spec.internalTrafficPolicy", ".spec.sessionAffinity", ".status"})

		e, out := apiRoundTrip[api.Endpoints](t, c, eps)
		ss := e.Subsets
		if len(ss) != 1 || ss[0].Addresses[0].Hostname != "web-0" || *ss[0].NotReadyAddresses[0].NodeName != "n2" ||
			ss[0].NotReadyAddresses[0].TargetRef.UID != "p2" || ss[0].Ports[0].Port != 8080 {
			t.Errorf("%s: %+v", c.name, e)
		}
		wrong, dropped = apiDiffPaths(t, eps, out)
		apiMustEqualPaths(t, c.name+": endpoints wrong", wrong, nil)
		apiMustEqualPaths(t, c.name+": endpoints dropped", dropped, nil)
	}
}
