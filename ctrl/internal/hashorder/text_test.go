package hashorder

import (
	"slices"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

func str(v string) *string { return &v }

// TestHashTextIsSpews: the texts kcm hashes are what
// k8s.io/utils/dump.ForHash prints for the same k8s.io/api values (the
// want strings, and the hashes, were printed by it and FNV-128a with
// go-spew v1.1.2 and k8s.io/api v0.37.2): core/v1 EndpointPort and
// EndpointSubset (nil and empty slices, nil and set pointers, a
// targetRef) and discovery/v1 EndpointPort.
func TestHashTextIsSpews(t *testing.T) {
	p := api.EndpointPort{Name: "http", Port: 8080, Protocol: "TCP", AppProtocol: str("h2c")}
	for _, tc := range []struct{ got, want string }{
		{EndpointPortText(p), "(v1.EndpointPort){Name:(string)http Port:(int32)8080 Protocol:(v1.Protocol)TCP AppProtocol:(*string)h2c}"},
		{EndpointPortText(api.EndpointPort{Port: 53, Protocol: "UDP"}), "(v1.EndpointPort){Name:(string) Port:(int32)53 Protocol:(v1.Protocol)UDP AppProtocol:(*string)<nil>}"},
		{SubsetText(api.EndpointSubset{
			Addresses: []api.EndpointAddress{{IP: "10.0.0.1", Hostname: "web-0", NodeName: str("n1"),
				TargetRef: &api.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "web-0", UID: "u1"}}, {IP: "10.0.0.3", NodeName: str("")}},
			Ports: []api.EndpointPort{p, {Port: 53, Protocol: "UDP"}},
		}), "(v1.EndpointSubset){Addresses:([]v1.EndpointAddress)[{IP:(string)10.0.0.1 Hostname:(string)web-0 NodeName:(*string)n1 TargetRef:(*v1.ObjectReference){Kind:(string)Pod Namespace:(string)ns Name:(string)web-0 UID:(types.UID)u1 APIVersion:(string) ResourceVersion:(string) FieldPath:(string)}} {IP:(string)10.0.0.3 Hostname:(string) NodeName:(*string) TargetRef:(*v1.ObjectReference)<nil>}] NotReadyAddresses:([]v1.EndpointAddress)<nil> Ports:([]v1.EndpointPort)[{Name:(string)http Port:(int32)8080 Protocol:(v1.Protocol)TCP AppProtocol:(*string)h2c} {Name:(string) Port:(int32)53 Protocol:(v1.Protocol)UDP AppProtocol:(*string)<nil>}]}"},
		{SubsetText(api.EndpointSubset{NotReadyAddresses: []api.EndpointAddress{{IP: "10.0.0.2"}}, Ports: []api.EndpointPort{}}),
			"(v1.EndpointSubset){Addresses:([]v1.EndpointAddress)<nil> NotReadyAddresses:([]v1.EndpointAddress)[{IP:(string)10.0.0.2 Hostname:(string) NodeName:(*string)<nil> TargetRef:(*v1.ObjectReference)<nil>}] Ports:([]v1.EndpointPort)[]}"},
	} {
		if tc.got != tc.want {
			t.Errorf("hash text\n got %s\nwant %s", tc.got, tc.want)
		}
	}
	for _, tc := range []struct {
		p          api.EndpointSlicePort
		text, hash string
	}{
		{slicePort("http", "TCP", 8080), "(v1.EndpointPort){Name:(*string)http Protocol:(*v1.Protocol)TCP Port:(*int32)8080 AppProtocol:(*string)<nil>}",
			"0e874d5677090ee5c32afa85f637c347"},
		{withApp(slicePort("metrics", "TCP", 9090), "h2c"), "(v1.EndpointPort){Name:(*string)metrics Protocol:(*v1.Protocol)TCP Port:(*int32)9090 AppProtocol:(*string)h2c}",
			"26b2f7033f1fb7e7ded38efcea2316ca"},
		{slicePort("", "UDP", 53), "(v1.EndpointPort){Name:(*string) Protocol:(*v1.Protocol)UDP Port:(*int32)53 AppProtocol:(*string)<nil>}", ""},
		{api.EndpointSlicePort{}, "(v1.EndpointPort){Name:(*string)<nil> Protocol:(*v1.Protocol)<nil> Port:(*int32)<nil> AppProtocol:(*string)<nil>}",
			"ad866eb7cd5162a9e20434ebd9deeacd"},
	} {
		if got := SlicePortText(tc.p); got != tc.text {
			t.Errorf("hash text\n got %s\nwant %s", got, tc.text)
		}
		if got := Hash(tc.text); tc.hash != "" && got != tc.hash {
			t.Errorf("hash of %s = %s, want %s", tc.text, got, tc.hash)
		}
	}
}

func slicePort(name, protocol string, num int32) api.EndpointSlicePort {
	return api.EndpointSlicePort{Name: &name, Port: &num, Protocol: &protocol}
}

func withApp(p api.EndpointSlicePort, app string) api.EndpointSlicePort {
	p.AppProtocol = &app
	return p
}

// TestSortIsKubernetesOrder: the orders in which
// k8s.io/endpointslice v0.37.2 NewPortMapKey leaves the ports it is given
// (and so the order slices are written with), and Sort's hashes.
func TestSortIsKubernetesOrder(t *testing.T) {
	for _, tc := range []struct {
		in   []api.EndpointSlicePort
		want []string
	}{
		{[]api.EndpointSlicePort{{}, withApp(slicePort("metrics", "TCP", 9090), "h2c"), slicePort("http", "TCP", 8080)},
			[]string{"http", "metrics", "<nil>"}},
		{[]api.EndpointSlicePort{slicePort("http", "TCP", 80), slicePort("https", "TCP", 443)}, []string{"https", "http"}},
		{[]api.EndpointSlicePort{slicePort("https", "UDP", 443), slicePort("http", "TCP", 80)}, []string{"http", "https"}},
		{[]api.EndpointSlicePort{slicePort("a", "TCP", 1), slicePort("b", "TCP", 2), slicePort("c", "UDP", 3)}, []string{"c", "b", "a"}},
		{[]api.EndpointSlicePort{withApp(slicePort("http", "TCP", 80), "h2c"), slicePort("", "UDP", 53)}, []string{"", "http"}},
	} {
		hashes := Sort(tc.in, SlicePortText)
		var got []string
		for _, p := range tc.in {
			if p.Name == nil {
				got = append(got, "<nil>")
			} else {
				got = append(got, *p.Name)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("sorted into %q, want %q", got, tc.want)
		}
		if !slices.IsSorted(hashes) || len(hashes) != len(tc.in) || hashes[0] != Hash(SlicePortText(tc.in[0])) {
			t.Errorf("hashes %q do not follow the sorted ports", hashes)
		}
	}
}
