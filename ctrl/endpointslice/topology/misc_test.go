package topology

import (
	"math/big"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// TestParseQuantity: the node's allocatable CPU in every spelling
// resource.ParseQuantity accepts, rounded up to milli-CPUs as MilliValue.
func TestParseQuantity(t *testing.T) {
	tests := []struct {
		in    string
		milli int64
		ok    bool
	}{
		{"4", 4000, true}, {"3500m", 3500, true}, {"1.5", 1500, true}, {"0.5", 500, true}, {".5", 500, true},
		{"2k", 2000000, true}, {"1Ki", 1024000, true}, {"1e3", 1000000, true}, {"1E-3", 1, true}, {"+2", 2000, true},
		{"100u", 1, true}, {"1n", 1, true}, {"1500000n", 2, true}, {"0", 0, true}, {"-1", -1000, true},
		{"", 0, false}, {"m", 0, false}, {"4x", 0, false}, {"1.2.3", 0, false}, {"1e", 0, false}, {"abc", 0, false},
	}
	for _, tt := range tests {
		q, ok := parseQuantity(tt.in)
		if ok != tt.ok {
			t.Errorf("parseQuantity(%q) ok = %v, want %v", tt.in, ok, tt.ok)
			continue
		}
		if ok {
			if got := milliCeil(q); got != tt.milli {
				t.Errorf("parseQuantity(%q) = %s → %d milli, want %d", tt.in, q.RatString(), got, tt.milli)
			}
		}
	}
	if got := milliCeil(big.NewRat(-3, 2000)); got != -1 {
		t.Errorf("milliCeil(-0.0015) = %d, want -1 (rounded up)", got)
	}
}

// TestCloneSlice: a copy moved to the update list shares nothing mutable
// with the informer's slice.
func TestCloneSlice(t *testing.T) {
	s := slice("s", ep("10.0.0.1", zone("a"), node("n1"), zoneHint("a"), nodeHint("n1")))
	s.Annotations = map[string]string{"k": "v"}
	s.OwnerReferences = []api.OwnerReference{{Name: "svc", Controller: ptr(true)}}
	s.Finalizers = []string{"f"}
	s.Ports = []api.EndpointSlicePort{{Name: ptr("http"), Port: ptr(int32(80))}}
	s.Endpoints[0].TargetRef = &api.ObjectReference{Name: "pod"}
	s.Endpoints[0].Conditions.Serving = ptr(true)
	want := jsonOf(t, s)

	c := cloneSlice(s)
	if got := jsonOf(t, c); got != want {
		t.Fatalf("clone differs:\n got %s\nwant %s", got, want)
	}
	c.Labels["x"] = "y"
	c.Annotations["k"] = "changed"
	*c.OwnerReferences[0].Controller = false
	c.Finalizers[0] = "g"
	*c.Ports[0].Name = "https"
	*c.Ports[0].Port = 443
	e := &c.Endpoints[0]
	e.Addresses[0] = "10.9.9.9"
	*e.Zone, *e.NodeName, *e.Conditions.Ready, *e.Conditions.Serving = "z", "n9", false, false
	e.TargetRef.Name = "other"
	e.Hints.ForZones[0].Name = "z"
	e.Hints.ForNodes[0].Name = "n9"
	if got := jsonOf(t, s); got != want {
		t.Errorf("changing the clone changed the original:\n got %s\nwant %s", got, want)
	}
}

// TestNodeTopologyChanged: the node updates upstream's updateNode acts
// on: readiness or the zone label.
func TestNodeTopologyChanged(t *testing.T) {
	base := mkNode("n1", "a", "1")
	tests := []struct {
		name string
		cur  *api.Node
		want bool
	}{
		{"same", mkNode("n1", "a", "1"), false},
		{"cpu only", mkNode("n1", "a", "2"), false},
		{"became unready", mkNode("n1", "a", "1", nodeNotReady()), true},
		{"zone changed", mkNode("n1", "b", "1"), true},
		{"zone removed", mkNode("n1", "", "1"), true},
	}
	for _, tt := range tests {
		if got := NodeTopologyChanged(base, tt.cur); got != tt.want {
			t.Errorf("%s: NodeTopologyChanged = %v, want %v", tt.name, got, tt.want)
		}
	}
	noReady := mkNode("n2", "a", "1")
	noReady.Status.Conditions = noReady.Status.Conditions[:1]
	if NodeReady(noReady) {
		t.Error("NodeReady without a Ready condition = true")
	}
}
