package nodelifecycle

import (
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// The node condition types the controller reads and writes (core/v1
// NodeConditionType).
const (
	ConditionReady              = "Ready"
	ConditionMemoryPressure     = "MemoryPressure"
	ConditionDiskPressure       = "DiskPressure"
	ConditionPIDPressure        = "PIDPressure"
	ConditionNetworkUnavailable = "NetworkUnavailable"
)

// The reasons and messages the controller writes into a condition it
// turns Unknown (tryUpdateNodeHealth).
const (
	ReasonNodeStatusUnknown      = "NodeStatusUnknown"
	MessageNodeStatusUnknown     = "Kubelet stopped posting node status."
	ReasonNodeStatusNeverUpdated = "NodeStatusNeverUpdated"
	MessageNodeStatusNeverUpdate = "Kubelet never posted node status."
)

// unknownConditionTypes are the conditions a silent node's are set to
// Unknown; NetworkUnavailable is left alone, as upstream does (the control
// plane, not the kubelet, manages it).
var unknownConditionTypes = []string{ConditionReady, ConditionMemoryPressure, ConditionDiskPressure, ConditionPIDPressure}

// health is what the controller remembers of one node between passes
// (upstream's nodeHealthData): when it last saw the node alive by its own
// clock (probe), when it last saw the Ready condition change
// (readyTransition), the status and the Lease it saw then. The node's
// own timestamps are only compared for change, never with the clock.
type health struct {
	probe           time.Time
	readyTransition time.Time
	status          *api.NodeStatus
	lease           *api.Lease
}

// getCondition returns the condition of type t in status, or nil.
func getCondition(status *api.NodeStatus, t string) *api.NodeCondition {
	if status == nil {
		return nil
	}
	for i := range status.Conditions {
		if status.Conditions[i].Type == t {
			return &status.Conditions[i]
		}
	}
	return nil
}

// graces are the two grace periods: a node that never posted a Ready
// condition gets startup, any other monitor.
type graces struct{ startup, monitor time.Duration }

// observation is what observe makes of a node in one pass.
type observation struct {
	// rec is the node's new health record.
	rec *health
	// grace is the grace period the node is entitled to.
	grace time.Duration
	// observed is the Ready condition as the node has it (a made-up
	// Unknown one, stamped with the creation time, when it has none).
	observed api.NodeCondition
	// hasReady: the node has a Ready condition.
	hasReady bool
}

// expired reports whether the node has been silent longer than its grace
// period at now (upstream: now.After(probeTimestamp + gracePeriod)).
func (o observation) expired(now time.Time) bool {
	return now.After(o.rec.probe.Add(o.grace))
}

// observe is the first half of upstream's tryUpdateNodeHealth, a pure
// function: given the node, its Lease from the cache (nil when none), the
// saved record (nil for a node not seen yet) and now, it returns the new
// record. The rules, case by case as upstream lists them:
//   - no Ready condition: startup grace; a first record is stamped with the
//     node's creation time (the kubelet never posted status);
//   - no saved record, or a saved one without a Ready condition while the
//     node now has one (kcm restarted over a running cluster): a fresh
//     record stamped now (upstream's third case, Ready removed, never
//     runs: the record's status is replaced by the node's first, so the
//     record keeps its times and the startup grace applies);
//   - Ready's lastHeartbeatTime changed: probe = now, and readyTransition
//     = now when its lastTransitionTime changed too;
//   - the Lease's renewTime moved past the saved Lease's: probe = now.
//
// A record replaced for a status change carries no Lease, as upstream's
// does, so the next pass takes the cached Lease as new.
func observe(node *api.Node, lease *api.Lease, saved *health, now time.Time, g graces) observation {
	rec := saved
	if rec != nil {
		cp := *rec
		rec = &cp
	}
	o := observation{grace: g.monitor}
	current := getCondition(&node.Status, ConditionReady)
	if current == nil {
		created := node.CreationTimestamp.Time
		o.observed = api.NodeCondition{Type: ConditionReady, Status: api.ConditionUnknown,
			LastHeartbeatTime: node.CreationTimestamp, LastTransitionTime: node.CreationTimestamp}
		o.grace = g.startup
		if rec != nil {
			rec.status = &node.Status
		} else {
			rec = &health{status: &node.Status, probe: created, readyTransition: created}
		}
	} else {
		o.observed = *current
		o.hasReady = true
	}
	var savedCond *api.NodeCondition
	var savedLease *api.Lease
	if rec != nil {
		savedCond = getCondition(rec.status, ConditionReady)
		savedLease = rec.lease
	}
	switch {
	case rec == nil,
		savedCond == nil && current != nil,
		savedCond != nil && current == nil:
		rec = &health{status: &node.Status, probe: now, readyTransition: now}
	case savedCond != nil && current != nil && !savedCond.LastHeartbeatTime.Equal(current.LastHeartbeatTime.Time):
		transition := rec.readyTransition
		if !savedCond.LastTransitionTime.Equal(current.LastTransitionTime.Time) {
			transition = now
		}
		rec = &health{status: &node.Status, probe: now, readyTransition: transition}
	}
	if lease != nil && (savedLease == nil || renewedAfter(lease, savedLease)) {
		rec.lease = lease
		rec.probe = now
	}
	o.rec = rec
	return o
}

// renewedAfter: lease's renewTime is after saved's; false when either has
// none (metav1.MicroTime.Before on nil pointers).
func renewedAfter(lease, saved *api.Lease) bool {
	a, b := lease.Spec.RenewTime, saved.Spec.RenewTime
	return a != nil && b != nil && b.Before(a.Time)
}

// markUnknown is the second half of tryUpdateNodeHealth, for a node past
// its grace period: each of Ready, MemoryPressure, DiskPressure and
// PIDPressure becomes Unknown with reason NodeStatusUnknown ("Kubelet
// stopped posting node status.") and lastTransitionTime now, unless it is
// Unknown already; a condition the kubelet never posted is added Unknown
// with reason NodeStatusNeverUpdated, its heartbeat the creation time. It
// edits node.Status in place and returns node's Ready condition after.
func markUnknown(node *api.Node, now time.Time) *api.NodeCondition {
	stamp := api.NewTime(now)
	for _, t := range unknownConditionTypes {
		c := getCondition(&node.Status, t)
		if c == nil {
			node.Status.Conditions = append(node.Status.Conditions, api.NodeCondition{
				Type: t, Status: api.ConditionUnknown,
				Reason: ReasonNodeStatusNeverUpdated, Message: MessageNodeStatusNeverUpdate,
				LastHeartbeatTime: node.CreationTimestamp, LastTransitionTime: stamp,
			})
			continue
		}
		if c.Status != api.ConditionUnknown {
			c.Status = api.ConditionUnknown
			c.Reason = ReasonNodeStatusUnknown
			c.Message = MessageNodeStatusUnknown
			c.LastTransitionTime = stamp
		}
	}
	return getCondition(&node.Status, ConditionReady)
}

// sameCondition is apiequality.Semantic.DeepEqual of two conditions, the
// times compared at the second the wire keeps.
func sameCondition(a, b *api.NodeCondition) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message &&
		a.LastHeartbeatTime.Equal(b.LastHeartbeatTime.Time) && a.LastTransitionTime.Equal(b.LastTransitionTime.Time)
}
