package api

// This file holds the taint and toleration vocabulary shared by the node
// lifecycle, taint eviction and pod GC controllers: the taint effects, the
// well-known node taint keys (k8s.io/api/core/v1 well_known_taints.go), the
// toleration operators, and the matching rules of k8s.io/api/core/v1
// (Toleration.ToleratesTaint, Taint.MatchTaint) and component-helpers
// (TolerationsTolerateTaint).

// The taint effects (core/v1 TaintEffect).
const (
	// TaintEffectNoSchedule keeps new pods that do not tolerate the taint
	// off the node; running pods stay.
	TaintEffectNoSchedule = "NoSchedule"
	// TaintEffectPreferNoSchedule asks the scheduler to avoid the node.
	TaintEffectPreferNoSchedule = "PreferNoSchedule"
	// TaintEffectNoExecute also evicts running pods that do not tolerate
	// the taint (the taint eviction controller does it).
	TaintEffectNoExecute = "NoExecute"
)

// The toleration operators (core/v1 TolerationOperator). An empty operator
// means Equal.
const (
	TolerationOpExists = "Exists"
	TolerationOpEqual  = "Equal"
	// TolerationOpLt and TolerationOpGt compare integer values; they exist
	// behind the TaintTolerationComparisonOperators feature gate (alpha,
	// off by default in v1.37), so ToleratesTaint never matches them.
	TolerationOpLt = "Lt"
	TolerationOpGt = "Gt"
)

// The well-known node taint keys (core/v1 well_known_taints.go).
const (
	// TaintNodeNotReady is set by the node lifecycle controller while the
	// node's Ready condition is False.
	TaintNodeNotReady = "node.kubernetes.io/not-ready"
	// TaintNodeUnreachable is set while the node's Ready condition is
	// Unknown (the node stopped reporting).
	TaintNodeUnreachable = "node.kubernetes.io/unreachable"
	// TaintNodeUnschedulable mirrors spec.unschedulable (cordon).
	TaintNodeUnschedulable = "node.kubernetes.io/unschedulable"
	// TaintNodeMemoryPressure mirrors the MemoryPressure condition.
	TaintNodeMemoryPressure = "node.kubernetes.io/memory-pressure"
	// TaintNodeDiskPressure mirrors the DiskPressure condition.
	TaintNodeDiskPressure = "node.kubernetes.io/disk-pressure"
	// TaintNodeNetworkUnavailable mirrors the NetworkUnavailable condition.
	TaintNodeNetworkUnavailable = "node.kubernetes.io/network-unavailable"
	// TaintNodePIDPressure mirrors the PIDPressure condition.
	TaintNodePIDPressure = "node.kubernetes.io/pid-pressure"
	// TaintNodeOutOfService is set by an administrator on a node that is
	// shut down for good; the pod GC controller then force-deletes its
	// terminating pods.
	TaintNodeOutOfService = "node.kubernetes.io/out-of-service"
)

// ToleratesTaint reports whether toleration t tolerates taint, by the rules
// of core/v1 Toleration.ToleratesTaint with the comparison operators
// disabled (the v1.37 default):
//
//   - an empty effect matches every effect, otherwise the effects are equal;
//   - an empty key matches every key (validation pairs it with Exists),
//     otherwise the keys are equal;
//   - operator Exists matches every value; Equal or empty needs equal
//     values; any other operator (Lt, Gt, unknown) matches nothing.
func (t *Toleration) ToleratesTaint(taint *Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case "", TolerationOpEqual:
		return t.Value == taint.Value
	case TolerationOpExists:
		return true
	default:
		return false
	}
}

// MatchTaint reports whether t and other are the same taint: taints are
// unique on a node by key and effect (core/v1 Taint.MatchTaint); value and
// timeAdded do not count.
func (t *Taint) MatchTaint(other *Taint) bool {
	return t.Key == other.Key && t.Effect == other.Effect
}

// String formats the taint as kubectl does: key=value:effect, key:effect,
// key=value: or key (core/v1 Taint.ToString).
func (t *Taint) String() string {
	switch {
	case t.Effect == "" && t.Value == "":
		return t.Key
	case t.Effect == "":
		return t.Key + "=" + t.Value + ":"
	case t.Value == "":
		return t.Key + ":" + t.Effect
	default:
		return t.Key + "=" + t.Value + ":" + t.Effect
	}
}

// TolerationsTolerateTaint reports whether any of tolerations tolerates
// taint (component-helpers scheduling/corev1 TolerationsTolerateTaint).
func TolerationsTolerateTaint(tolerations []Toleration, taint *Taint) bool {
	for i := range tolerations {
		if tolerations[i].ToleratesTaint(taint) {
			return true
		}
	}
	return false
}

// TaintExists reports whether taints holds a taint matching taint by key and
// effect (upstream taints.TaintExists).
func TaintExists(taints []Taint, taint *Taint) bool {
	for i := range taints {
		if taints[i].MatchTaint(taint) {
			return true
		}
	}
	return false
}
