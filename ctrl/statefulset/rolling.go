package statefulset

import (
	"context"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// rollingUpdate is the RollingUpdate strategy once the set's invariants
// hold (upstream's updateStatefulSetAfterInvariantEstablished, the
// MaxUnavailableStatefulSet feature gate being on at the reference
// release): pods of the old revision are deleted, highest ordinal first,
// down to the partition (slot index, counted from spec.ordinals.start),
// while fewer than maxUnavailable replicas are unavailable; their
// replacements come from the update revision on a later round.
//
//   - unavailable counts the replicas not available (minReadySeconds) or
//     terminating, slots with no pod included; it is reported as
//     statefulset_unavailable_replicas.
//   - OrderedReady: nothing is deleted while unavailable >=
//     maxUnavailable; otherwise up to maxUnavailable - unavailable pods of
//     the old revision, not terminating, are deleted from the top.
//   - Parallel: old-revision pods that are already unavailable do not hold
//     the update back: first every such pod (not terminating) above the
//     partition is deleted, then available old-revision pods from the top
//     within what is left of the budget.
//
// Each deletion lowers status.currentReplicas.
func (c *setControl) rollingUpdate(ctx context.Context, set *api.StatefulSet, replicas []*api.Pod,
	updateRevision *api.ControllerRevision, status api.StatefulSetStatus, now time.Time) (*api.StatefulSetStatus, error) {
	policy := string(set.Spec.PodManagementPolicy)
	updateMin, maxUnavailable := 0, 1
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		if ru.Partition != nil {
			updateMin = int(*ru.Partition)
		}
		var err error
		if maxUnavailable, err = getStatefulSetMaxUnavailable(ru.MaxUnavailable, desiredReplicaCount(set)); err != nil {
			return &status, err
		}
	}
	parallel := set.Spec.PodManagementPolicy == api.ParallelPodManagement
	minReady := set.Spec.MinReadySeconds
	old := func(p *api.Pod) bool { return getPodRevision(p) != updateRevision.Name }

	unavailable, unavailableOld := 0, 0
	for _, p := range replicas {
		if isUnavailable(p, minReady, now) {
			unavailable++
			if parallel && old(p) && !isTerminating(p) {
				unavailableOld++
			}
		}
	}
	c.metrics.SetUnavailableReplicas(set.Namespace, set.Name, policy, unavailable)
	if unavailable >= maxUnavailable && unavailableOld == 0 {
		if unavailable > maxUnavailable {
			c.log.Debug().Str("statefulSet", set.Key()).Int("unavailablePods", unavailable).
				Int("maxUnavailable", maxUnavailable).Msg("more unavailable pods than maxUnavailable")
		}
		return &status, nil
	}

	del := func(p *api.Pod, why string) error {
		c.log.Info().Str("statefulSet", set.Key()).Str("pod", p.Name).Msg(why)
		cp, err := writableCopy(p)
		if err != nil {
			return err
		}
		if err := c.pods.DeleteStatefulPod(ctx, set, cp); err != nil {
			return err
		}
		status.CurrentReplicas--
		return nil
	}

	if parallel {
		for target := len(replicas) - 1; target >= updateMin; target-- {
			p := replicas[target]
			if old(p) && !isRunningAndAvailable(p, minReady, now) && !isTerminating(p) {
				if err := del(p, "deleting unavailable pod for update"); err != nil {
					return &status, err
				}
			}
		}
		budget := maxUnavailable - unavailable
		for target := len(replicas) - 1; target >= updateMin && budget > 0; target-- {
			p := replicas[target]
			if old(p) && !isUnavailable(p, minReady, now) {
				if err := del(p, "deleting pod for update"); err != nil {
					return &status, err
				}
				budget--
			}
		}
		return &status, nil
	}

	toDelete, deleted := maxUnavailable-unavailable, 0
	for target := len(replicas) - 1; target >= updateMin && deleted < toDelete; target-- {
		p := replicas[target]
		if old(p) && !isTerminating(p) {
			if err := del(p, "deleting pod for update"); err != nil {
				return &status, err
			}
			deleted++
		}
	}
	return &status, nil
}

// getStatefulSetMaxUnavailable is maxUnavailable resolved against the
// replica count (unset: 1; a percentage rounded down), and at least 1.
func getStatefulSetMaxUnavailable(maxUnavailable *api.IntOrString, replicaCount int) (int, error) {
	v := api.IntOrStringFromInt(1)
	if maxUnavailable != nil {
		v = *maxUnavailable
	}
	n, err := v.ScaledValue(replicaCount, false)
	if err != nil {
		return 0, err
	}
	return max(n, 1), nil
}
