package deployment

import (
	"context"
	"slices"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// cleanupDeployment deletes the oldest old ReplicaSets beyond
// spec.revisionHistoryLimit (cleanupDeployment). Only ReplicaSets that are
// fully scaled down and whose controller has seen that are deleted — spec
// and status replicas 0, status of the current generation, not already
// being deleted — so a ReplicaSet with pods still terminating is kept and
// tried again on a later sync. Oldest is by revision, then creation.
func (s *syncer) cleanupDeployment(ctx context.Context, oldRSs []*api.ReplicaSet, d *api.Deployment) error {
	if !hasRevisionHistoryLimit(d) {
		return nil
	}
	var cleanable []*api.ReplicaSet
	for _, rs := range oldRSs {
		if rs != nil && rs.DeletionTimestamp == nil {
			cleanable = append(cleanable, rs)
		}
	}
	diff := len(cleanable) - int(*d.Spec.RevisionHistoryLimit)
	if diff <= 0 {
		return nil
	}
	slices.SortStableFunc(cleanable, byRevision)
	for _, rs := range cleanable[:diff] {
		if rs.Status.Replicas != 0 || specReplicas(rs) != 0 || rs.Generation > rs.Status.ObservedGeneration {
			continue
		}
		err := s.rsClient.InNamespace(rs.Namespace).Delete(ctx, rs.Name, rest.DeleteOptions{})
		if err != nil && !rest.IsNotFound(err) {
			return err
		}
	}
	return nil
}
