package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// ErrPatch wraps the errors of building a StatefulSet's patch or applying
// a revision's.
var ErrPatch = errors.New("history: bad statefulset revision patch")

// ErrProtobufSet: the StatefulSet was read as protobuf, so its template's
// JSON — every field, as kube-controller-manager encodes it — is not
// known (see "Encodings" in the package doc). Wrapped with ErrPatch.
// kcm's clients read StatefulSets as JSON whatever their ContentType
// (package decode); this guards against one read otherwise.
var ErrProtobufSet = errors.New("history: statefulset read as protobuf has no template JSON")

// A StatefulSet's revision stores a strategic-merge patch that puts its
// pod template back:
//
//	{"spec":{"template":{"$patch":"replace", <the template's members>}}}
//
// and that patch's bytes are what the revision is hashed and compared by.
// kube-controller-manager (the statefulset controller's getPatch) encodes
// the StatefulSet it read from its Go struct to JSON, decodes that into
// generic JSON values (maps, float64 numbers), adds "$patch" to the
// template and encodes {"spec":{"template":...}} with encoding/json: keys
// sorted, HTML characters escaped, numbers as float64 prints them.
//
// kcm cannot encode a Go struct with every field of a pod template: its
// PodTemplateSpec models part of one. It starts instead from the JSON the
// StatefulSet was read from (api.ObjectMeta.Original), which the
// apiserver wrote from the same Go struct at the same release, member for
// member: empty objects ("emptyDir": {}, "securityContext": {}) and fields
// kcm does not model included, empty and nil fields left out where the
// struct leaves them out. From there it takes upstream's steps, with the
// same library: the same generic values, the same encoder, the same bytes.

// StatefulSetPatch returns the patch of set's pod template, byte for byte
// as kube-controller-manager builds it. set's JSON is the one it was read
// from; a set built in code (no JSON) is encoded from its typed fields,
// which holds only for templates kcm models entirely; a set read as
// protobuf is ErrProtobufSet.
func StatefulSetPatch(set *api.StatefulSet) ([]byte, error) {
	template, err := templateOf(set)
	if err != nil {
		return nil, err
	}
	template["$patch"] = "replace"
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"template": template}})
	if err != nil {
		return nil, fmt.Errorf("%w: %s/%s: %w", ErrPatch, set.Namespace, set.Name, err)
	}
	return patch, nil
}

// templateOf returns spec.template of set's JSON as generic values,
// numbers as float64 (encoding/json's default, as upstream decodes it).
func templateOf(set *api.StatefulSet) (map[string]any, error) {
	raw, err := setJSON(set)
	if err != nil {
		return nil, err
	}
	typed := raw == nil
	if typed {
		if raw, err = json.Marshal(set); err != nil {
			return nil, fmt.Errorf("%w: %s/%s: %w", ErrPatch, set.Namespace, set.Name, err)
		}
	}
	var whole map[string]any
	if err := json.Unmarshal(raw, &whole); err != nil {
		return nil, fmt.Errorf("%w: %s/%s: %w", ErrPatch, set.Namespace, set.Name, err)
	}
	spec, _ := whole["spec"].(map[string]any)
	template, _ := spec["template"].(map[string]any)
	if template == nil {
		return nil, fmt.Errorf("%w: %s/%s has no spec.template", ErrPatch, set.Namespace, set.Name)
	}
	if typed {
		// k8s.io/apimachinery writes a zero creationTimestamp not at all
		// (omitzero); kcm's ObjectMeta writes it as null.
		if meta, ok := template["metadata"].(map[string]any); ok && meta["creationTimestamp"] == nil {
			delete(meta, "creationTimestamp")
		}
	}
	return template, nil
}

// NewStatefulSetRevision returns the revision of set's current template
// (the statefulset controller's newRevision): its data the patch
// (StatefulSetPatch), its labels the template's, its annotations the
// set's, numbered revision and named with collisionCount.
func NewStatefulSetRevision(set *api.StatefulSet, revision int64, collisionCount *int32) (*api.ControllerRevision, error) {
	patch, err := StatefulSetPatch(set)
	if err != nil {
		return nil, err
	}
	cr := NewControllerRevision(set, StatefulSetKind, set.Spec.Template.Labels, patch, revision, collisionCount)
	cr.Annotations = maps.Clone(set.Annotations)
	if cr.Annotations == nil {
		cr.Annotations = map[string]string{}
	}
	return cr, nil
}

// RevisionTemplate returns the pod template a StatefulSet revision
// restores, as JSON (numbers as written): the patch's template without its
// "$patch" directive. A patch that is not a StatefulSet's — anything but
// spec.template, or a template not replaced whole — is an ErrPatch: kcm
// applies no other strategic-merge patch.
func RevisionTemplate(rev *api.ControllerRevision) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(rev.Data.Raw))
	d.UseNumber()
	var patch map[string]any
	if err := d.Decode(&patch); err != nil {
		return nil, fmt.Errorf("%w: revision %s: %w", ErrPatch, rev.Name, err)
	}
	spec, _ := patch["spec"].(map[string]any)
	template, _ := spec["template"].(map[string]any)
	if len(patch) != 1 || len(spec) != 1 || template == nil || template["$patch"] != "replace" {
		return nil, fmt.Errorf("%w: revision %s does not replace spec.template alone", ErrPatch, rev.Name)
	}
	delete(template, "$patch")
	out, err := json.Marshal(template)
	if err != nil {
		return nil, fmt.Errorf("%w: revision %s: %w", ErrPatch, rev.Name, err)
	}
	return out, nil
}

// ApplyRevision returns a copy of set whose pod template is the one rev
// restores (the statefulset controller's ApplyRevision, whose strategic
// merge of {"$patch":"replace"} replaces the template whole). The copy's
// JSON is set's with spec.template replaced, so that its patch
// (StatefulSetPatch) and the pods made from it carry the revision's
// template member for member, unmodelled fields included. A set read as
// protobuf is ErrProtobufSet.
func ApplyRevision(set *api.StatefulSet, rev *api.ControllerRevision) (*api.StatefulSet, error) {
	template, err := RevisionTemplate(rev)
	if err != nil {
		return nil, err
	}
	raw, err := setJSON(set)
	if err != nil {
		return nil, err
	}
	if raw == nil {
		if raw, err = json.Marshal(set); err != nil {
			return nil, fmt.Errorf("%w: %s/%s: %w", ErrPatch, set.Namespace, set.Name, err)
		}
	}
	var whole map[string]json.RawMessage
	if err := json.Unmarshal(raw, &whole); err != nil {
		return nil, fmt.Errorf("%w: %s/%s: %w", ErrPatch, set.Namespace, set.Name, err)
	}
	var spec map[string]json.RawMessage
	if err := json.Unmarshal(whole["spec"], &spec); err != nil {
		return nil, fmt.Errorf("%w: %s/%s spec: %w", ErrPatch, set.Namespace, set.Name, err)
	}
	if spec == nil {
		spec = map[string]json.RawMessage{}
	}
	spec["template"] = template
	if whole["spec"], err = json.Marshal(spec); err != nil {
		return nil, fmt.Errorf("%w: %s/%s: %w", ErrPatch, set.Namespace, set.Name, err)
	}
	restored, err := json.Marshal(whole)
	if err != nil {
		return nil, fmt.Errorf("%w: %s/%s: %w", ErrPatch, set.Namespace, set.Name, err)
	}
	out, err := decode.Typed[api.StatefulSet]().Decode(restored)
	if err != nil {
		return nil, fmt.Errorf("%w: %s/%s: %w", ErrPatch, set.Namespace, set.Name, err)
	}
	return out, nil
}

// setJSON is the JSON set was read from, nil for a set built in code; a
// set read as protobuf is ErrProtobufSet: encoding its typed fields would
// drop what kcm does not model and give another revision.
func setJSON(set *api.StatefulSet) ([]byte, error) {
	if set.IsProto() {
		return nil, fmt.Errorf("%w: %w: %s/%s", ErrPatch, ErrProtobufSet, set.Namespace, set.Name)
	}
	raw, err := set.Original()
	if err != nil {
		return nil, fmt.Errorf("%w: %s/%s: %w", ErrPatch, set.Namespace, set.Name, err)
	}
	return raw, nil
}
