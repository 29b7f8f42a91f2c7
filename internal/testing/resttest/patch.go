package resttest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kcmlab/kcm/kube/rest"
)

// Patches of the two kinds kcm sends: JSON merge patches (RFC 7386) and
// strategic merge patches, for the lists kcm's controllers patch. A
// strategic merge patch merges lists by the key Kubernetes' types declare
// (patchMergeKey) for the fields in mergeKeys, merges the finalizers as a
// set, and understands the directives $patch (replace, delete, merge),
// $deleteFromPrimitiveList/<field>, $setElementOrder/<field> (ignored)
// and $retainKeys (ignored); a list with no declared key is replaced.
// Custom resources refuse strategic merge patches with 415, as
// kube-apiserver does. JSON patches and apply patches are refused with
// 415: no controller of kcm sends them.

// mergeKeys are the lists kcm patches, by field name, with the key their
// elements merge by.
var mergeKeys = map[string]string{
	"ownerReferences":     "uid",
	"conditions":          "type",
	"containers":          "name",
	"initContainers":      "name",
	"ephemeralContainers": "name",
	"env":                 "name",
	"volumes":             "name",
	"volumeMounts":        "mountPath",
	"ports":               "containerPort",
	"tolerations":         "key",
}

// mergedSets are the lists of strings a strategic merge patch adds to.
var mergedSets = map[string]bool{"finalizers": true}

// builtin reports whether group is Kubernetes' own (strategic merge patches
// work), rather than a custom resource's: the core group, a group without
// a dot (apps, batch, policy, ...) or one under k8s.io.
func builtin(group string) bool {
	return group == "" || !strings.Contains(group, ".") || strings.HasSuffix(group, ".k8s.io")
}

// patch applies p of type pt to the object at k through sub, then stores
// the result as an update does. The patched object's uid must be the
// stored one (422), and a resourceVersion the patch sets must be the
// stored one (409).
func (t *tracker) patch(k key, sub string, pt rest.PatchType, p []byte) (object, error) {
	old, err := t.get(k)
	if err != nil {
		return nil, err
	}
	if pt != rest.MergePatch && (pt != rest.StrategicMergePatch || !builtin(k.group)) {
		return nil, &apiError{code: 415, reason: "UnsupportedMediaType", message: fmt.Sprintf(
			"the body of the request was in an unknown format - accepted media types include: %s", accepted(k.group))}
	}
	po, err := decodeObject(p)
	if err != nil {
		return nil, badRequest(fmt.Sprintf("error decoding patch: %v", err))
	}
	var patched object
	if pt == rest.MergePatch {
		patched, _ = mergePatch(deepCopy(old), po).(map[string]any)
	} else {
		patched = strategicMap(deepCopy(old), po)
	}
	om, pm := meta(old), meta(patched)
	if uid := str(pm, "uid"); uid != str(om, "uid") {
		return nil, invalid(k.ref, k.name, fmt.Sprintf("metadata.uid: Invalid value: %q: field is immutable", uid))
	}
	if rv := str(pm, "resourceVersion"); rv != str(om, "resourceVersion") {
		if rv != "" {
			return nil, conflict(k, "the object has been modified; please apply your changes to the latest version and try again")
		}
		pm["resourceVersion"] = om["resourceVersion"]
	}
	if str(pm, "name") != k.name {
		return nil, badRequest("metadata.name: the name of a patched object cannot change")
	}
	next, err := t.strategy(k.ref, sub, old, patched)
	if err != nil {
		return nil, err
	}
	return t.commit(k, sub, old, next), nil
}

func accepted(group string) string {
	if builtin(group) {
		return "application/merge-patch+json, application/strategic-merge-patch+json"
	}
	return "application/merge-patch+json"
}

// mergePatch applies an RFC 7386 merge patch: objects merge member by
// member, null removes, anything else replaces.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], v)
	}
	return t
}

// strategicMap applies a strategic merge patch to an object.
func strategicMap(t, p map[string]any) map[string]any {
	if t == nil {
		t = map[string]any{}
	}
	if d, _ := p["$patch"].(string); d == "replace" {
		out := map[string]any{}
		for k, v := range p {
			if k != "$patch" {
				out[k] = v
			}
		}
		return out
	}
	for k, v := range p {
		switch {
		case k == "$patch" || k == "$retainKeys" || strings.HasPrefix(k, "$setElementOrder/"):
		case strings.HasPrefix(k, "$deleteFromPrimitiveList/"):
			field := strings.TrimPrefix(k, "$deleteFromPrimitiveList/")
			drop := strList(v)
			kept := slices.DeleteFunc(strList(t[field]), func(s string) bool { return slices.Contains(drop, s) })
			t[field] = toAny(kept)
		case v == nil:
			delete(t, k)
		default:
			if d, _ := directive(v); d == "delete" {
				delete(t, k)
				continue
			}
			t[k] = strategicValue(k, t[k], v)
		}
	}
	return t
}

func directive(v any) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	d, ok := m["$patch"].(string)
	return d, ok
}

// strategicValue merges the patch value p of field into t.
func strategicValue(field string, t, p any) any {
	switch pv := p.(type) {
	case map[string]any:
		tm, _ := t.(map[string]any)
		return strategicMap(tm, pv)
	case []any:
		if mergedSets[field] {
			out, _ := t.([]any)
			out = slices.Clone(out)
			for _, e := range pv {
				if !slices.Contains(out, e) {
					out = append(out, e)
				}
			}
			return out
		}
		if mk, ok := mergeKeys[field]; ok {
			tl, _ := t.([]any)
			return mergeList(tl, pv, mk)
		}
	}
	return p
}

// mergeList merges patch elements into t by their key mk: an element with
// "$patch": "delete" removes the one with its key, "$patch": "replace"
// (a list-wide directive element) replaces the list, others merge into
// the element with their key or are appended.
func mergeList(t, patch []any, mk string) []any {
	out := slices.Clone(t)
	for _, e := range patch {
		pm, ok := e.(map[string]any)
		if !ok {
			out = append(out, e)
			continue
		}
		if d, _ := pm["$patch"].(string); d == "replace" {
			return slices.DeleteFunc(slices.Clone(patch), func(e any) bool { d, _ := directive(e); return d == "replace" })
		}
		i := slices.IndexFunc(out, func(x any) bool {
			xm, ok := x.(map[string]any)
			return ok && xm[mk] != nil && fmt.Sprint(xm[mk]) == fmt.Sprint(pm[mk])
		})
		if d, _ := pm["$patch"].(string); d == "delete" {
			if i >= 0 {
				out = slices.Delete(out, i, i+1)
			}
			continue
		}
		if i >= 0 {
			xm, _ := out[i].(map[string]any)
			out[i] = strategicMap(xm, pm)
		} else {
			out = append(out, strategicMap(nil, pm))
		}
	}
	return out
}
