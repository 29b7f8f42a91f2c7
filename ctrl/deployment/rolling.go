package deployment

import (
	"context"
	"fmt"
	"slices"

	"github.com/kcmlab/kcm/kube/api"
)

// A rolling update alternates two moves, one per sync, each waiting for
// the ReplicaSets' status to catch up: scale the new ReplicaSet up as far
// as maxSurge allows, then scale old ones down as far as maxUnavailable
// allows. With 3 replicas, maxSurge 1 and maxUnavailable 0, (old, new) go
// (3,0) → (3,1) → (2,1) → (2,2) → … → (0,3).

// rolloutRolling is one step of a rolling update (rolloutRolling).
func (s *syncer) rolloutRolling(ctx context.Context, d *api.Deployment, rsList []owned) error {
	newRS, oldRSs, err := s.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true)
	if err != nil {
		return err
	}
	allRSs := append(slices.Clone(oldRSs), newRS)
	scaledUp, err := s.reconcileNewReplicaSet(ctx, allRSs, newRS, d)
	if err != nil {
		return err
	}
	if scaledUp {
		return s.syncRolloutStatus(ctx, allRSs, newRS, d)
	}
	scaledDown, err := s.reconcileOldReplicaSets(ctx, allRSs, activeReplicaSets(oldRSs), newRS, d)
	if err != nil {
		return err
	}
	if scaledDown {
		return s.syncRolloutStatus(ctx, allRSs, newRS, d)
	}
	if deploymentComplete(d, &d.Status) {
		if err := s.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return err
		}
	}
	return s.syncRolloutStatus(ctx, allRSs, newRS, d)
}

// reconcileNewReplicaSet scales the new ReplicaSet down to spec.replicas
// if it is above, else up as far as NewRSNewReplicas allows
// (reconcileNewReplicaSet).
func (s *syncer) reconcileNewReplicaSet(ctx context.Context, allRSs []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment) (bool, error) {
	switch n := specReplicas(newRS); {
	case n == desired(d):
		return false, nil
	case n > desired(d):
		scaled, _, err := s.scaleReplicaSetAndRecordEvent(ctx, newRS, desired(d), d)
		return scaled, err
	}
	size, err := NewRSNewReplicas(d, allRSs, newRS)
	if err != nil {
		return false, err
	}
	scaled, _, err := s.scaleReplicaSetAndRecordEvent(ctx, newRS, size, d)
	return scaled, err
}

// reconcileOldReplicaSets scales old ReplicaSets down as far as
// availability allows (reconcileOldReplicaSets). The room is
//
//	maxScaledDown = all pods - minAvailable - new pods not yet available
//
// so that unavailable new pods are never counted on. Unhealthy old
// replicas go first (cleanupUnhealthyReplicas), then available ones
// (scaleDownOldReplicaSetsForRollingUpdate). Errors of either step are
// swallowed, as Kubernetes does: the next sync tries again.
func (s *syncer) reconcileOldReplicaSets(ctx context.Context, allRSs, oldRSs []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment) (bool, error) {
	if totalSpecReplicas(oldRSs) == 0 {
		return false, nil // nothing to scale down
	}
	minAvailable := desired(d) - MaxUnavailable(d)
	newUnavailable := specReplicas(newRS) - newRSAvailable(newRS)
	maxScaledDown := totalSpecReplicas(allRSs) - minAvailable - newUnavailable
	if maxScaledDown <= 0 {
		return false, nil
	}
	oldRSs, cleaned, err := s.cleanupUnhealthyReplicas(ctx, oldRSs, d, maxScaledDown)
	if err != nil {
		s.log.Debug().Err(err).Str("deployment", d.Key()).Msg("cleaning up unhealthy replicas")
		return false, nil
	}
	allRSs = append(slices.Clone(oldRSs), newRS)
	scaledDown, err := s.scaleDownOldReplicaSetsForRollingUpdate(ctx, allRSs, oldRSs, d)
	if err != nil {
		s.log.Debug().Err(err).Str("deployment", d.Key()).Msg("scaling down old replica sets")
		return false, nil
	}
	return cleaned+scaledDown > 0, nil
}

func newRSAvailable(rs *api.ReplicaSet) int32 {
	if rs == nil {
		return 0
	}
	return rs.Status.AvailableReplicas
}

// cleanupUnhealthyReplicas scales down, oldest ReplicaSet first, the old
// replicas that are not available, at most maxCleanup in all
// (cleanupUnhealthyReplicas). They add nothing to availability, so
// removing them first frees room for new pods without any risk.
func (s *syncer) cleanupUnhealthyReplicas(ctx context.Context, oldRSs []*api.ReplicaSet, d *api.Deployment, maxCleanup int32) ([]*api.ReplicaSet, int32, error) {
	slices.SortStableFunc(oldRSs, byCreation)
	var total int32
	for i, rs := range oldRSs {
		if total >= maxCleanup {
			break
		}
		n := specReplicas(rs)
		if n == 0 || n == rs.Status.AvailableReplicas {
			continue // nothing to scale down, or nothing unhealthy
		}
		down := min(maxCleanup-total, n-rs.Status.AvailableReplicas)
		size := n - down
		if size > n {
			return nil, 0, fmt.Errorf("cleaning up unhealthy replicas: invalid request to scale down %s/%s %d -> %d", rs.Namespace, rs.Name, n, size)
		}
		_, updated, err := s.scaleReplicaSetAndRecordEvent(ctx, rs, size, d)
		if err != nil {
			return nil, total, err
		}
		total += down
		oldRSs[i] = updated
	}
	return oldRSs, total, nil
}

// scaleDownOldReplicaSetsForRollingUpdate scales old ReplicaSets down,
// oldest first, by as many replicas as are available above minAvailable
// (scaleDownOldReplicaSetsForRollingUpdate).
func (s *syncer) scaleDownOldReplicaSetsForRollingUpdate(ctx context.Context, allRSs, oldRSs []*api.ReplicaSet, d *api.Deployment) (int32, error) {
	minAvailable := desired(d) - MaxUnavailable(d)
	available := totalAvailable(allRSs)
	if available <= minAvailable {
		return 0, nil // no room
	}
	slices.SortStableFunc(oldRSs, byCreation)
	var total int32
	want := available - minAvailable
	for _, rs := range oldRSs {
		if total >= want {
			break
		}
		n := specReplicas(rs)
		if n == 0 {
			continue
		}
		down := min(n, want-total) // both positive: size stays in 0..n
		if _, _, err := s.scaleReplicaSetAndRecordEvent(ctx, rs, n-down, d); err != nil {
			return total, err
		}
		total += down
	}
	return total, nil
}
