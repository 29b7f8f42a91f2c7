package deployment

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"reflect"
	"strconv"

	"github.com/kcmlab/kcm/kube/api"
)

// ErrTemplate wraps the errors of reading a pod template from an object's
// JSON.
var ErrTemplate = errors.New("deployment: cannot read pod template")

// A pod template read as JSON is compared and hashed as JSON, not as
// kcm's struct (one read as protobuf as its message: hashproto.go): the
// struct models only part of a pod spec, and two templates that differ in a
// field kcm does not model (an affinity, a security context) are different
// templates. The JSON is the object's own bytes as the apiserver sent them
// (api.ObjectMeta.Raw), so both sides of a comparison carry the apiserver's
// defaults.
//
// Two forms of a template are kept apart:
//
//   - the template as read (templateJSON): every member the apiserver sent,
//     empty objects and explicit values included. It is what kcm copies
//     into a new ReplicaSet and, on a rollback, back into the Deployment,
//     so that the copy decodes to the same Go value in any client
//     (kube-controller-manager's GetNewReplicaSet, kubectl rollout): a
//     container's "securityContext": {} is a non-nil pointer to an empty
//     struct, and dropping it makes a different template.
//   - the template compared (semantic): the same value with what Kubernetes'
//     semantic equality cannot see taken out. See semantic.

// templateJSON returns spec.template of a Deployment or ReplicaSet as a
// generic JSON value (numbers as json.Number), exactly as read. An object
// built in code (no raw JSON) falls back to its typed template.
func templateJSON(obj api.Object, typed *api.PodTemplateSpec) (map[string]any, error) {
	var src any
	if raw := obj.GetObjectMeta().Raw(); raw != nil {
		var whole map[string]any
		if err := decodeNumbers(raw, &whole); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrTemplate, err)
		}
		spec, _ := whole["spec"].(map[string]any)
		src = spec["template"]
	} else {
		b, err := json.Marshal(typed)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrTemplate, err)
		}
		if err := decodeNumbers(b, &src); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrTemplate, err)
		}
	}
	t, _ := src.(map[string]any)
	if t == nil {
		t = map[string]any{}
	}
	return t, nil
}

// decodeNumbers decodes JSON keeping numbers as json.Number, so that they
// compare and re-encode exactly.
func decodeNumbers(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(v)
}

// semantic returns v with nulls and empty arrays removed, recursively: the
// form in which two templates compare as Kubernetes' semantic equality
// (equality.Semantic.DeepEqual on k8s.io/api types) compares them. The
// apiserver writes every object from its Go struct, so at a given place
// of two templates it read, the JSON differs only where the Go values do,
// with these exceptions, which semantic removes:
//
//   - null: a nil slice or map written without omitempty, or a zero time;
//     decoding null gives the zero value, so null and absent are one value;
//   - []: an empty slice written without omitempty ("containers": []), which
//     semantic equality holds equal to a nil one (null).
//
// Empty objects are kept. An empty object the apiserver writes is either
// a pointer to a struct with nothing set ("securityContext": {}), which is
// not a nil pointer, or a struct value ("resources": {}), which it writes
// on both sides. Scalars are kept as they are: false and 0 are values.
// bench/'s fidelity tests check this rule against equality.Semantic on
// random templates.
//
// One difference remains: semantic equality compares resource quantities
// by amount, and kcm by spelling. The apiserver writes a quantity in the
// canonical form of the format it was given in, so "1000" and "1k" are
// both stored as "1k", but "1e3" stays "1e3": a template edited from one
// to the other is a new template to kcm and the same to Kubernetes.
func semantic(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			if n := semantic(e); n != nil {
				out[k] = n
			}
		}
		return out
	case []any:
		if len(t) == 0 {
			return nil
		}
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = semantic(e)
		}
		return out
	}
	return v
}

// semanticTemplate is semantic(t) as a template (an empty one for nil).
func semanticTemplate(t map[string]any) map[string]any {
	out, _ := semantic(t).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	return out
}

// withoutHash returns t with metadata.labels[pod-template-hash] removed,
// and the labels member with it when no other label is left, as
// Kubernetes' rollback leaves an empty label map (t is not modified).
func withoutHash(t map[string]any) map[string]any {
	meta, _ := t["metadata"].(map[string]any)
	labels, _ := meta["labels"].(map[string]any)
	if _, ok := labels[PodTemplateHashLabel]; !ok {
		return t
	}
	l2 := make(map[string]any, len(labels))
	for k, v := range labels {
		if k != PodTemplateHashLabel {
			l2[k] = v
		}
	}
	m2 := maps.Clone(meta)
	if len(l2) == 0 {
		delete(m2, "labels")
	} else {
		m2["labels"] = l2
	}
	t2 := maps.Clone(t)
	t2["metadata"] = m2
	return t2
}

// EqualIgnoreHash reports whether two pod templates are the same template
// once the pod-template-hash label is ignored (Kubernetes'
// deploymentutil.EqualIgnoreHash). This, not the hash in a ReplicaSet's
// name, is how a Deployment recognises its current ReplicaSet: a
// ReplicaSet made by kube-controller-manager, whose hash kcm would compute
// differently, is still found as current.
//
// a and b are templates as decoded JSON (numbers as json.Number), compared
// in their semantic form: see semantic.
func EqualIgnoreHash(a, b map[string]any) bool {
	return reflect.DeepEqual(semanticTemplate(withoutHash(a)), semanticTemplate(withoutHash(b)))
}

// ComputeHash returns the pod-template-hash of a template: FNV-32a over
// the template's canonical JSON (object keys sorted, in its semantic
// form) followed, when collisionCount is set, by its value as 8
// little-endian bytes; the decimal sum is then spelt in SafeEncodeString's alphabet. Kubernetes
// hashes a printed form of its Go struct instead, so the values differ
// from kube-controller-manager's, but they are stable: the same template
// always hashes alike, in every kcm process.
func ComputeHash(template map[string]any, collisionCount *int32) string {
	h := fnv.New32a()
	b, _ := json.Marshal(semanticTemplate(template)) // maps of JSON values always encode; keys come out sorted
	h.Write(b)
	if collisionCount != nil {
		buf := make([]byte, 8)
		binary.LittleEndian.PutUint32(buf, uint32(*collisionCount))
		h.Write(buf)
	}
	return safeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}

// safeAlphabet has no vowels (no words form by accident) and no
// look-alikes; it is apimachinery's rand alphabet.
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// safeEncodeString maps every byte of s into safeAlphabet
// (apimachinery's rand.SafeEncodeString).
func safeEncodeString(s string) string {
	r := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		r[i] = safeAlphabet[int(s[i])%len(safeAlphabet)]
	}
	return string(r)
}
