package reconciler

import (
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// TestSamePlaceholder follows TestPlaceHolderSliceCompare: of the
// metadata only the namespace and labels count (an absent label equals an
// empty one, as apimachinery's map lookups read it; owner references are
// not compared), then the address type, endpoints and ports.
func TestSamePlaceholder(t *testing.T) {
	meta := func(m api.ObjectMeta) *api.EndpointSlice { return &api.EndpointSlice{ObjectMeta: m} }
	for _, tc := range []struct {
		name string
		x, y *api.EndpointSlice
		want bool
	}{
		{"both empty", &api.EndpointSlice{}, &api.EndpointSlice{}, true},
		{"only the name differs", meta(api.ObjectMeta{Name: "foo"}), meta(api.ObjectMeta{Name: "bar"}), true},
		{"labels differ", meta(api.ObjectMeta{Labels: map[string]string{"foo": "true"}}), meta(api.ObjectMeta{Labels: map[string]string{"bar": "true"}}), false},
		{"creation time differs", meta(api.ObjectMeta{CreationTimestamp: api.NewTime(t0)}), meta(api.ObjectMeta{}), true},
		{"an empty label equals an absent one", meta(api.ObjectMeta{Labels: map[string]string{LabelHeadless: ""}}), meta(api.ObjectMeta{}), true},
		{"owner references are not compared", meta(api.ObjectMeta{OwnerReferences: []api.OwnerReference{{UID: "a"}}}), meta(api.ObjectMeta{}), true},
		{"namespace differs", meta(api.ObjectMeta{Namespace: "a"}), meta(api.ObjectMeta{Namespace: "b"}), false},
		{"address type differs", &api.EndpointSlice{AddressType: api.AddressTypeIPv4}, &api.EndpointSlice{AddressType: api.AddressTypeIPv6}, false},
		{"empty and absent ports alike", &api.EndpointSlice{Ports: []api.EndpointSlicePort{}}, &api.EndpointSlice{}, true},
		{"ports differ", &api.EndpointSlice{Ports: httpPorts()}, &api.EndpointSlice{}, false},
		{"endpoints differ", &api.EndpointSlice{Endpoints: []api.Endpoint{{Addresses: []string{"10.0.0.1"}}}}, &api.EndpointSlice{}, false},
	} {
		if got := samePlaceholder(tc.x, tc.y); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
