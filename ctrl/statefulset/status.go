package statefulset

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// replicaStatus are the pod counts of a StatefulSet's status.
type replicaStatus struct {
	replicas, readyReplicas, availableReplicas, currentReplicas, updatedReplicas int32
}

// computeReplicaStatus counts pods as the statefulset controller does:
// replicas, the pods created (with a phase); readyReplicas, those Running
// with Ready True; availableReplicas, those of them Ready for
// minReadySeconds; currentReplicas and updatedReplicas, the created pods
// not terminating whose controller-revision-hash names the current or
// the update revision.
func computeReplicaStatus(pods []*api.Pod, minReadySeconds int32, currentRevision, updateRevision *api.ControllerRevision, now time.Time) replicaStatus {
	var s replicaStatus
	for _, pod := range pods {
		if isCreated(pod) {
			s.replicas++
		}
		if isRunningAndReady(pod) {
			s.readyReplicas++
			if isRunningAndAvailable(pod, minReadySeconds, now) {
				s.availableReplicas++
			}
		}
		if isCreated(pod) && !isTerminating(pod) {
			rev := getPodRevision(pod)
			if rev == currentRevision.Name {
				s.currentReplicas++
			}
			if rev == updateRevision.Name {
				s.updatedReplicas++
			}
		}
	}
	return s
}

// updateStatus sets status's counts to those of the pods of podLists.
func updateStatus(status *api.StatefulSetStatus, minReadySeconds int32, currentRevision, updateRevision *api.ControllerRevision,
	now time.Time, podLists ...[]*api.Pod) {
	status.Replicas, status.ReadyReplicas, status.AvailableReplicas, status.CurrentReplicas, status.UpdatedReplicas = 0, 0, 0, 0, 0
	for _, pods := range podLists {
		s := computeReplicaStatus(pods, minReadySeconds, currentRevision, updateRevision, now)
		status.Replicas += s.replicas
		status.ReadyReplicas += s.readyReplicas
		status.AvailableReplicas += s.availableReplicas
		status.CurrentReplicas += s.currentReplicas
		status.UpdatedReplicas += s.updatedReplicas
	}
}

// completeUpdate ends a rollout in status: once every one of the set's
// replicas exists, is ready and is of the update revision, the update
// revision becomes the current one (currentRevision = updateRevision,
// currentReplicas = updatedReplicas).
func completeUpdate(set *api.StatefulSet, status *api.StatefulSetStatus) {
	want := int32(desiredReplicaCount(set))
	if status.UpdatedReplicas == want && status.ReadyReplicas == want && status.Replicas == want {
		status.CurrentReplicas = status.UpdatedReplicas
		status.CurrentRevision = status.UpdateRevision
	}
}

// inconsistentStatus reports whether status must be written: a newer
// observedGeneration, or any count, revision or condition that differs
// from set's status. collisionCount alone is not compared (upstream's
// rule: it is written with the next change).
func inconsistentStatus(set *api.StatefulSet, status *api.StatefulSetStatus) bool {
	cur := &set.Status
	return status.ObservedGeneration > cur.ObservedGeneration ||
		status.Replicas != cur.Replicas ||
		status.CurrentReplicas != cur.CurrentReplicas ||
		status.ReadyReplicas != cur.ReadyReplicas ||
		status.UpdatedReplicas != cur.UpdatedReplicas ||
		status.CurrentRevision != cur.CurrentRevision ||
		status.AvailableReplicas != cur.AvailableReplicas ||
		status.UpdateRevision != cur.UpdateRevision ||
		!reflect.DeepEqual(cur.Conditions, status.Conditions)
}

// updateStatefulSetStatus completes a finished rollout in status, reports
// statefulset_max_unavailable, and writes status when it differs from
// set's (upstream's updateStatefulSetStatus).
func (c *setControl) updateStatefulSetStatus(ctx context.Context, set *api.StatefulSet, status *api.StatefulSetStatus) error {
	completeUpdate(set, status)
	maxUnavailable := 1
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		var err error
		if maxUnavailable, err = getStatefulSetMaxUnavailable(ru.MaxUnavailable, desiredReplicaCount(set)); err != nil {
			return err
		}
	}
	c.metrics.SetMaxUnavailable(set.Namespace, set.Name, string(set.Spec.PodManagementPolicy), maxUnavailable)
	if !inconsistentStatus(set, status) {
		return nil
	}
	return c.writeStatus(ctx, set, status)
}

// writeStatus writes status through the status subresource (upstream's
// realStatefulSetStatusUpdater): a failed write is retried on conflicts
// (client-go's DefaultRetry: 5 tries), each retry on the set re-read from
// the cache (the apiserver when there is none); a successful write is
// recorded for the stale-cache rule.
func (c *setControl) writeStatus(ctx context.Context, set *api.StatefulSet, status *api.StatefulSetStatus) error {
	client := c.sets.InNamespace(set.Namespace)
	cur := set
	err := retryOnConflict(ctx, statusBackoff, c.waitFor, func() error {
		next, err := api.DeepCopy(cur)
		if err != nil {
			return err
		}
		next.Status = *status
		written, err := client.UpdateStatus(ctx, next)
		if err == nil {
			c.consistency.WroteAt(written.Key(), written.UID, ctrl.GroupResourceOf(rest.StatefulSets), written.ResourceVersion)
			return nil
		}
		if fresh, gerr := c.rereadSet(ctx, set); gerr == nil {
			cur = fresh
		} else {
			c.log.Error().Err(gerr).Str("statefulSet", set.Key()).Msg("re-reading StatefulSet to retry its status update")
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("updating status of StatefulSet %s: %w", set.Key(), err)
	}
	return nil
}

// rereadSet reads set again: from the cache when there is one.
func (c *setControl) rereadSet(ctx context.Context, set *api.StatefulSet) (*api.StatefulSet, error) {
	if c.setCache != nil {
		return c.setCache.StatefulSets(set.Namespace).Get(set.Name)
	}
	return c.sets.InNamespace(set.Namespace).Get(ctx, set.Name)
}
