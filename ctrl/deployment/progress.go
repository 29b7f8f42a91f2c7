package deployment

import (
	"context"
	"fmt"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// Progress: the Progressing condition tells whether a rollout moves. Any
// step forward — more updated, ready or available replicas, fewer old ones
// — refreshes its lastUpdateTime (ReplicaSetUpdated); a finished rollout
// says NewReplicaSetAvailable; no step for progressDeadlineSeconds since
// the last refresh turns it False with ProgressDeadlineExceeded. The
// controller asks to be synced again when the deadline would pass, since
// nothing else would wake it.

// deploymentComplete reports whether every replica is updated and
// available and the status is of the current generation
// (DeploymentComplete).
func deploymentComplete(d *api.Deployment, st *api.DeploymentStatus) bool {
	n := desired(d)
	return st.UpdatedReplicas == n && st.Replicas == n && st.AvailableReplicas == n &&
		st.ObservedGeneration >= d.Generation
}

// deploymentProgressing reports whether st is a step forward from d's
// recorded status (DeploymentProgressing).
func deploymentProgressing(d *api.Deployment, st *api.DeploymentStatus) bool {
	old := d.Status
	return st.UpdatedReplicas > old.UpdatedReplicas ||
		st.Replicas-st.UpdatedReplicas < old.Replicas-old.UpdatedReplicas ||
		st.ReadyReplicas > old.ReadyReplicas ||
		st.AvailableReplicas > old.AvailableReplicas
}

// deploymentTimedOut reports whether the rollout has made no progress for
// progressDeadlineSeconds since the Progressing condition was last
// refreshed (DeploymentTimedOut). A finished rollout never times out; one
// that timed out stays so.
func (c *Controller) deploymentTimedOut(d *api.Deployment, st *api.DeploymentStatus) bool {
	if !hasProgressDeadline(d) {
		return false
	}
	cond := api.GetDeploymentCondition(st, api.DeploymentProgressing)
	if cond == nil {
		return false
	}
	switch cond.Reason {
	case ReasonNewReplicaSetAvailable:
		return false
	case ReasonProgressDeadlineExceeded:
		return true
	}
	deadline := cond.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second)
	return deadline.Before(c.clock.Now())
}

// syncRolloutStatus writes the status of a rollout in progress
// (syncRolloutStatus): calculateStatus plus the Progressing condition and
// ReplicaFailure copied from the ReplicaSets; when nothing changed, it
// schedules the deadline check instead.
func (s *syncer) syncRolloutStatus(ctx context.Context, allRSs []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment) error {
	st := s.calculateStatus(allRSs, newRS, d)
	if !hasProgressDeadline(d) {
		removeDeploymentCondition(&st, api.DeploymentProgressing)
	}
	cur := api.GetDeploymentCondition(&d.Status, api.DeploymentProgressing)
	complete := st.Replicas == st.UpdatedReplicas && cur != nil && cur.Reason == ReasonNewReplicaSetAvailable
	if hasProgressDeadline(d) && !complete {
		subject := fmt.Sprintf("Deployment %q", d.Name)
		if newRS != nil {
			subject = fmt.Sprintf("ReplicaSet %q", newRS.Name)
		}
		switch {
		case deploymentComplete(d, &st):
			setDeploymentCondition(&st, s.newCondition(api.DeploymentProgressing, api.ConditionTrue,
				ReasonNewReplicaSetAvailable, subject+" has successfully progressed."))
		case deploymentProgressing(d, &st):
			cond := s.newCondition(api.DeploymentProgressing, api.ConditionTrue, ReasonReplicaSetUpdated, subject+" is progressing.")
			// A step forward refreshes the condition even when status and
			// reason stay the same: remove it first, keeping only the
			// transition time of a condition that was already True.
			if cur != nil {
				if cur.Status == api.ConditionTrue {
					cond.LastTransitionTime = cur.LastTransitionTime
				}
				removeDeploymentCondition(&st, api.DeploymentProgressing)
			}
			setDeploymentCondition(&st, cond)
		case s.deploymentTimedOut(d, &st):
			setDeploymentCondition(&st, s.newCondition(api.DeploymentProgressing, api.ConditionFalse,
				ReasonProgressDeadlineExceeded, subject+" has timed out progressing."))
		}
	}
	if failures := replicaFailures(allRSs, newRS); len(failures) > 0 {
		setDeploymentCondition(&st, failures[0])
	} else {
		removeDeploymentCondition(&st, api.DeploymentReplicaFailure)
	}
	if statusEqual(d.Status, st) {
		s.requeueStuckDeployment(d, st)
		return nil
	}
	d.Status = st
	return s.updateStatus(ctx, d)
}

// replicaFailures turns the ReplicaFailure conditions of the new
// ReplicaSet — or, when it has none, of any ReplicaSet — into Deployment
// conditions (getReplicaFailures).
func replicaFailures(allRSs []*api.ReplicaSet, newRS *api.ReplicaSet) []api.DeploymentCondition {
	var out []api.DeploymentCondition
	collect := func(rs *api.ReplicaSet) {
		for _, c := range rs.Status.Conditions {
			if c.Type == api.ReplicaSetReplicaFailure {
				out = append(out, api.DeploymentCondition{Type: api.DeploymentReplicaFailure, Status: c.Status,
					LastUpdateTime: c.LastTransitionTime, LastTransitionTime: c.LastTransitionTime,
					Reason: c.Reason, Message: c.Message})
			}
		}
	}
	if newRS != nil {
		collect(newRS)
	}
	if len(out) > 0 {
		return out
	}
	for _, rs := range allRSs {
		if rs != nil {
			collect(rs)
		}
	}
	return out
}

// requeueStuckDeployment asks for a sync just after the progress deadline
// of a rollout that has not finished and not timed out
// (requeueStuckDeployment): one second past it, or in a second when it is
// less than a second away.
func (s *syncer) requeueStuckDeployment(d *api.Deployment, st api.DeploymentStatus) {
	cur := api.GetDeploymentCondition(&d.Status, api.DeploymentProgressing)
	if !hasProgressDeadline(d) || cur == nil {
		return
	}
	if deploymentComplete(d, &st) || cur.Reason == ReasonProgressDeadlineExceeded {
		return
	}
	after := cur.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second).Sub(s.clock.Now())
	if after < time.Second {
		s.requeue = time.Second
		return
	}
	s.requeue = after + time.Second
}

// checkPausedConditions records pausing and resuming in the Progressing
// condition (Unknown, DeploymentPaused / DeploymentResumed), so that time
// spent paused never counts against the progress deadline; a timed-out
// condition is left as it is (checkPausedConditions).
func (s *syncer) checkPausedConditions(ctx context.Context, d *api.Deployment) error {
	if !hasProgressDeadline(d) {
		return nil
	}
	cond := api.GetDeploymentCondition(&d.Status, api.DeploymentProgressing)
	if cond != nil && cond.Reason == ReasonProgressDeadlineExceeded {
		return nil
	}
	pausedCond := cond != nil && cond.Reason == ReasonDeploymentPaused
	switch {
	case d.Spec.Paused && !pausedCond:
		s.setCondition(d, api.DeploymentProgressing, api.ConditionUnknown, ReasonDeploymentPaused, "Deployment is paused")
	case !d.Spec.Paused && pausedCond:
		s.setCondition(d, api.DeploymentProgressing, api.ConditionUnknown, ReasonDeploymentResumed, "Deployment is resumed")
	default:
		return nil
	}
	return s.updateStatus(ctx, d)
}
