package replicaset

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
)

// Reasons of the ReplicaFailure condition.
const (
	ReasonFailedCreate = "FailedCreate"
	ReasonFailedDelete = "FailedDelete"
)

// calculateStatus is the status rs should report for its claimed active
// pods at now (Kubernetes' calculateStatus):
//
//   - replicas: active pods (not terminal, not being deleted);
//   - fullyLabeledReplicas: those carrying every label of the template;
//   - readyReplicas: those whose Ready condition is True;
//   - availableReplicas: those Ready for at least minReadySeconds;
//   - the ReplicaFailure condition: set (True, reason FailedCreate or
//     FailedDelete, the error as message) when manageErr is not nil and
//     the condition is absent; removed when manageErr is nil. An existing
//     condition is left as is while errors continue.
//   - terminatingReplicas: terminating, the claimed pods being deleted
//     that have not reached a terminal phase. Kubernetes fills it under
//     the DeploymentReplicaSetTerminatingReplicas gate, beta and on by
//     default since 1.35, so kcm always does.
//
// observedGeneration is set by updateStatus, when it writes.
func calculateStatus(rs *api.ReplicaSet, active []*api.Pod, terminating int32, manageErr error, now time.Time) api.ReplicaSetStatus {
	st := rs.Status // Conditions still shares the cache's array: only replace it, never write into it
	template := labels.SelectorFromSet(rs.Spec.Template.Labels)
	var labeled, ready, available int32
	for _, p := range active {
		if template.Matches(p.Labels) {
			labeled++
		}
		if api.IsPodReady(p) {
			ready++
			if api.IsPodAvailable(p, rs.Spec.MinReadySeconds, now) {
				available++
			}
		}
	}
	failure := getCondition(rs.Status, api.ReplicaSetReplicaFailure)
	switch {
	case manageErr != nil && failure == nil:
		reason := ""
		if diff := len(active) - int(desiredReplicas(rs)); diff < 0 {
			reason = ReasonFailedCreate
		} else if diff > 0 {
			reason = ReasonFailedDelete
		}
		st.Conditions = append(withoutCondition(st.Conditions, api.ReplicaSetReplicaFailure), api.ReplicaSetCondition{
			Type: api.ReplicaSetReplicaFailure, Status: api.ConditionTrue,
			LastTransitionTime: api.NewTime(now), Reason: reason, Message: manageErr.Error(),
		})
	case manageErr == nil && failure != nil:
		st.Conditions = withoutCondition(st.Conditions, api.ReplicaSetReplicaFailure)
	}
	st.Replicas = int32(len(active))
	st.FullyLabeledReplicas = labeled
	st.ReadyReplicas = ready
	st.AvailableReplicas = available
	st.TerminatingReplicas = &terminating
	return st
}

// desiredReplicas is spec.replicas, 1 when unset (the API's default).
func desiredReplicas(rs *api.ReplicaSet) int32 {
	if rs.Spec.Replicas == nil {
		return 1
	}
	return *rs.Spec.Replicas
}

// getCondition returns a copy of the condition of type t, or nil.
func getCondition(st api.ReplicaSetStatus, t string) *api.ReplicaSetCondition {
	for _, c := range st.Conditions {
		if c.Type == t {
			return &c
		}
	}
	return nil
}

// withoutCondition returns a new slice without the conditions of type t
// (nil when none are left, as Kubernetes' filterOutCondition).
func withoutCondition(cs []api.ReplicaSetCondition, t string) []api.ReplicaSetCondition {
	var out []api.ReplicaSetCondition
	for _, c := range cs {
		if c.Type != t {
			out = append(out, c)
		}
	}
	return out
}

// statusUnchanged reports whether writing st would change nothing: the
// counts and conditions are the same and the current generation was
// already observed.
func statusUnchanged(rs *api.ReplicaSet, st api.ReplicaSetStatus) bool {
	cur := rs.Status
	return cur.Replicas == st.Replicas &&
		cur.FullyLabeledReplicas == st.FullyLabeledReplicas &&
		cur.ReadyReplicas == st.ReadyReplicas &&
		cur.AvailableReplicas == st.AvailableReplicas &&
		equalPtr(cur.TerminatingReplicas, st.TerminatingReplicas) &&
		rs.Generation == cur.ObservedGeneration &&
		reflect.DeepEqual(cur.Conditions, st.Conditions)
}

// equalPtr is Kubernetes' ptr.Equal: both nil, or both set and equal.
func equalPtr(a, b *int32) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// statusUpdateRetries is how many times a failed status write is retried
// after a fresh read (Kubernetes' statusUpdateRetries).
const statusUpdateRetries = 1

// updateStatus writes st (with observedGeneration = rs.generation) through
// the status subresource, unless it would change nothing; a failed write
// is retried once on a fresh copy read from the apiserver (Kubernetes'
// updateReplicaSetStatus). It returns the ReplicaSet as written, or rs
// when nothing was written.
func (c *Controller) updateStatus(ctx context.Context, rs *api.ReplicaSet, st api.ReplicaSetStatus) (*api.ReplicaSet, error) {
	if statusUnchanged(rs, st) {
		return rs, nil
	}
	st.ObservedGeneration = rs.Generation
	cur := rs
	for try := 0; ; try++ {
		next, err := api.DeepCopy(cur)
		if err != nil {
			return nil, err
		}
		next.Status = st
		c.log.Debug().Str("replicaset", rs.Key()).
			Int32("replicas", st.Replicas).Int32("ready", st.ReadyReplicas).Int32("available", st.AvailableReplicas).
			Int64("observedGeneration", st.ObservedGeneration).Msg("updating status")
		updated, err := c.rsClient.InNamespace(rs.Namespace).UpdateStatus(ctx, next)
		if err == nil {
			return updated, nil
		}
		if try >= statusUpdateRetries {
			return nil, fmt.Errorf("updating status of ReplicaSet %s: %w", rs.Key(), err)
		}
		if cur, err = c.rsClient.InNamespace(rs.Namespace).Get(ctx, rs.Name); err != nil {
			return nil, fmt.Errorf("reading ReplicaSet %s to retry its status update: %w", rs.Key(), err)
		}
	}
}

// availableAfter returns how long until the next of the active pods that
// are Ready but not yet available becomes available; 0 when none is
// waiting. Syncing again then makes availableReplicas change at the
// moment it becomes true rather than at the next unrelated event.
func availableAfter(rs *api.ReplicaSet, active []*api.Pod, now time.Time) time.Duration {
	minReady := time.Duration(rs.Spec.MinReadySeconds) * time.Second
	if minReady <= 0 {
		return 0
	}
	var next time.Duration
	for _, p := range active {
		if !api.IsPodReady(p) || api.IsPodAvailable(p, rs.Spec.MinReadySeconds, now) {
			continue
		}
		wait := minReady // no transition time: check again a full minReadySeconds later
		if since := readySince(p); !since.IsZero() {
			wait = since.Add(minReady).Sub(now)
		}
		if next == 0 || wait < next {
			next = wait
		}
	}
	return next
}
