package nodelifecycle

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// The NoExecute taints the controller sets while a node is not Ready
// (NotReadyTaintTemplate) or unreachable (UnreachableTaintTemplate). They
// are mutually exclusive, as Ready is False or Unknown.
var (
	NotReadyTaint    = api.Taint{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoExecute}
	UnreachableTaint = api.Taint{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoExecute}
)

// conditionTaints maps a node condition and its status to the key of the
// NoSchedule taint that mirrors it (nodeConditionToTaintKeyStatusMap).
var conditionTaints = map[string]map[api.ConditionStatus]string{
	ConditionReady:              {api.ConditionFalse: api.TaintNodeNotReady, api.ConditionUnknown: api.TaintNodeUnreachable},
	ConditionMemoryPressure:     {api.ConditionTrue: api.TaintNodeMemoryPressure},
	ConditionDiskPressure:       {api.ConditionTrue: api.TaintNodeDiskPressure},
	ConditionNetworkUnavailable: {api.ConditionTrue: api.TaintNodeNetworkUnavailable},
	ConditionPIDPressure:        {api.ConditionTrue: api.TaintNodePIDPressure},
}

// conditionTaintKeys are the taint keys the NoSchedule pass owns, besides
// unschedulable (taintKeyToNodeConditionMap).
var conditionTaintKeys = map[string]bool{
	api.TaintNodeNotReady: true, api.TaintNodeUnreachable: true, api.TaintNodeNetworkUnavailable: true,
	api.TaintNodeMemoryPressure: true, api.TaintNodeDiskPressure: true, api.TaintNodePIDPressure: true,
}

// noScheduleDiff is doNoScheduleTaintingPass's decision, a pure function:
// the NoSchedule taints the node's conditions and spec.unschedulable call
// for, against the condition and unschedulable NoSchedule taints it
// carries (matched by key and effect, TaintSetDiff). Other taints are not
// the pass's business.
func noScheduleDiff(node *api.Node) (add, remove []api.Taint) {
	var want []api.Taint
	for _, c := range node.Status.Conditions {
		if key, ok := conditionTaints[c.Type][c.Status]; ok {
			want = append(want, api.Taint{Key: key, Effect: api.TaintEffectNoSchedule})
		}
	}
	if node.Spec.Unschedulable {
		want = append(want, api.Taint{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule})
	}
	var have []api.Taint
	for _, t := range node.Spec.Taints {
		if t.Effect == api.TaintEffectNoSchedule && (t.Key == api.TaintNodeUnschedulable || conditionTaintKeys[t.Key]) {
			have = append(have, t)
		}
	}
	for i := range want {
		if !api.TaintExists(have, &want[i]) {
			add = append(add, want[i])
		}
	}
	for i := range have {
		if !api.TaintExists(want, &have[i]) {
			remove = append(remove, have[i])
		}
	}
	return add, remove
}

// addOrUpdateTaint is taintutils.AddOrUpdateTaint on a taint list: the
// taint replaces one of its key and effect unless they are equal
// (timeAdded included), else it is appended.
func addOrUpdateTaint(taints []api.Taint, t api.Taint) ([]api.Taint, bool) {
	out := make([]api.Taint, 0, len(taints)+1)
	updated := false
	for _, have := range taints {
		if t.MatchTaint(&have) {
			if sameTaint(t, have) {
				return taints, false
			}
			out = append(out, t)
			updated = true
			continue
		}
		out = append(out, have)
	}
	if !updated {
		out = append(out, t)
	}
	return out, true
}

// removeTaint is taintutils.RemoveTaint: every taint of t's key and
// effect goes.
func removeTaint(taints []api.Taint, t api.Taint) ([]api.Taint, bool) {
	out := make([]api.Taint, 0, len(taints))
	for _, have := range taints {
		if !t.MatchTaint(&have) {
			out = append(out, have)
		}
	}
	return out, len(out) != len(taints)
}

func sameTaint(a, b api.Taint) bool {
	if a.Key != b.Key || a.Value != b.Value || a.Effect != b.Effect {
		return false
	}
	if a.TimeAdded == nil || b.TimeAdded == nil {
		return a.TimeAdded == b.TimeAdded
	}
	return a.TimeAdded.Equal(b.TimeAdded.Time)
}

// updateTaintAttempts is how often a taint write is tried on a conflict
// (upstream's UpdateTaintBackoff has 5 steps).
const updateTaintAttempts = 5

// swapTaints is SwapNodeControllerTaint: it adds add (each stamped
// timeAdded now) and then removes remove, each step a read of the node
// and a patch of spec.taints under its resourceVersion, retried on a
// conflict. The removal is skipped when node (the cached copy) carries
// none of remove (RemoveTaintOffNode's shortcut).
func (c *Controller) swapTaints(ctx context.Context, node *api.Node, add, remove []api.Taint) error {
	if len(add) > 0 {
		stamp := api.NewTime(c.clock.Now())
		stamped := make([]api.Taint, len(add))
		for i, t := range add {
			t.TimeAdded = &stamp
			stamped[i] = t
		}
		if err := c.patchTaints(ctx, node.Name, func(ts []api.Taint) ([]api.Taint, bool) {
			changed := false
			for _, t := range stamped {
				var ok bool
				ts, ok = addOrUpdateTaint(ts, t)
				changed = changed || ok
			}
			return ts, changed
		}); err != nil {
			return fmt.Errorf("unable to taint %v unresponsive Node %q: %w", add, node.Name, err)
		}
	}
	if err := c.removeTaints(ctx, node, remove...); err != nil {
		return fmt.Errorf("unable to remove %v unneeded taint from unresponsive Node %q: %w", remove, node.Name, err)
	}
	return nil
}

// removeTaints is RemoveTaintOffNode.
func (c *Controller) removeTaints(ctx context.Context, node *api.Node, remove ...api.Taint) error {
	if len(remove) == 0 {
		return nil
	}
	if node != nil {
		match := false
		for i := range remove {
			match = match || api.TaintExists(node.Spec.Taints, &remove[i])
		}
		if !match {
			return nil
		}
	}
	return c.patchTaints(ctx, node.Name, func(ts []api.Taint) ([]api.Taint, bool) {
		changed := false
		for _, t := range remove {
			var ok bool
			ts, ok = removeTaint(ts, t)
			changed = changed || ok
		}
		return ts, changed
	})
}

// taintPatch is the merge patch of spec.taints under the node's
// resourceVersion (PatchNodeTaints: the list is replaced whole, and the
// resourceVersion makes a concurrent writer's change a conflict).
type taintPatch struct {
	Metadata struct {
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
	Spec struct {
		Taints []api.Taint `json:"taints"`
	} `json:"spec"`
}

// patchTaints reads the node live, applies change to its taints and
// patches them when they changed, retrying on a conflict.
func (c *Controller) patchTaints(ctx context.Context, name string, change func([]api.Taint) ([]api.Taint, bool)) error {
	var err error
	for range updateTaintAttempts {
		var node *api.Node
		if node, err = c.nodes.Get(ctx, name); err != nil {
			return err
		}
		taints, changed := change(node.Spec.Taints)
		if !changed {
			return nil
		}
		var p taintPatch
		p.Metadata.ResourceVersion = node.ResourceVersion
		p.Spec.Taints = taints
		if len(taints) == 0 {
			p.Spec.Taints = nil
		}
		body, merr := json.Marshal(p)
		if merr != nil {
			return fmt.Errorf("taint patch of node %q: %w", name, merr)
		}
		if _, err = c.nodes.Patch(ctx, name, rest.MergePatch, body, rest.PatchOptions{}); !rest.IsConflict(err) {
			return err
		}
	}
	return err
}

// retryAfterListerMiss is how soon the tainting pass retries a node the
// cache could not give (upstream: 50ms).
const retryAfterListerMiss = 50 * time.Millisecond
