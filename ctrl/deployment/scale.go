package deployment

import (
	"context"
	"math"
	"slices"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/api"
)

// Scaling is what happens when spec.replicas changes, as opposed to the
// template: no new ReplicaSet, but the existing ones resized. With a
// single active ReplicaSet it simply takes the new size. In the middle of
// a rolling update the change is shared out proportionally, so that the
// rollout keeps its shape (5 old : 5 new stays half and half).

// isScalingEvent reports whether some active ReplicaSet was last sized
// for another spec.replicas than d's (desired-replicas annotation)
// (isScalingEvent).
func (s *syncer) isScalingEvent(ctx context.Context, d *api.Deployment, rsList []owned) (bool, error) {
	newRS, oldRSs, err := s.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return false, err
	}
	for _, rs := range activeReplicaSets(append(oldRSs, newRS)) {
		if want, ok := nonNegativeAnnotation(rs, DesiredReplicasAnnotation); ok && want != desired(d) {
			return true, nil
		}
	}
	return false, nil
}

// sync reconciles a scaling event or a paused Deployment: resize, clean up
// old ReplicaSets when paused, write the status (sync).
func (s *syncer) sync(ctx context.Context, d *api.Deployment, rsList []owned) error {
	newRS, oldRSs, err := s.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	if err := s.scale(ctx, d, newRS, oldRSs); err != nil {
		return err
	}
	if d.Spec.Paused && rollbackTo(d) == nil {
		if err := s.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return err
		}
	}
	return s.syncDeploymentStatus(ctx, append(oldRSs, newRS), newRS, d)
}

// scale resizes d's ReplicaSets for spec.replicas (scale):
//   - one active ReplicaSet (or none, then the newest): it gets
//     spec.replicas;
//   - the new ReplicaSet saturated: every old one goes to 0;
//   - otherwise, for a rolling update, the difference between
//     spec.replicas+maxSurge and the replicas all ReplicaSets have is
//     shared out in proportion to their sizes, the rounding leftover going
//     to the first in order — the largest (newest among equals) when
//     adding, the largest (oldest among equals) when removing.
func (s *syncer) scale(ctx context.Context, d *api.Deployment, newRS *api.ReplicaSet, oldRSs []*api.ReplicaSet) error {
	if only := findActiveOrLatest(newRS, oldRSs); only != nil {
		if specReplicas(only) == desired(d) {
			return nil
		}
		_, _, err := s.scaleReplicaSetAndRecordEvent(ctx, only, desired(d), d)
		return err
	}
	if IsSaturated(d, newRS) {
		for _, old := range activeReplicaSets(oldRSs) {
			if _, _, err := s.scaleReplicaSetAndRecordEvent(ctx, old, 0, d); err != nil {
				return err
			}
		}
		return nil
	}
	if !isRollingUpdate(d) {
		return nil
	}
	all := activeReplicaSets(append(oldRSs, newRS))
	sizes := proportionalSizes(d, all)
	for _, rs := range all {
		if _, _, err := s.scaleReplicaSet(ctx, rs, sizes[rs.Name], d); err != nil {
			return err
		}
	}
	return nil
}

// proportionalSizes computes the new size of each active ReplicaSet of a
// rolling update being scaled; it sorts all in the order the leftover is
// given by.
func proportionalSizes(d *api.Deployment, all []*api.ReplicaSet) map[string]int32 {
	var allowed int32
	if desired(d) > 0 {
		allowed = desired(d) + MaxSurge(d)
	}
	toAdd := allowed - totalSpecReplicas(all)
	switch {
	case toAdd > 0:
		slices.SortStableFunc(all, bySizeNewer)
	case toAdd < 0:
		slices.SortStableFunc(all, bySizeOlder)
	}
	sizes := make(map[string]int32, len(all))
	var added int32
	for _, rs := range all {
		if toAdd == 0 {
			sizes[rs.Name] = specReplicas(rs)
			continue
		}
		p := replicaSetProportion(rs, d, toAdd, added)
		sizes[rs.Name] = specReplicas(rs) + p
		added += p
	}
	if toAdd != 0 && len(all) > 0 {
		first := all[0].Name
		sizes[first] = max(sizes[first]+toAdd-added, 0)
	}
	return sizes
}

// replicaSetProportion is how many replicas rs gains (or, negative,
// loses) of toAdd, of which added are already given out
// (GetReplicaSetProportion): its fraction, capped by what is left.
func replicaSetProportion(rs *api.ReplicaSet, d *api.Deployment, toAdd, added int32) int32 {
	if rs == nil || specReplicas(rs) == 0 || toAdd == 0 || toAdd == added {
		return 0
	}
	fraction := replicaSetFraction(rs, d)
	left := toAdd - added
	if toAdd > 0 {
		return min(fraction, left)
	}
	return max(fraction, left)
}

// replicaSetFraction is rs's share of the new size: its size times the
// new spec.replicas+maxSurge over the old one (the max-replicas
// annotation, or the status replicas when that is missing), rounded to
// nearest; everything when scaling to 0 (getReplicaSetFraction).
func replicaSetFraction(rs *api.ReplicaSet, d *api.Deployment) int32 {
	if desired(d) == 0 {
		return -specReplicas(rs)
	}
	newMax := desired(d) + MaxSurge(d)
	oldMax, ok := nonNegativeAnnotation(rs, MaxReplicasAnnotation)
	if !ok || oldMax == 0 {
		oldMax = d.Status.Replicas
		if oldMax == 0 {
			return 0
		}
	}
	size := float64(specReplicas(rs)*newMax) / float64(oldMax)
	return int32(math.Round(size)) - specReplicas(rs)
}

// scaleReplicaSetAndRecordEvent scales rs unless it already has the size
// (scaleReplicaSetAndRecordEvent).
func (s *syncer) scaleReplicaSetAndRecordEvent(ctx context.Context, rs *api.ReplicaSet, size int32, d *api.Deployment) (bool, *api.ReplicaSet, error) {
	if specReplicas(rs) == size {
		return false, rs, nil
	}
	return s.scaleReplicaSet(ctx, rs, size, d)
}

// scaleReplicaSet writes rs's size and its desired- and max-replicas
// annotations when either is out of date, and records a ScalingReplicaSet
// event when the size changed (scaleReplicaSet). The write is an Update of
// the cached object, so fields kcm does not model are kept.
func (s *syncer) scaleReplicaSet(ctx context.Context, rs *api.ReplicaSet, size int32, d *api.Deployment) (bool, *api.ReplicaSet, error) {
	sizeChanged := specReplicas(rs) != size
	maxReplicas := desired(d) + MaxSurge(d)
	if !sizeChanged && !replicasAnnotationsNeedUpdate(rs, desired(d), maxReplicas) {
		return false, rs, nil
	}
	from := specReplicas(rs)
	cp, err := api.DeepCopy(rs)
	if err != nil {
		return false, rs, err
	}
	cp.Spec.Replicas = &size
	setReplicasAnnotations(cp, desired(d), maxReplicas)
	updated, err := s.rsClient.Update(ctx, cp)
	if err != nil {
		return false, rs, err
	}
	if !sizeChanged {
		return false, updated, nil
	}
	direction := "down"
	if from < size {
		direction = "up"
	}
	s.events.Eventf(ref(d), api.EventTypeNormal, ctrl.ReasonScalingReplicaSet,
		"Scaled %s replica set %s from %d to %d", direction, updated.Name, from, size)
	return true, updated, nil
}
