package deployment

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"

	"github.com/kcmlab/kcm/kube/api"
)

// Rollback. In apps/v1 a rollback is usually the user putting an old
// template back (kubectl rollout undo does exactly that): the old
// ReplicaSet with the equal template is then found as the new one, gets
// the next revision, and no ReplicaSet is created — getNewReplicaSet does
// it, nothing here is needed. This file serves the older request, still
// honoured by kube-controller-manager: the annotation
// deprecated.deployment.rollback.to=<revision> (0: the previous one)
// copies that revision's template and annotations into the Deployment and
// removes the annotation.

// rollbackTo returns the requested revision, or nil when there is no
// (readable) request.
func rollbackTo(d *api.Deployment) *int64 {
	v := d.Annotations[RollbackToAnnotation]
	if v == "" {
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

// rollback performs the annotation's request (rollback).
func (s *syncer) rollback(ctx context.Context, d *api.Deployment, rsList []owned) error {
	newRS, oldRSs, err := s.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true)
	if err != nil {
		return err
	}
	all := append(oldRSs, newRS)
	target := *rollbackTo(d)
	if target == 0 {
		if target = lastRevision(all); target == 0 {
			s.events.Eventf(ref(d), api.EventTypeWarning, ReasonRollbackRevisionNotFound, "Unable to find last revision.")
			return s.updateDeploymentAndClearRollbackTo(ctx, d, nil)
		}
	}
	for _, rs := range all {
		if v, err := revision(rs); err != nil || v != target {
			continue
		}
		dt, err := templateJSON(d, &d.Spec.Template)
		if err != nil {
			return err
		}
		rt, err := templateJSON(rs, &rs.Spec.Template)
		if err != nil {
			return err
		}
		if EqualIgnoreHash(dt, rt) {
			s.events.Eventf(ref(d), api.EventTypeWarning, ReasonRollbackTemplateUnchanged,
				"The rollback revision contains the same template as current deployment %q", d.Name)
			return s.updateDeploymentAndClearRollbackTo(ctx, d, nil)
		}
		if err := s.updateDeploymentAndClearRollbackTo(ctx, d, &rollbackSource{rs: rs, template: withoutHash(rt)}); err != nil {
			return err
		}
		s.events.Eventf(ref(d), api.EventTypeNormal, ReasonRollbackDone, "Rolled back deployment %q to revision %d", d.Name, target)
		return nil
	}
	s.events.Eventf(ref(d), api.EventTypeWarning, ReasonRollbackRevisionNotFound, "Unable to find the revision to rollback to.")
	return s.updateDeploymentAndClearRollbackTo(ctx, d, nil)
}

// rollbackSource is the ReplicaSet rolled back to and its template
// without the hash label.
type rollbackSource struct {
	rs       *api.ReplicaSet
	template map[string]any
}

// updateDeploymentAndClearRollbackTo writes d without the rollback
// annotation and, when to is set, with to's template and annotations
// (the managed and skipped ones of d stay) (rollbackToTemplate,
// SetDeploymentAnnotationsTo, updateDeploymentAndClearRollbackTo). The
// write edits d's JSON, so the template is exactly the ReplicaSet's,
// fields kcm does not model included.
func (s *syncer) updateDeploymentAndClearRollbackTo(ctx context.Context, d *api.Deployment, to *rollbackSource) error {
	annotations := maps.Clone(d.Annotations)
	if to != nil {
		annotations = map[string]string{}
		for k, v := range d.Annotations {
			if skipAnnotation(k) {
				annotations[k] = v
			}
		}
		for k, v := range to.rs.Annotations {
			if !skipAnnotation(k) {
				annotations[k] = v
			}
		}
	}
	delete(annotations, RollbackToAnnotation)
	raw := d.Raw()
	if raw == nil {
		var err error
		if raw, err = json.Marshal(d); err != nil {
			return err
		}
	}
	obj, err := api.DecodeRawObject(raw)
	if err != nil {
		return err
	}
	edited, err := obj.Edit(func(m map[string]any) error {
		meta, _ := m["metadata"].(map[string]any)
		if meta == nil {
			return fmt.Errorf("deployment %s has no metadata", d.Key())
		}
		meta["annotations"] = annotations
		meta["resourceVersion"] = d.ResourceVersion
		if to != nil {
			spec, _ := m["spec"].(map[string]any)
			if spec == nil {
				return fmt.Errorf("deployment %s has no spec", d.Key())
			}
			spec["template"] = to.template
		}
		return nil
	})
	if err != nil {
		return err
	}
	_, err = s.dRaw.Update(ctx, edited)
	return err
}
