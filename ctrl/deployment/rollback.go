package deployment

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protocodec"
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
		dt, err := templateOf(d, &d.Spec.Template)
		if err != nil {
			return err
		}
		rt, err := templateOf(rs, &rs.Spec.Template)
		if err != nil {
			return err
		}
		eq, err := dt.equalIgnoreHash(rt)
		if err != nil {
			return err
		}
		if eq {
			s.events.Eventf(ref(d), api.EventTypeWarning, ReasonRollbackTemplateUnchanged,
				"The rollback revision contains the same template as current deployment %q", d.Name)
			return s.updateDeploymentAndClearRollbackTo(ctx, d, nil)
		}
		if err := s.updateDeploymentAndClearRollbackTo(ctx, d, &rollbackSource{rs: rs, template: rt}); err != nil {
			return err
		}
		s.events.Eventf(ref(d), api.EventTypeNormal, ReasonRollbackDone, "Rolled back deployment %q to revision %d", d.Name, target)
		return nil
	}
	s.events.Eventf(ref(d), api.EventTypeWarning, ReasonRollbackRevisionNotFound, "Unable to find the revision to rollback to.")
	return s.updateDeploymentAndClearRollbackTo(ctx, d, nil)
}

// rollbackSource is the ReplicaSet rolled back to and its template as
// read (with the hash label, which the write takes out).
type rollbackSource struct {
	rs       *api.ReplicaSet
	template podTemplate
}

// updateDeploymentAndClearRollbackTo writes d without the rollback
// annotation and, when to is set, with to's template and annotations
// (the managed and skipped ones of d stay) (rollbackToTemplate,
// SetDeploymentAnnotationsTo, updateDeploymentAndClearRollbackTo). The
// write edits d's JSON, or d's protobuf message (rollbackProto), so the
// template is exactly the ReplicaSet's, fields kcm does not model
// included.
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
	if d.IsProto() {
		return s.rollbackProto(ctx, d, annotations, to)
	}
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
	var template map[string]any
	if to != nil {
		if to.template.form == formProto {
			return fmt.Errorf("rollback of %s: %w", d.Key(), ErrMixedEncodings)
		}
		template = withoutHash(to.template.json)
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
			spec["template"] = template
		}
		return nil
	})
	if err != nil {
		return err
	}
	_, err = s.dRaw.Update(ctx, edited)
	return err
}

// rollbackProto is updateDeploymentAndClearRollbackTo for d read as
// protobuf: the write is d's message with, when to is set, spec.template
// replaced by the ReplicaSet's template message less the hash label (so
// every field of it, modelled or not, byte for byte), then annotations
// and resourceVersion merged on (protocodec.MarshalMerge, through
// dClient.Update), every other field kept as read.
func (s *syncer) rollbackProto(ctx context.Context, d *api.Deployment, annotations map[string]string, to *rollbackSource) error {
	msg, err := rollbackMessage(d, to)
	if err != nil {
		return err
	}
	p, ok := decode.AsProto(decode.Typed[api.Deployment]())
	if !ok {
		return fmt.Errorf("rollback of %s: %w: Deployments are not read as protobuf", d.Key(), ErrTemplate)
	}
	obj, err := p.DecodeProto(d.TypeMeta, msg)
	if err != nil {
		return err
	}
	obj.Annotations = annotations
	obj.ResourceVersion = d.ResourceVersion
	_, err = s.dClient.Update(ctx, obj)
	return err
}

// rollbackMessage is d's message with to's template (less the hash label)
// as spec.template; d's message itself when to is nil.
func rollbackMessage(d *api.Deployment, to *rollbackSource) ([]byte, error) {
	msg, err := d.OriginalProto()
	if err != nil {
		return nil, err
	}
	if to == nil {
		return msg, nil
	}
	if to.template.msg == nil {
		return nil, fmt.Errorf("rollback of %s: %w", d.Key(), ErrMixedEncodings)
	}
	t, err := withoutHashProto(to.template.msg)
	if err != nil {
		return nil, err
	}
	return protocodec.SetField(msg, t, pbObjectSpec, pbSpecTemplate)
}
