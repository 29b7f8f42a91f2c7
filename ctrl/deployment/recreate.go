package deployment

import (
	"context"
	"slices"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
)

// Recreate never runs old and new pods together: every old ReplicaSet is
// scaled to 0, then the controller waits until no old pod is left running
// — the ReplicaSets' status and the pods themselves, since a pod being
// deleted still runs — and only then creates or scales up the new one.

// rolloutRecreate is one step of a Recreate rollout (rolloutRecreate).
func (s *syncer) rolloutRecreate(ctx context.Context, d *api.Deployment, rsList []owned) error {
	newRS, oldRSs, err := s.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	allRSs := append(slices.Clone(oldRSs), newRS)
	scaledDown, err := s.scaleDownOldReplicaSetsForRecreate(ctx, activeReplicaSets(oldRSs), d)
	if err != nil {
		return err
	}
	if scaledDown {
		return s.syncRolloutStatus(ctx, allRSs, newRS, d)
	}
	if s.oldPodsRunning(d, newRS, oldRSs) {
		return s.syncRolloutStatus(ctx, allRSs, newRS, d)
	}
	if newRS == nil {
		newRS, oldRSs, err = s.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true)
		if err != nil {
			return err
		}
		allRSs = append(slices.Clone(oldRSs), newRS)
	}
	if _, _, err := s.scaleReplicaSetAndRecordEvent(ctx, newRS, desired(d), d); err != nil {
		return err
	}
	if deploymentComplete(d, &d.Status) {
		if err := s.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return err
		}
	}
	return s.syncRolloutStatus(ctx, allRSs, newRS, d)
}

// scaleDownOldReplicaSetsForRecreate scales every active old ReplicaSet to
// 0 and reports whether any was (scaleDownOldReplicaSetsForRecreate).
func (s *syncer) scaleDownOldReplicaSetsForRecreate(ctx context.Context, oldRSs []*api.ReplicaSet, d *api.Deployment) (bool, error) {
	scaled := false
	for _, rs := range oldRSs {
		done, _, err := s.scaleReplicaSetAndRecordEvent(ctx, rs, 0, d)
		if err != nil {
			return false, err
		}
		scaled = scaled || done
	}
	return scaled, nil
}

// oldPodsRunning reports whether an old ReplicaSet still reports replicas
// or still controls a pod that has not finished (Succeeded or Failed)
// (oldPodsRunning). Pods are those of d's selector in the cache whose
// controller is one of the old ReplicaSets (getPodMapForDeployment).
func (s *syncer) oldPodsRunning(d *api.Deployment, newRS *api.ReplicaSet, oldRSs []*api.ReplicaSet) bool {
	if totalStatusReplicas(oldRSs) > 0 {
		return true
	}
	return s.countOldPods(d, newRS, oldRSs, true) > 0
}

// countOldPods counts the cached pods of d's selector controlled by one
// of oldRSs (not newRS); unfinishedOnly skips Succeeded and Failed ones.
func (s *syncer) countOldPods(d *api.Deployment, newRS *api.ReplicaSet, oldRSs []*api.ReplicaSet, unfinishedOnly bool) int {
	sel, err := labels.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return 0
	}
	old := make(map[string]bool, len(oldRSs))
	for _, rs := range oldRSs {
		if newRS == nil || rs.UID != newRS.UID {
			old[rs.UID] = true
		}
	}
	n := 0
	for _, pod := range s.pods.Pods(d.Namespace).List(sel) {
		ref := pod.ControllerRef()
		if ref == nil || !old[ref.UID] {
			continue
		}
		if unfinishedOnly && (pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed) {
			continue
		}
		n++
	}
	return n
}
