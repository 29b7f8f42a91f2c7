package deployment

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/controllerref"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protocodec"
	"github.com/kcmlab/kcm/kube/rest"
)

// maxNameLength is the longest object name (a DNS-1123 subdomain).
const maxNameLength = 253

// getAllReplicaSetsAndSyncRevision splits d's ReplicaSets into the new one
// (nil if none matches and create is false) and all the others, bringing
// the new one's revision and annotations and d's revision up to date
// (getAllReplicaSetsAndSyncRevision).
func (s *syncer) getAllReplicaSetsAndSyncRevision(ctx context.Context, d *api.Deployment, rsList []owned, create bool) (*api.ReplicaSet, []*api.ReplicaSet, error) {
	dt, err := templateOf(d, &d.Spec.Template)
	if err != nil {
		return nil, nil, err
	}
	existing, err := findNewReplicaSet(dt, rsList)
	if err != nil {
		return nil, nil, err
	}
	old := oldReplicaSets(existing, rsList)
	newRS, err := s.getNewReplicaSet(ctx, d, dt, existing, old, create)
	if err != nil {
		return nil, nil, err
	}
	return newRS, old, nil
}

// getNewReplicaSet returns the new ReplicaSet (getNewReplicaSet). An
// existing one gets revision max(old)+1 if its own is lower, the
// Deployment's copied annotations and minReadySeconds; d gets its
// revision, and a FoundNewReplicaSet condition when it has none. Without
// one, and when create is set, it is created — see createNewReplicaSet.
func (s *syncer) getNewReplicaSet(ctx context.Context, d *api.Deployment, dt podTemplate, existing *api.ReplicaSet, old []*api.ReplicaSet, create bool) (*api.ReplicaSet, error) {
	newRevision := maxRevision(old) + 1
	if existing != nil {
		rsCopy, err := api.DeepCopy(existing)
		if err != nil {
			return nil, err
		}
		annotationsChanged := setNewReplicaSetAnnotations(d, rsCopy, newRevision, true)
		if annotationsChanged || rsCopy.Spec.MinReadySeconds != d.Spec.MinReadySeconds {
			rsCopy.Spec.MinReadySeconds = d.Spec.MinReadySeconds
			return s.rsClient.Update(ctx, rsCopy)
		}
		needsUpdate := setDeploymentRevision(d, rsCopy.Annotations[RevisionAnnotation])
		if hasProgressDeadline(d) && api.GetDeploymentCondition(&d.Status, api.DeploymentProgressing) == nil {
			s.setCondition(d, api.DeploymentProgressing, api.ConditionTrue, ReasonFoundNewReplicaSet,
				fmt.Sprintf("Found new replica set %q", rsCopy.Name))
			needsUpdate = true
		}
		if needsUpdate {
			if err := s.updateStatus(ctx, d); err != nil {
				return nil, err
			}
		}
		return rsCopy, nil
	}
	if !create {
		return nil, nil
	}
	return s.createNewReplicaSet(ctx, d, dt, old, newRevision)
}

// createNewReplicaSet creates the ReplicaSet for d's current template:
// named <deployment>-<hash>, the hash label on its labels, selector and
// template, the template copied from d's JSON (fields kcm does not model
// survive), controlled by d, sized by NewRSNewReplicas, annotated as
// setNewReplicaSetAnnotations says.
//
// A name already taken by an equal ReplicaSet of d's is that ReplicaSet
// (the cache was behind). Taken by anything else, it is a hash collision:
// status.collisionCount is bumped, which changes the next hash, and the
// sync fails so that it runs again. Any other failure is reported as a
// Progressing=False ReplicaSetCreateError condition (when d has a
// progress deadline) and a Warning event.
func (s *syncer) createNewReplicaSet(ctx context.Context, d *api.Deployment, dt podTemplate, old []*api.ReplicaSet, newRevision int64) (*api.ReplicaSet, error) {
	hash, err := dt.hash(d.Status.CollisionCount)
	if err != nil {
		return nil, err
	}
	newRS := newReplicaSet(d, hash)
	n, err := NewRSNewReplicas(d, append(old, newRS), newRS)
	if err != nil {
		return nil, err
	}
	*newRS.Spec.Replicas = n
	setNewReplicaSetAnnotations(d, newRS, newRevision, false)
	created, err := s.postReplicaSet(ctx, newRS, dt, hash)
	alreadyExists := false
	switch {
	case rest.IsAlreadyExists(err):
		alreadyExists = true
		rs, getErr := s.replicaSets.ReplicaSets(d.Namespace).Get(newRS.Name)
		if getErr != nil {
			return nil, getErr
		}
		if rs.IsControlledBy(d.UID) {
			if rt, tErr := templateOf(rs, &rs.Spec.Template); tErr == nil {
				if eq, eqErr := dt.equalIgnoreHash(rt); eqErr == nil && eq {
					created, err = rs, nil
					break
				}
			}
		}
		if d.Status.CollisionCount == nil {
			d.Status.CollisionCount = new(int32)
		}
		before := *d.Status.CollisionCount
		*d.Status.CollisionCount++
		if s.updateStatus(ctx, d) == nil {
			s.log.Info().Str("deployment", d.Key()).Int32("oldCollisionCount", before).
				Int32("newCollisionCount", *d.Status.CollisionCount).Msg("hash collision; bumping collisionCount")
		}
		return nil, err
	case rest.IsNamespaceTerminating(err):
		return nil, err
	case err != nil:
		msg := fmt.Sprintf("Failed to create new replica set %q: %v", newRS.Name, err)
		if hasProgressDeadline(d) {
			s.setCondition(d, api.DeploymentProgressing, api.ConditionFalse, ReasonFailedRSCreate, msg)
			_ = s.updateStatus(ctx, d)
		}
		s.events.Eventf(ref(d), api.EventTypeWarning, ReasonFailedRSCreate, "%s", msg)
		return nil, err
	}
	if !alreadyExists && n > 0 {
		s.events.Eventf(ref(d), api.EventTypeNormal, ctrl.ReasonScalingReplicaSet,
			"Scaled up replica set %s from 0 to %d", created.Name, n)
	}
	needsUpdate := setDeploymentRevision(d, strconv.FormatInt(newRevision, 10))
	if !alreadyExists && hasProgressDeadline(d) {
		s.setCondition(d, api.DeploymentProgressing, api.ConditionTrue, ReasonNewReplicaSetCreated,
			fmt.Sprintf("Created new replica set %q", created.Name))
		needsUpdate = true
	}
	if needsUpdate {
		err = s.updateStatus(ctx, d)
	}
	return created, err
}

// newReplicaSet is the typed part of the ReplicaSet d's template makes
// with hash: name, labels, controller reference, selector, minReadySeconds;
// no replicas yet (0), no annotations, no template (replicaSetBody adds it
// from d's JSON).
func newReplicaSet(d *api.Deployment, hash string) *api.ReplicaSet {
	return &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{
			Name: replicaSetName(d.Name, hash), Namespace: d.Namespace,
			Labels:          withLabel(d.Spec.Template.Labels, PodTemplateHashLabel, hash),
			OwnerReferences: []api.OwnerReference{controllerref.NewControllerRef(&d.ObjectMeta, "apps/v1", "Deployment")},
		},
		Spec: api.ReplicaSetSpec{Replicas: new(int32), MinReadySeconds: d.Spec.MinReadySeconds,
			Selector: selectorWithLabel(d.Spec.Selector, PodTemplateHashLabel, hash)},
	}
}

// NewReplicaSetFor returns the ReplicaSet a sync creates for d's current
// template, as the body it posts: <deployment>-<hash>, the hash label on
// its labels, selector and template, d as controller, the given replicas,
// and the annotations of revision. The template is d's as read, member
// for member (fields kcm does not model and empty objects included), so
// that it decodes to the same Go value as d's in any Kubernetes client.
// For d read as JSON the body is JSON; for d read as protobuf it is a
// RawObject holding the ReplicaSet's protobuf message (IsProto), whose
// spec.template is d's template message with the hash label added. It is
// what createNewReplicaSet sends, for tests and tools that check that
// promise (bench/'s fidelity tests).
func NewReplicaSetFor(d *api.Deployment, replicas int32, revision int64) (*api.RawObject, error) {
	dt, err := templateOf(d, &d.Spec.Template)
	if err != nil {
		return nil, err
	}
	hash, err := dt.hash(d.Status.CollisionCount)
	if err != nil {
		return nil, err
	}
	rs := newReplicaSet(d, hash)
	*rs.Spec.Replicas = replicas
	setNewReplicaSetAnnotations(d, rs, revision, false)
	if dt.form != formProto {
		return replicaSetBody(rs, dt.json, hash)
	}
	msg, err := replicaSetMessage(rs, dt.msg, hash)
	if err != nil {
		return nil, err
	}
	wire, _ := decode.AsProto(decode.Wire())
	return wire.DecodeProto(rs.TypeMeta, msg)
}

// postReplicaSet creates newRS with dt as its template labelled with
// hash: as the JSON of replicaSetBody, or, for a template read as
// protobuf, as the message of replicaSetMessage, sent through the typed
// client so that the answer is read as protobuf too.
func (s *syncer) postReplicaSet(ctx context.Context, newRS *api.ReplicaSet, dt podTemplate, hash string) (*api.ReplicaSet, error) {
	if dt.form == formProto {
		msg, err := replicaSetMessage(newRS, dt.msg, hash)
		if err != nil {
			return nil, err
		}
		p, ok := decode.AsProto(decode.Typed[api.ReplicaSet]())
		if !ok {
			return nil, fmt.Errorf("%w: ReplicaSets are not read as protobuf", ErrTemplate)
		}
		obj, err := p.DecodeProto(newRS.TypeMeta, msg)
		if err != nil {
			return nil, err
		}
		return s.rsClient.Create(ctx, obj) // obj's message, sent as is (rest's protowrite.go)
	}
	body, err := replicaSetBody(newRS, dt.json, hash)
	if err != nil {
		return nil, err
	}
	raw, err := s.rsRaw.Create(ctx, body)
	if err != nil {
		return nil, err
	}
	return decode.Typed[api.ReplicaSet]().Decode(raw.Raw())
}

// replicaSetBody renders newRS as the JSON to POST, with dt — d's
// template as JSON, so with every field kcm does not model — as its pod
// template, labelled with the hash.
func replicaSetBody(newRS *api.ReplicaSet, dt map[string]any, hash string) (*api.RawObject, error) {
	newRS.TypeMeta = replicaSetType
	b, err := json.Marshal(newRS)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := decodeNumbers(b, &m); err != nil {
		return nil, err
	}
	t := maps.Clone(dt)
	meta, _ := t["metadata"].(map[string]any)
	meta = maps.Clone(meta)
	if meta == nil {
		meta = map[string]any{}
	}
	l, _ := meta["labels"].(map[string]any)
	l = maps.Clone(l)
	if l == nil {
		l = map[string]any{}
	}
	l[PodTemplateHashLabel] = hash
	meta["labels"] = l
	t["metadata"] = meta
	spec, _ := m["spec"].(map[string]any)
	spec["template"] = t
	spec["replicas"] = *newRS.Spec.Replicas // zero is a value here
	return api.NewRawObject(m)
}

// replicaSetType is the apiVersion and kind of a ReplicaSet.
var replicaSetType = api.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"}

// replicaSetMessage renders newRS as the protobuf message to POST: kcm's
// struct encoded (protocodec.Marshal), with spec.template replaced by dt
// — d's template message as read, so with every field kcm does not model,
// byte for byte — with the hash label added. Replicas are written even
// when 0 (a pointer field: present when set).
func replicaSetMessage(newRS *api.ReplicaSet, dt []byte, hash string) ([]byte, error) {
	newRS.TypeMeta = replicaSetType
	msg, err := protocodec.Marshal(newRS)
	if err != nil {
		return nil, err
	}
	t, err := templateLabel(dt, PodTemplateHashLabel, hash, false)
	if err != nil {
		return nil, err
	}
	return protocodec.SetField(msg, t, pbObjectSpec, pbSpecTemplate)
}

// replicaSetName is <deployment>-<hash>, the Deployment's name cut so that
// the whole fits in a name (generateReplicaSetName).
func replicaSetName(deployment, hash string) string {
	if room := maxNameLength - 1 - len(hash); len(deployment) > room && room > 0 {
		deployment = deployment[:room]
	}
	return deployment + "-" + hash
}

// withLabel returns a copy of l with k=v.
func withLabel(l map[string]string, k, v string) map[string]string {
	out := make(map[string]string, len(l)+1)
	maps.Copy(out, l)
	out[k] = v
	return out
}

// selectorWithLabel returns a copy of sel that also requires k=v.
func selectorWithLabel(sel *api.LabelSelector, k, v string) *api.LabelSelector {
	out := &api.LabelSelector{}
	if sel != nil {
		out.MatchLabels = maps.Clone(sel.MatchLabels)
		out.MatchExpressions = append(out.MatchExpressions, sel.MatchExpressions...)
	}
	out.MatchLabels = withLabel(out.MatchLabels, k, v)
	return out
}
