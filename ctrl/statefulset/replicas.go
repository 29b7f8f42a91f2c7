package statefulset

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/history"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// maxBatchSize bounds a Parallel set's batch of concurrent pod calls
// (upstream's MaxBatchSize).
const maxBatchSize = 500

// ReasonUnknownStrategy is the Warning a set with the Recreate update
// strategy gets: the StatefulSetRecreateStrategy feature gate is off at
// the reference release, so the set is not reconciled at all.
const ReasonUnknownStrategy = "UnknownStrategy"

// updateStatefulSet does one round of the set's pod work and returns the
// status to record (upstream's updateStatefulSet). Pods are split by
// ordinal: replicas, the ordinals [start, start+replicas), each slot
// filled with its pod or with a new pod of the right revision
// (newVersionedStatefulSetPod: the current revision below the partition,
// else the update revision); condemned, valid ordinals outside the range,
// highest first. Pods whose names carry no ordinal are ignored.
//
// In OrderedReady (monotonic) each step may end the round: a replica that
// is created, failed, terminating, not Running and Ready, or not yet
// available stops it, and a condemned pod is deleted only when every
// replica is available and it is the highest condemned one, unless it is
// itself the first unavailable pod. Parallel (burst) sets do each step for
// every pod at once (slow start). Then the update strategy: OnDelete
// stops here, RollingUpdate deletes old-revision pods within
// maxUnavailable (rolling.go). A set being deleted only gets its status.
func (c *setControl) updateStatefulSet(ctx context.Context, set *api.StatefulSet, currentRevision, updateRevision *api.ControllerRevision,
	collisionCount int32, pods []*api.Pod, now time.Time) (*api.StatefulSetStatus, error) {
	currentSet, err := history.ApplyRevision(set, currentRevision)
	if err != nil {
		return nil, err
	}
	updateSet, err := history.ApplyRevision(set, updateRevision)
	if err != nil {
		return nil, err
	}
	if set.Spec.UpdateStrategy.Type == api.RecreateStatefulSetStrategyType {
		err := fmt.Errorf("statefulset %s/%s uses Recreate strategy but feature gate StatefulSetRecreateStrategy is disabled", set.Namespace, set.Name)
		c.recorder.Eventf(ctrl.Ref(rest.StatefulSets, set), api.EventTypeWarning, ReasonUnknownStrategy, "%s", err.Error())
		return nil, err
	}

	status := api.StatefulSetStatus{ObservedGeneration: set.Generation, CurrentRevision: currentRevision.Name,
		UpdateRevision: updateRevision.Name, CollisionCount: &collisionCount}
	status.Conditions = append(status.Conditions, set.Status.Conditions...)
	updateStatus(&status, set.Spec.MinReadySeconds, currentRevision, updateRevision, now, pods)

	start, end := getStartOrdinal(set), getEndOrdinal(set)
	replicas := make([]*api.Pod, desiredReplicaCount(set))
	condemned := make([]*api.Pod, 0, len(pods))
	for _, pod := range pods {
		if podInOrdinalRange(pod, set) {
			replicas[getOrdinal(pod)-start] = pod
		} else if getOrdinal(pod) >= 0 {
			condemned = append(condemned, pod)
		}
	}
	for ord := start; ord <= end; ord++ {
		if replicas[ord-start] == nil {
			if replicas[ord-start], err = newVersionedStatefulSetPod(currentSet, updateSet, currentRevision.Name, updateRevision.Name, ord); err != nil {
				return nil, err
			}
		}
	}
	slices.SortStableFunc(condemned, func(a, b *api.Pod) int { return cmp.Compare(getOrdinal(b), getOrdinal(a)) })

	// The first unavailable pod: of the replicas, lowest ordinal first,
	// then of the condemned, lowest first.
	unavailable := 0
	var firstUnavailable *api.Pod
	for _, p := range replicas {
		if isUnavailable(p, set.Spec.MinReadySeconds, now) {
			unavailable++
			if firstUnavailable == nil {
				firstUnavailable = p
			}
		}
	}
	for i := len(condemned) - 1; i >= 0; i-- {
		if isUnavailable(condemned[i], set.Spec.MinReadySeconds, now) {
			unavailable++
			if firstUnavailable == nil {
				firstUnavailable = condemned[i]
			}
		}
	}
	if unavailable > 0 {
		c.log.Debug().Str("statefulSet", set.Key()).Int("unavailableReplicas", unavailable).
			Str("pod", firstUnavailable.Name).Msg("statefulset has unavailable pods")
	}

	if set.DeletionTimestamp != nil {
		return &status, nil
	}
	monotonic := !allowsBurst(set)
	recount := func() {
		updateStatus(&status, set.Spec.MinReadySeconds, currentRevision, updateRevision, now, replicas, condemned)
	}

	if exit, err := runForAll(replicas, func(i int) (bool, error) {
		return c.processReplica(ctx, set, updateSet, monotonic, replicas, i, now)
	}, monotonic); exit || err != nil {
		recount()
		return &status, err
	}
	if exit, err := runForAll(condemned, func(i int) (bool, error) {
		match, err := c.pods.ClaimsMatchRetentionPolicy(ctx, updateSet, condemned[i])
		if err != nil {
			return true, err
		}
		if !match {
			if err := c.pods.UpdatePodClaimForRetentionPolicy(ctx, updateSet, condemned[i]); err != nil {
				return true, err
			}
		}
		return false, nil
	}, monotonic); exit || err != nil {
		recount()
		return &status, err
	}
	// In monotonic mode every replica is now Running, Ready and
	// available: condemned pods go, highest ordinal first. Scaling comes
	// before updating.
	if exit, err := runForAll(condemned, func(i int) (bool, error) {
		return c.processCondemned(ctx, set, firstUnavailable, monotonic, condemned, i, now)
	}, monotonic); exit || err != nil {
		recount()
		return &status, err
	}
	recount()

	if set.Spec.UpdateStrategy.Type == api.OnDeleteStatefulSetStrategyType {
		return &status, nil
	}
	return c.rollingUpdate(ctx, set, replicas, updateRevision, status, now)
}

// processReplica handles the replica in slot i; it reports whether the
// round must stop here.
func (c *setControl) processReplica(ctx context.Context, set, updateSet *api.StatefulSet, monotonic bool,
	replicas []*api.Pod, i int, now time.Time) (bool, error) {
	pod := replicas[i]
	// A failed or succeeded pod (evicted, its node rebooted: the phase is
	// its containers' exit, not why it stopped) is deleted; its successor
	// is created on a later round, once it is gone.
	if isTerminalPhase(pod) {
		if pod.DeletionTimestamp == nil {
			cp, err := writableCopy(pod)
			if err != nil {
				return true, err
			}
			if err := c.pods.DeleteStatefulPod(ctx, set, cp); err != nil {
				return true, err
			}
		}
		return true, nil
	}
	if !isCreated(pod) {
		stale, err := c.pods.PodClaimIsStale(set, pod)
		if err != nil || stale {
			// A claim left from an earlier pod is being deleted: wait.
			return true, err
		}
		if err := c.pods.CreateStatefulPod(ctx, set, pod); err != nil {
			return true, err
		}
		if monotonic {
			return true, nil
		}
	}
	if isPending(pod) {
		c.log.Debug().Str("statefulSet", set.Key()).Str("pod", pod.Name).Msg("creating missing claims of pending pod")
		if err := c.pods.CreateMissingPersistentVolumeClaims(ctx, set, pod); err != nil {
			return true, err
		}
	}
	if monotonic {
		switch {
		case isTerminating(pod):
			c.log.Debug().Str("statefulSet", set.Key()).Str("pod", pod.Name).Msg("waiting for pod to terminate")
			return true, nil
		case !isRunningAndReady(pod):
			c.log.Debug().Str("statefulSet", set.Key()).Str("pod", pod.Name).Msg("waiting for pod to be Running and Ready")
			return true, nil
		case !isRunningAndAvailable(pod, set.Spec.MinReadySeconds, now):
			c.log.Debug().Str("statefulSet", set.Key()).Str("pod", pod.Name).Msg("waiting for pod to be available")
			return true, nil
		}
	}
	// The invariants: identity, storage, and the claims' owners as the
	// retention policy wants them. A pod not yet fully updated may fail
	// the retention check: that counts as a match.
	retentionMatch, err := c.pods.ClaimsMatchRetentionPolicy(ctx, updateSet, pod)
	if err != nil {
		retentionMatch = true
	}
	if identityMatches(set, pod) && storageMatches(set, pod) && retentionMatch {
		return false, nil
	}
	cp, err := writableCopy(pod)
	if err != nil {
		return true, err
	}
	if err := c.pods.UpdateStatefulPod(ctx, updateSet, cp); err != nil {
		return true, err
	}
	return false, nil
}

// processCondemned deletes the condemned pod i, unless in monotonic mode
// it must wait: for a terminating pod to go, and for a pod not Running,
// Ready and available — unless that pod is the first unavailable one,
// which is deleted rather than waited for.
func (c *setControl) processCondemned(ctx context.Context, set *api.StatefulSet, firstUnavailable *api.Pod, monotonic bool,
	condemned []*api.Pod, i int, now time.Time) (bool, error) {
	pod := condemned[i]
	if isTerminating(pod) {
		if monotonic {
			c.log.Debug().Str("statefulSet", set.Key()).Str("pod", pod.Name).Msg("waiting for pod to terminate before scale down")
			return true, nil
		}
		return false, nil
	}
	if monotonic && pod != firstUnavailable && !isRunningAndReady(pod) {
		c.log.Debug().Str("statefulSet", set.Key()).Str("pod", firstUnavailable.Name).Msg("waiting for pod to be Running and Ready before scale down")
		return true, nil
	}
	if monotonic && pod != firstUnavailable && !isRunningAndAvailable(pod, set.Spec.MinReadySeconds, now) {
		c.log.Debug().Str("statefulSet", set.Key()).Str("pod", firstUnavailable.Name).Msg("waiting for pod to be available before scale down")
		return true, nil
	}
	c.log.Info().Str("statefulSet", set.Key()).Str("pod", pod.Name).Msg("deleting pod for scale down")
	cp, err := writableCopy(pod)
	if err != nil {
		return true, err
	}
	return true, c.pods.DeleteStatefulPod(ctx, set, cp)
}

// runForAll runs fn for each pod: in order, stopping at the first that
// says stop or fails, when monotonic; otherwise all of them, in slow-start
// batches, and stops only on errors.
func runForAll(pods []*api.Pod, fn func(i int) (bool, error), monotonic bool) (bool, error) {
	if monotonic {
		for i := range pods {
			if exit, err := fn(i); exit || err != nil {
				return true, err
			}
		}
		return false, nil
	}
	if _, err := slowStartBatch(1, len(pods), fn); err != nil {
		return true, err
	}
	return false, nil
}

// slowStartBatch calls fn for the indexes 0..remaining-1 in concurrent
// batches of 1, 2, 4, ... (at most maxBatchSize), stopping after a batch
// with a failure; it returns how many calls succeeded and the batch's
// errors joined. fn's first result is ignored.
func slowStartBatch(initial, remaining int, fn func(int) (bool, error)) (int, error) {
	successes, next := 0, 0
	for size := min(remaining, initial); size > 0; size = min(2*size, remaining, maxBatchSize) {
		errs := make([]error, size)
		var wg sync.WaitGroup
		for k := range size {
			wg.Go(func() { _, errs[k] = fn(next + k) })
		}
		wg.Wait()
		next += size
		failed := 0
		for _, err := range errs {
			if err != nil {
				failed++
			}
		}
		successes += size - failed
		if failed > 0 {
			return successes, errors.Join(errs...)
		}
		remaining -= size
	}
	return successes, nil
}
