package endpointslicemirroring

import (
	"slices"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// TestSlicePorts: an Endpoints subset's ports become a slice's, every
// field copied, in the order k8s.io/endpointslice v0.37.2 NewPortMapKey
// leaves them (Kubernetes' hash order: ctrl/internal/hashorder's tests pin
// the texts and more orders).
func TestSlicePorts(t *testing.T) {
	app := "h2c"
	for _, tc := range []struct {
		in   []api.EndpointPort
		want []string
	}{
		{nil, nil},
		{[]api.EndpointPort{{Name: "http", Port: 80, Protocol: "TCP"}, {Name: "https", Port: 443, Protocol: "TCP"}}, []string{"https:443/TCP/", "http:80/TCP/"}},
		{[]api.EndpointPort{{Name: "http", Port: 80, Protocol: "TCP", AppProtocol: &app}, {Port: 53, Protocol: "UDP"}}, []string{":53/UDP/", "http:80/TCP/h2c"}},
	} {
		out := slicePorts(tc.in)
		var got []string
		for _, sp := range out {
			a := ""
			if sp.AppProtocol != nil {
				a = *sp.AppProtocol
			}
			got = append(got, *sp.Name+":"+itoa(int(*sp.Port))+"/"+*sp.Protocol+"/"+a)
		}
		if out == nil || !slices.Equal(got, tc.want) {
			t.Errorf("ports %v written as %q (nil: %v), want %q", tc.in, got, out == nil, tc.want)
		}
	}
}
