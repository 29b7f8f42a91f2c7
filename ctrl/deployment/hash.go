package deployment

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"reflect"
	"strconv"

	"github.com/kcmlab/kcm/kube/api"
)

// ErrTemplate wraps the errors of reading a pod template from an object's
// JSON.
var ErrTemplate = errors.New("deployment: cannot read pod template")

// A pod template is compared and hashed as JSON, not as kcm's struct: the
// struct models only part of a pod spec, and two templates that differ in a
// field kcm does not model (an affinity, a security context) are different
// templates. The JSON is the object's own bytes as the apiserver sent them
// (api.ObjectMeta.Raw), so both sides of a comparison carry the apiserver's
// defaults.

// templateJSON returns spec.template of a Deployment or ReplicaSet as a
// generic JSON value, normalised (see normalise). An object built in code
// (no raw JSON) falls back to its typed template.
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
	t, _ := normalise(src).(map[string]any)
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

// normalise drops nulls, empty objects and empty arrays, recursively, so
// that "absent", null and empty compare equal — as Kubernetes' semantic
// equality treats a nil and an empty map or slice, and a nil pointer and an
// omitted field. Scalars are kept as they are: false and 0 are values.
func normalise(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			if n := normalise(e); n != nil {
				out[k] = n
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		if len(t) == 0 {
			return nil
		}
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = normalise(e)
		}
		return out
	}
	return v
}

// withoutHash returns t with metadata.labels[pod-template-hash] removed
// (t is not modified).
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
	m2 := make(map[string]any, len(meta))
	for k, v := range meta {
		m2[k] = v
	}
	m2["labels"] = l2
	t2 := make(map[string]any, len(t))
	for k, v := range t {
		t2[k] = v
	}
	t2["metadata"] = m2
	out, _ := normalise(t2).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	return out
}

// EqualIgnoreHash reports whether two pod templates are the same template
// once the pod-template-hash label is ignored (Kubernetes'
// deploymentutil.EqualIgnoreHash). This, not the hash in a ReplicaSet's
// name, is how a Deployment recognises its current ReplicaSet: a
// ReplicaSet made by kube-controller-manager, whose hash kcm would compute
// differently, is still found as current.
func EqualIgnoreHash(a, b map[string]any) bool {
	return reflect.DeepEqual(withoutHash(a), withoutHash(b))
}

// ComputeHash returns the pod-template-hash of a template: FNV-32a over
// the template's canonical JSON (object keys sorted, normalised) followed,
// when collisionCount is set, by its value as 8 little-endian bytes; the
// decimal sum is then spelt in SafeEncodeString's alphabet. Kubernetes
// hashes a printed form of its Go struct instead, so the values differ
// from kube-controller-manager's, but they are stable: the same template
// always hashes alike, in every kcm process.
func ComputeHash(template map[string]any, collisionCount *int32) string {
	h := fnv.New32a()
	b, _ := json.Marshal(template) // maps of JSON values always encode; keys come out sorted
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
