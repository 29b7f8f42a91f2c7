package endpoint

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// TestRepackMatchesUpstream: testdata/repack_upstream.json holds 40
// seeded random inputs (pods with one to twelve one-address subsets, zero
// to three ports each from five, ready or not, some with hostnames, some
// sharing an IP) and the output of k8s.io/kubernetes v1.37.2
// pkg/api/v1/endpoints RepackSubsets for each, written by a program run
// against that release outside this repository. kcm's RepackSubsets must
// give the same subsets in the same order: the same bytes on the wire.
func TestRepackMatchesUpstream(t *testing.T) {
	data, err := os.ReadFile("testdata/repack_upstream.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		In  []api.EndpointSubset `json:"in"`
		Out []api.EndpointSubset `json:"out"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) != 40 {
		t.Fatalf("%d cases, want 40", len(cases))
	}
	for i, c := range cases {
		got, _ := json.Marshal(RepackSubsets(c.In))
		want, _ := json.Marshal(c.Out)
		if string(got) != string(want) {
			t.Errorf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestHashTextIsSpews: the text kcm hashes to order ports and subsets is
// what k8s.io/utils/dump.ForHash prints for the same k8s.io/api v1 values
// (the want strings were printed by it, go-spew v1.1.2, k8s.io/api
// v0.37.2): nil and empty slices, nil and set pointers, a targetRef.
func TestHashTextIsSpews(t *testing.T) {
	s := func(v string) *string { return &v }
	p := api.EndpointPort{Name: "http", Port: 8080, Protocol: "TCP", AppProtocol: s("h2c")}
	for _, tc := range []struct{ got, want string }{
		{portHashText(p), "(v1.EndpointPort){Name:(string)http Port:(int32)8080 Protocol:(v1.Protocol)TCP AppProtocol:(*string)h2c}"},
		{portHashText(api.EndpointPort{Port: 53, Protocol: "UDP"}), "(v1.EndpointPort){Name:(string) Port:(int32)53 Protocol:(v1.Protocol)UDP AppProtocol:(*string)<nil>}"},
		{subsetHashText(api.EndpointSubset{
			Addresses: []api.EndpointAddress{{IP: "10.0.0.1", Hostname: "web-0", NodeName: s("n1"),
				TargetRef: &api.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "web-0", UID: "u1"}}, {IP: "10.0.0.3", NodeName: s("")}},
			Ports: []api.EndpointPort{p, {Port: 53, Protocol: "UDP"}},
		}), "(v1.EndpointSubset){Addresses:([]v1.EndpointAddress)[{IP:(string)10.0.0.1 Hostname:(string)web-0 NodeName:(*string)n1 TargetRef:(*v1.ObjectReference){Kind:(string)Pod Namespace:(string)ns Name:(string)web-0 UID:(types.UID)u1 APIVersion:(string) ResourceVersion:(string) FieldPath:(string)}} {IP:(string)10.0.0.3 Hostname:(string) NodeName:(*string) TargetRef:(*v1.ObjectReference)<nil>}] NotReadyAddresses:([]v1.EndpointAddress)<nil> Ports:([]v1.EndpointPort)[{Name:(string)http Port:(int32)8080 Protocol:(v1.Protocol)TCP AppProtocol:(*string)h2c} {Name:(string) Port:(int32)53 Protocol:(v1.Protocol)UDP AppProtocol:(*string)<nil>}]}"},
		{subsetHashText(api.EndpointSubset{NotReadyAddresses: []api.EndpointAddress{{IP: "10.0.0.2"}}, Ports: []api.EndpointPort{}}),
			"(v1.EndpointSubset){Addresses:([]v1.EndpointAddress)<nil> NotReadyAddresses:([]v1.EndpointAddress)[{IP:(string)10.0.0.2 Hostname:(string) NodeName:(*string)<nil> TargetRef:(*v1.ObjectReference)<nil>}] Ports:([]v1.EndpointPort)[]}"},
	} {
		if tc.got != tc.want {
			t.Errorf("hash text\n got %s\nwant %s", tc.got, tc.want)
		}
	}
}

// TestRepackSubsets follows pkg/api/v1/endpoints TestPackSubsets: the
// rules of the canonical layout, case by case.
func TestRepackSubsets(t *testing.T) {
	a, b := addr("a", "10.0.0.1"), addr("b", "10.0.0.2")
	p80, p443 := epPort("http", 80), epPort("https", 443)
	for _, tc := range []struct {
		name string
		in   []api.EndpointSubset
		want []string
	}{
		{"empty", nil, nil},
		{"an address without ports is kept",
			[]api.EndpointSubset{{Addresses: []api.EndpointAddress{a}}}, []string{"ready:[10.0.0.1(a)] notready:[] ports:[]"}},
		{"a port without addresses goes",
			[]api.EndpointSubset{{Ports: []api.EndpointPort{p80}}}, nil},
		{"the same address twice on one port is one address",
			[]api.EndpointSubset{{Addresses: []api.EndpointAddress{a, a}, Ports: []api.EndpointPort{p80}}},
			[]string{"ready:[10.0.0.1(a)] notready:[] ports:[http:80/TCP]"}},
		{"addresses that share a port set merge",
			[]api.EndpointSubset{{Addresses: []api.EndpointAddress{b}, Ports: []api.EndpointPort{p80}}, {Addresses: []api.EndpointAddress{a}, Ports: []api.EndpointPort{p80}}},
			[]string{"ready:[10.0.0.1(a) 10.0.0.2(b)] notready:[] ports:[http:80/TCP]"}},
		{"not ready wins over ready on one port",
			[]api.EndpointSubset{{Addresses: []api.EndpointAddress{a}, Ports: []api.EndpointPort{p80}}, {NotReadyAddresses: []api.EndpointAddress{a}, Ports: []api.EndpointPort{p80}}},
			[]string{"ready:[] notready:[10.0.0.1(a)] ports:[http:80/TCP]"}},
		{"not ready wins over ready on one port, whatever the order",
			[]api.EndpointSubset{{NotReadyAddresses: []api.EndpointAddress{a}, Ports: []api.EndpointPort{p80}}, {Addresses: []api.EndpointAddress{a}, Ports: []api.EndpointPort{p80}}},
			[]string{"ready:[] notready:[10.0.0.1(a)] ports:[http:80/TCP]"}},
		{"different port sets split",
			[]api.EndpointSubset{{Addresses: []api.EndpointAddress{a, b}, Ports: []api.EndpointPort{p80}}, {Addresses: []api.EndpointAddress{a}, Ports: []api.EndpointPort{p443}}},
			[]string{"ready:[10.0.0.1(a) 10.0.0.2(b)] notready:[] ports:[http:80/TCP]", "ready:[10.0.0.1(a)] notready:[] ports:[https:443/TCP]"}},
		{"one IP, two pods: two addresses",
			[]api.EndpointSubset{{Addresses: []api.EndpointAddress{a, addr("c", "10.0.0.1")}, Ports: []api.EndpointPort{p80}}},
			[]string{"ready:[10.0.0.1(a) 10.0.0.1(c)] notready:[] ports:[http:80/TCP]"}},
	} {
		in := slices.Clone(tc.in)
		if got := show(RepackSubsets(tc.in)); !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
		if len(in) != len(tc.in) {
			t.Errorf("%s: input modified", tc.name)
		}
	}
}
