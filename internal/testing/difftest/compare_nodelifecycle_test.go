package difftest

import (
	"strings"
	"testing"
)

// nlRun is a small NodeLifecycleRun: node a-1 tainted, its pod evicted.
func nlRun() *NodeLifecycleRun {
	return &NodeLifecycleRun{
		Checkpoints: []Checkpoint{{Name: "silent node", View: NodeView{
			Nodes:  map[string]NodeState{"a-1": {Taints: []string{"node.kubernetes.io/unreachable:NoExecute"}, Ready: "Unknown"}},
			Pods:   map[string]PodState{"p-a-1": {Phase: "Running", Ready: "False", Disruption: "DeletionByTaintManager", Deleting: true}},
			Events: map[string]bool{"Pod/p-a-1 TaintManagerEviction Normal: Marking for deletion Pod nl-diff/p-a-1": true},
		}}},
		History: map[string][]string{
			"Node a-1":  {"ready", "unknown", "unknown noschedule", "unknown noschedule noexecute"},
			"Pod p-a-1": {"ready", "not ready", "disruption", "deleting"},
		},
	}
}

// TestCompareNodeLifecycle: what CompareNodeLifecycle reports and what it
// ignores (the order of a node's states: its two taint loops race).
func TestCompareNodeLifecycle(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(r *NodeLifecycleRun)
		want   []string // a substring of each difference, in order
	}{
		{"same", func(*NodeLifecycleRun) {}, nil},
		{"pod not evicted", func(r *NodeLifecycleRun) {
			r.Checkpoints[0].View.Pods["p-a-1"] = PodState{Phase: "Running", Ready: "False"}
		}, []string{"at silent node: pod p-a-1"}},
		{"taint missing", func(r *NodeLifecycleRun) {
			r.Checkpoints[0].View.Nodes["a-1"] = NodeState{Ready: "Unknown"}
		}, []string{"at silent node: node a-1"}},
		{"node states in another order", func(r *NodeLifecycleRun) {
			r.History["Node a-1"] = []string{"ready", "unknown noschedule", "unknown", "unknown noschedule noexecute"}
		}, nil},
		{"node state never reached", func(r *NodeLifecycleRun) {
			r.History["Node a-1"] = r.History["Node a-1"][:3]
		}, []string{"history of Node a-1"}},
		{"pod states in another order", func(r *NodeLifecycleRun) {
			r.History["Pod p-a-1"] = []string{"ready", "disruption", "not ready", "deleting"}
		}, []string{"history of Pod p-a-1"}},
		{"event missing", func(r *NodeLifecycleRun) {
			r.Checkpoints[0].View.Events = map[string]bool{}
		}, []string{"event only under a: Pod/p-a-1 TaintManagerEviction"}},
		{"a checkpoint missing", func(r *NodeLifecycleRun) {
			r.Checkpoints = append(r.Checkpoints, r.Checkpoints[0])
		}, []string{"1 checkpoints vs 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := nlRun()
			tc.change(b)
			got := CompareNodeLifecycle(nlRun(), b)
			if len(got) != len(tc.want) {
				t.Fatalf("%d difference(s), want %d:\n  %s", len(got), len(tc.want), strings.Join(got, "\n  "))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("difference %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}
