package difftest

import (
	"slices"
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
			"Node a-1": {nodeAt(readyConds), nodeAt(unknownConds), nodeAt(unknownConds, noSchedule),
				nodeAt(unknownConds, noExecute, noSchedule), nodeAt(readyConds, noExecute, noSchedule),
				nodeAt(readyConds, noExecute), nodeAt(readyConds)},
			"Pod p-a-1": {"ready", "not ready", "disruption", "deleting"},
		},
	}
}

// The renderings of a-1's states in nlRun's history.
const (
	noSchedule = "node.kubernetes.io/unreachable:NoSchedule"
	noExecute  = "node.kubernetes.io/unreachable:NoExecute"
)

var (
	readyConds   = []string{`Ready=True KubeletReady "kubelet is posting ready status"`}
	unknownConds = []string{`Ready=Unknown NodeStatusUnknown "Kubelet stopped posting node status."`}
)

func nodeAt(conds []string, taints ...string) string {
	return NodeState{Taints: taints, Conditions: conds}.String()
}

// TestCompareNodeLifecycle: what CompareNodeLifecycle reports and what it
// ignores (the order and combinations of a node's taints and conditions:
// its two taint loops race).
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
		{"taints added and removed in the other order", func(r *NodeLifecycleRun) {
			r.History["Node a-1"] = []string{nodeAt(readyConds), nodeAt(unknownConds), nodeAt(unknownConds, noExecute),
				nodeAt(unknownConds, noExecute, noSchedule), nodeAt(readyConds, noExecute, noSchedule),
				nodeAt(readyConds, noSchedule), nodeAt(readyConds)}
		}, nil},
		{"a taint never carried", func(r *NodeLifecycleRun) {
			r.History["Node a-1"] = []string{nodeAt(readyConds), nodeAt(unknownConds), nodeAt(unknownConds, noSchedule),
				nodeAt(readyConds, noSchedule), nodeAt(readyConds)}
		}, []string{"history of Node a-1"}},
		{"another taint", func(r *NodeLifecycleRun) {
			h := slices.Clone(r.History["Node a-1"])
			h[2] = nodeAt(unknownConds, "node.kubernetes.io/not-ready:NoSchedule")
			r.History["Node a-1"] = h
		}, []string{"history of Node a-1"}},
		{"other conditions", func(r *NodeLifecycleRun) {
			r.History["Node a-1"] = append(slices.Clone(r.History["Node a-1"]),
				nodeAt([]string{`Ready=False KubeletNotReady "not ready"`}))
		}, []string{"history of Node a-1"}},
		{"node deleted", func(r *NodeLifecycleRun) {
			r.History["Node a-1"] = append(slices.Clone(r.History["Node a-1"]), "deleted")
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
