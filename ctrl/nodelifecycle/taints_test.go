package nodelifecycle

import (
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

func keys(ts []api.Taint) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Key + ":" + t.Effect
	}
	return out
}

// TestNoScheduleDiff follows doNoScheduleTaintingPass: each condition in
// nodeConditionToTaintKeyStatusMap gives its NoSchedule taint,
// spec.unschedulable gives node.kubernetes.io/unschedulable; stale
// condition taints go; taints of other keys or effects are not touched.
func TestNoScheduleDiff(t *testing.T) {
	ns := func(key string) api.Taint { return api.Taint{Key: key, Effect: api.TaintEffectNoSchedule} }
	cases := []struct {
		name        string
		node        *api.Node
		add, remove []string
	}{
		{"ready node: nothing", testNode("n", "", readyCond(api.ConditionTrue, 0, 0)), nil, nil},
		{"Ready False: not-ready", testNode("n", "", readyCond(api.ConditionFalse, 0, 0)),
			[]string{"node.kubernetes.io/not-ready:NoSchedule"}, nil},
		{"Ready Unknown: unreachable", testNode("n", "", readyCond(api.ConditionUnknown, 0, 0)),
			[]string{"node.kubernetes.io/unreachable:NoSchedule"}, nil},
		{"pressures and network", testNode("n", "",
			api.NodeCondition{Type: ConditionMemoryPressure, Status: api.ConditionTrue},
			api.NodeCondition{Type: ConditionDiskPressure, Status: api.ConditionTrue},
			api.NodeCondition{Type: ConditionPIDPressure, Status: api.ConditionTrue},
			api.NodeCondition{Type: ConditionNetworkUnavailable, Status: api.ConditionTrue},
			api.NodeCondition{Type: ConditionMemoryPressure + "X", Status: api.ConditionTrue}),
			[]string{"node.kubernetes.io/memory-pressure:NoSchedule", "node.kubernetes.io/disk-pressure:NoSchedule",
				"node.kubernetes.io/pid-pressure:NoSchedule", "node.kubernetes.io/network-unavailable:NoSchedule"}, nil},
		{"unschedulable", func() *api.Node {
			n := testNode("n", "")
			n.Spec.Unschedulable = true
			return n
		}(), []string{"node.kubernetes.io/unschedulable:NoSchedule"}, nil},
		{"recovered: stale taints go, others stay", func() *api.Node {
			n := testNode("n", "", readyCond(api.ConditionTrue, 0, 0))
			n.Spec.Taints = []api.Taint{ns(api.TaintNodeUnreachable), ns(api.TaintNodeUnschedulable), ns("example.com/mine"),
				{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoExecute}}
			return n
		}(), nil, []string{"node.kubernetes.io/unreachable:NoSchedule", "node.kubernetes.io/unschedulable:NoSchedule"}},
		{"swap not-ready for unreachable", func() *api.Node {
			n := testNode("n", "", readyCond(api.ConditionUnknown, 0, 0))
			n.Spec.Taints = []api.Taint{ns(api.TaintNodeNotReady)}
			return n
		}(), []string{"node.kubernetes.io/unreachable:NoSchedule"}, []string{"node.kubernetes.io/not-ready:NoSchedule"}},
	}
	for _, tc := range cases {
		add, remove := noScheduleDiff(tc.node)
		if !slices.Equal(keys(add), tc.add) || !slices.Equal(keys(remove), tc.remove) {
			t.Errorf("%s: add %v remove %v, want %v %v", tc.name, keys(add), keys(remove), tc.add, tc.remove)
		}
	}
}

// TestAddOrUpdateTaint follows taintutils.AddOrUpdateTaint and
// RemoveTaint: a taint of the same key and effect is replaced unless equal
// (timeAdded included), else appended; removal matches key and effect.
func TestAddOrUpdateTaint(t *testing.T) {
	t1, t2 := at(0), at(time.Minute)
	a := api.Taint{Key: "k", Effect: api.TaintEffectNoExecute, TimeAdded: &t1}
	other := api.Taint{Key: "o", Effect: api.TaintEffectNoSchedule}
	out, changed := addOrUpdateTaint([]api.Taint{other}, a)
	if !changed || len(out) != 2 {
		t.Fatalf("append: %v %v", out, changed)
	}
	if _, changed := addOrUpdateTaint(out, a); changed {
		t.Error("an equal taint changed the list")
	}
	b := a
	b.TimeAdded = &t2
	if out2, changed := addOrUpdateTaint(out, b); !changed || len(out2) != 2 || !out2[1].TimeAdded.Equal(t2.Time) {
		t.Errorf("update: %v %v", out2, changed)
	}
	if out3, changed := removeTaint(out, api.Taint{Key: "k", Effect: api.TaintEffectNoExecute}); !changed || len(out3) != 1 {
		t.Errorf("remove: %v %v", out3, changed)
	}
	if _, changed := removeTaint(out, api.Taint{Key: "k", Effect: api.TaintEffectNoSchedule}); changed {
		t.Error("remove matched another effect")
	}
}
