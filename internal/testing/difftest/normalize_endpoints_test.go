package difftest

import (
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// Two recordings of the same Endpoints that differ only in what kwok and
// the server choose (pod IPs, and with them the order of addresses and
// subsets; uids; the trigger time) normalise to the same text; a
// difference in what the controller decides (a hostname) survives.
func TestNormalizeEndpoints(t *testing.T) {
	run1 := Object{"kind": "Endpoints", "metadata": Object{"name": "web", "namespace": "ns", "uid": "u1",
		"annotations": Object{triggerTimeAnnotation: "2026-12-06T09:00:00Z"}},
		"subsets": []any{
			Object{"addresses": []any{
				Object{"ip": "10.244.1.7", "targetRef": Object{"kind": "Pod", "name": "b", "uid": "p1"}},
				Object{"ip": "10.244.1.9", "targetRef": Object{"kind": "Pod", "name": "a", "uid": "p2"}},
			}, "ports": []any{Object{"port": float64(8080)}}},
			Object{"addresses": []any{Object{"ip": "10.244.2.3", "targetRef": Object{"kind": "Pod", "name": "c", "uid": "p3"}}},
				"ports": []any{Object{"port": float64(9090)}}},
		}}
	run2 := Object{"kind": "Endpoints", "metadata": Object{"name": "web", "namespace": "ns", "uid": "u2",
		"annotations": Object{triggerTimeAnnotation: "2026-12-06T10:00:00Z"}},
		"subsets": []any{
			Object{"addresses": []any{Object{"ip": "10.244.2.8", "targetRef": Object{"kind": "Pod", "name": "c", "uid": "q3"}}},
				"ports": []any{Object{"port": float64(9090)}}},
			Object{"addresses": []any{
				Object{"ip": "10.244.1.2", "targetRef": Object{"kind": "Pod", "name": "a", "uid": "q2"}},
				Object{"ip": "10.244.1.3", "targetRef": Object{"kind": "Pod", "name": "b", "uid": "q1"}},
			}, "ports": []any{Object{"port": float64(8080)}}},
		}}
	tests := []struct {
		name  string
		b     Object
		equal bool
	}{
		{"same decisions, other IPs, uids and times", run2, true},
		{"a hostname more", func() Object {
			o := deepCopy(run2).(Object)
			o["subsets"].([]any)[0].(Object)["addresses"].([]any)[0].(Object)["hostname"] = "c"
			return o
		}(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Normalize([]Object{run1})
			if err != nil {
				t.Fatal(err)
			}
			b, err := Normalize([]Object{tt.b})
			if err != nil {
				t.Fatal(err)
			}
			text := a["Endpoints ns/web"]
			if got := text == b["Endpoints ns/web"]; got != tt.equal {
				t.Fatalf("equal = %t, want %t:\n%s\n---\n%s", got, tt.equal, text, b["Endpoints ns/web"])
			}
			for _, gone := range []string{"10.244.", "uid", "2026-"} {
				if strings.Contains(text, gone) {
					t.Errorf("normalised Endpoints still holds %q:\n%s", gone, text)
				}
			}
		})
	}
}

// A slice's endpoints lose their IPs to their pods' names and are sorted,
// an address of no pod (a mirrored user's) stays.
func TestNormalizeEndpointSlice(t *testing.T) {
	s := Object{"kind": "EndpointSlice", "metadata": Object{"generateName": "web-", "name": "web-x7k2p", "namespace": "ns"},
		"endpoints": []any{
			Object{"addresses": []any{"10.244.3.4"}, "targetRef": Object{"kind": "Pod", "name": "z", "uid": "1"}, "zone": "zone-c"},
			Object{"addresses": []any{"192.0.2.10"}},
			Object{"addresses": []any{"10.244.1.4"}, "targetRef": Object{"kind": "Pod", "name": "a", "uid": "2"}, "zone": "zone-a"},
		}}
	snap, err := Normalize([]Object{s})
	if err != nil {
		t.Fatal(err)
	}
	text, ok := snap["EndpointSlice ns/web-<rand>"]
	if !ok {
		t.Fatalf("no slice under its generated name's placeholder: %v", snap.Keys())
	}
	ia, iz, iu := strings.Index(text, "<ip:pod a>"), strings.Index(text, "<ip:pod z>"), strings.Index(text, "192.0.2.10")
	if ia < 0 || iz < 0 || iu < 0 || !(ia < iz) || strings.Contains(text, "10.244.") {
		t.Fatalf("endpoints not normalised and sorted:\n%s", text)
	}
}

// memberDelta says what a write changed, by pod name.
func TestMemberDelta(t *testing.T) {
	tests := []struct {
		name          string
		before, after map[string]string
		want          string
	}{
		{"nothing", map[string]string{"a": "ready"}, map[string]string{"a": "ready"}, "no membership change"},
		{"added, changed, removed", map[string]string{"a": "ready", "b": "ready"}, map[string]string{"b": "notready", "c": "ready"},
			"~b notready, +c ready, -a"},
		{"many", nil, map[string]string{"a": "r", "b": "r", "c": "r", "d": "r", "e": "r"}, "5 changes, +a r … +e r (digest "},
	}
	for _, tt := range tests {
		if got := memberDelta(tt.before, tt.after); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: memberDelta = %q, want %q", tt.name, got, tt.want)
		}
	}
	e := &api.Endpoints{Subsets: []api.EndpointSubset{{
		Addresses:         []api.EndpointAddress{{IP: "10.0.0.1", Hostname: "h", TargetRef: &api.ObjectReference{Kind: "Pod", Name: "p"}}},
		NotReadyAddresses: []api.EndpointAddress{{IP: "192.0.2.1"}},
		Ports:             []api.EndpointPort{{Name: "http", Port: 80}},
	}}}
	got := endpointsMembers(e)
	if got["p"] != "ready[http:80] hostname=h" || got["192.0.2.1"] != "notready[http:80]" {
		t.Errorf("endpointsMembers = %v", got)
	}
}
