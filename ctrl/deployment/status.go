package deployment

import (
	"context"
	"reflect"
	"slices"

	"github.com/kcmlab/kcm/kube/api"
)

// Conditions follow Kubernetes' rules (deploymentutil.SetDeploymentCondition):
// setting a condition that already has the same status and reason changes
// nothing, not even its times; the same status with another reason keeps
// the lastTransitionTime; a new status moves both times to now.

// newCondition returns a condition stamped now.
func (c *Controller) newCondition(t api.DeploymentConditionType, status api.ConditionStatus, reason, msg string) api.DeploymentCondition {
	now := api.NewTime(c.clock.Now())
	return api.DeploymentCondition{Type: t, Status: status, Reason: reason, Message: msg,
		LastUpdateTime: now, LastTransitionTime: now}
}

// setCondition sets a new condition on d's status.
func (c *Controller) setCondition(d *api.Deployment, t api.DeploymentConditionType, status api.ConditionStatus, reason, msg string) {
	setDeploymentCondition(&d.Status, c.newCondition(t, status, reason, msg))
}

// setDeploymentCondition puts cond into status by the rules above; the
// condition goes to the end of the list.
func setDeploymentCondition(status *api.DeploymentStatus, cond api.DeploymentCondition) {
	cur := api.GetDeploymentCondition(status, cond.Type)
	if cur != nil && cur.Status == cond.Status && cur.Reason == cond.Reason {
		return
	}
	if cur != nil && cur.Status == cond.Status {
		cond.LastTransitionTime = cur.LastTransitionTime
	}
	status.Conditions = append(withoutCondition(status.Conditions, cond.Type), cond)
}

// removeDeploymentCondition drops the condition of type t.
func removeDeploymentCondition(status *api.DeploymentStatus, t api.DeploymentConditionType) {
	status.Conditions = withoutCondition(status.Conditions, t)
}

func withoutCondition(conds []api.DeploymentCondition, t api.DeploymentConditionType) []api.DeploymentCondition {
	var out []api.DeploymentCondition
	for _, c := range conds {
		if c.Type != t {
			out = append(out, c)
		}
	}
	return out
}

// calculateStatus derives d's status from its ReplicaSets
// (calculateStatus): the counters summed over all ReplicaSets, updated
// replicas from the new one, observedGeneration, collisionCount kept, the
// conditions kept, and Available set from minimum availability —
// spec.replicas minus maxUnavailable, and terminatingReplicas summed over
// the ReplicaSets (terminatingReplicas below). Kubernetes fills the last
// under the DeploymentReplicaSetTerminatingReplicas feature gate, beta and
// on by default since v1.35.
func (c *Controller) calculateStatus(allRSs []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment) api.DeploymentStatus {
	available := totalAvailable(allRSs)
	unavailable := max(totalSpecReplicas(allRSs)-available, 0)
	st := api.DeploymentStatus{
		ObservedGeneration:  d.Generation,
		Replicas:            totalStatusReplicas(allRSs),
		UpdatedReplicas:     totalStatusReplicas([]*api.ReplicaSet{newRS}),
		ReadyReplicas:       totalReady(allRSs),
		AvailableReplicas:   available,
		UnavailableReplicas: unavailable,
		CollisionCount:      d.Status.CollisionCount,
		TerminatingReplicas: terminatingReplicas(allRSs),
		Conditions:          slices.Clone(d.Status.Conditions),
	}
	if available >= desired(d)-MaxUnavailable(d) {
		setDeploymentCondition(&st, c.newCondition(api.DeploymentAvailable, api.ConditionTrue, ReasonMinimumReplicasAvailable, msgMinimumAvailable))
	} else {
		setDeploymentCondition(&st, c.newCondition(api.DeploymentAvailable, api.ConditionFalse, ReasonMinimumReplicasUnavailable, msgMinimumUnavailable))
	}
	return st
}

// terminatingReplicas sums the ReplicaSets' status.terminatingReplicas
// (Kubernetes' GetTerminatingReplicaCountForReplicaSets): a ReplicaSet
// never synced (observedGeneration 0, no count) adds nothing, and one that
// was synced but reports no count (a controller without the field) makes
// the sum unknown: nil.
func terminatingReplicas(rss []*api.ReplicaSet) *int32 {
	var n int32
	for _, rs := range rss {
		switch {
		case rs == nil:
		case rs.Status.ObservedGeneration == 0 && rs.Status.TerminatingReplicas == nil:
		case rs.Status.TerminatingReplicas == nil:
			return nil
		default:
			n += *rs.Status.TerminatingReplicas
		}
	}
	return &n
}

// syncDeploymentStatus writes the calculated status when it differs
// (syncDeploymentStatus).
func (s *syncer) syncDeploymentStatus(ctx context.Context, allRSs []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment) error {
	st := s.calculateStatus(allRSs, newRS, d)
	if statusEqual(d.Status, st) {
		return nil
	}
	d.Status = st
	return s.updateStatus(ctx, d)
}

// statusEqual compares statuses as Kubernetes' reflect.DeepEqual does,
// except that a nil and an empty condition list are equal (both encode as
// no conditions).
func statusEqual(a, b api.DeploymentStatus) bool {
	if len(a.Conditions) == 0 && len(b.Conditions) == 0 {
		a.Conditions, b.Conditions = nil, nil
	}
	return reflect.DeepEqual(a, b)
}

// syncStatusOnly only updates the status: a Deployment being deleted
// (syncStatusOnly).
func (s *syncer) syncStatusOnly(ctx context.Context, d *api.Deployment, rsList []owned) error {
	newRS, oldRSs, err := s.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	return s.syncDeploymentStatus(ctx, append(oldRSs, newRS), newRS, d)
}
