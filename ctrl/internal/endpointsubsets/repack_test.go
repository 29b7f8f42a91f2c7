package endpointsubsets

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
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
		got, _ := json.Marshal(Repack(c.In))
		want, _ := json.Marshal(c.Out)
		if string(got) != string(want) {
			t.Errorf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestRepack follows pkg/api/v1/endpoints TestPackSubsets: the
// rules of the canonical layout, case by case.
func TestRepack(t *testing.T) {
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
		if got := show(Repack(tc.in)); !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
		if len(in) != len(tc.in) {
			t.Errorf("%s: input modified", tc.name)
		}
	}
}

func addr(name, ip string) api.EndpointAddress {
	n := "node-1"
	return api.EndpointAddress{IP: ip, NodeName: &n, TargetRef: &api.ObjectReference{Kind: "Pod", Namespace: "ns", Name: name, UID: "uid-" + name}}
}

func epPort(name string, p int32) api.EndpointPort {
	return api.EndpointPort{Name: name, Port: p, Protocol: "TCP"}
}

// show writes each subset on one line: its ready and not-ready addresses
// as ip(pod) and its ports as name:port/protocol.
func show(subsets []api.EndpointSubset) []string {
	var out []string
	for _, s := range subsets {
		line := "ready:" + addrList(s.Addresses) + " notready:" + addrList(s.NotReadyAddresses) + " ports:["
		for i, p := range s.Ports {
			if i > 0 {
				line += " "
			}
			line += fmt.Sprintf("%s:%d/%s", p.Name, p.Port, p.Protocol)
		}
		out = append(out, line+"]")
	}
	return out
}

func addrList(as []api.EndpointAddress) string {
	names := make([]string, len(as))
	for i, a := range as {
		names[i] = a.IP + "(" + a.TargetRef.Name + ")"
	}
	return "[" + strings.Join(names, " ") + "]"
}
