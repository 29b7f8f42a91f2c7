package difftest

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Placeholders the normaliser writes where a value is expected to differ
// between two runs of the same behaviour.
const (
	timePlaceholder = "<time>"
	randPlaceholder = "<rand>"
)

// Labels and annotations the normaliser reads.
const (
	podTemplateHashLabel = "pod-template-hash"
	revisionAnnotation   = "deployment.kubernetes.io/revision"
)

// serviceAccountVolume matches the projected token volume that
// kube-apiserver's ServiceAccount admission adds to every pod: its name
// ends in five random characters. Admission, not a controller, chooses
// it, so it says nothing about the managers being compared.
var serviceAccountVolume = regexp.MustCompile(`kube-api-access-[a-z0-9]{5}`)

// Object is one recorded API object, decoded into maps as kube-apiserver
// sent it.
type Object = map[string]any

// Snapshot is a normalised recording of objects: each one rendered as
// YAML (map keys sorted), under a key "Kind namespace/name" that is
// stable across runs. Objects whose normalised keys collide (pods of one
// ReplicaSet: their names differ only in the random suffix) get "#1",
// "#2", ... in the order of their rendering, so equal multisets compare
// equal.
type Snapshot map[string]string

// Keys returns the snapshot's keys, sorted.
func (s Snapshot) Keys() []string {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Normalize turns recorded objects into a Snapshot, removing or
// replacing what legitimately differs between two runs of the same
// behaviour:
//
//   - metadata.uid, resourceVersion, managedFields and selfLink, and the
//     uid of every ownerReference: identities and versions the server
//     assigns;
//   - every string under a key ending in "Time" or "Timestamp"
//     (creationTimestamp, deletionTimestamp, the conditions'
//     lastTransitionTime, lastUpdateTime, lastProbeTime) or named
//     startedAt or finishedAt (a container state's, which kwok writes):
//     wall-clock;
//   - the names a server generates from generateName (the random
//     suffix becomes "<rand>"); only a name that is generateName and
//     five characters is one: the StatefulSet controller sets
//     generateName "web-" on its pods like every controller, and names
//     them "web-0" itself;
//   - a Deployment's pod-template hash, wherever it appears (the
//     ReplicaSet name, the pod-template-hash label and selector, pod
//     names, condition messages): it is replaced by "<hash:rev N>", N
//     being the ReplicaSet's deployment.kubernetes.io/revision. The
//     hash is a digest of a Go struct's printed form, which another
//     implementation may compute differently without any behavioural
//     difference; the revision says which template it is;
//   - the kube-api-access-xxxxx volume name that admission generates;
//   - for Endpoints and EndpointSlices, and for pods a StatefulSet owns,
//     what kwok and Go map order decide (normalizeEndpointsObject,
//     normalizeStatefulSetPod).
//
// generation and observedGeneration are kept: they count spec writes,
// which is behaviour (a controller that scales in more steps shows a
// higher ReplicaSet generation). So are all labels and annotations,
// kubernetes.io ones included: deployment.kubernetes.io/revision,
// desired-replicas and max-replicas are part of the contract.
func Normalize(objs []Object) (Snapshot, error) {
	hashes := templateHashes(objs)
	type rendered struct{ key, text string }
	var all []rendered
	for _, o := range objs {
		c := normalizeValue("", deepCopy(o), hashes).(Object)
		normalizeEndpointsObject(c)
		normalizeStatefulSetPod(c)
		meta, _ := c["metadata"].(Object)
		if meta != nil {
			if gn, ok := meta["generateName"].(string); ok && gn != "" && generatedFrom(meta, gn) {
				meta["name"] = gn + randPlaceholder
			}
		}
		text, err := yaml.Marshal(c)
		if err != nil {
			return nil, fmt.Errorf("difftest: render %s: %w", objectKey(c), err)
		}
		all = append(all, rendered{objectKey(c), string(text)})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].key != all[j].key {
			return all[i].key < all[j].key
		}
		return all[i].text < all[j].text
	})
	snap := Snapshot{}
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].key == all[i].key {
			j++
		}
		for n, r := range all[i:j] {
			key := r.key
			if j-i > 1 {
				key = fmt.Sprintf("%s #%d", r.key, n+1)
			}
			snap[key] = r.text
		}
		i = j
	}
	return snap, nil
}

// generatedFrom reports whether the object's name is what kube-apiserver
// makes of generateName gn: gn and five random characters
// (names.SimpleNameGenerator).
func generatedFrom(meta Object, gn string) bool {
	name, _ := meta["name"].(string)
	return len(name) == len(gn)+5 && strings.HasPrefix(name, gn)
}

// objectKey is "Kind namespace/name" (or "Kind name" for cluster-scoped
// objects).
func objectKey(o Object) string {
	kind, _ := o["kind"].(string)
	meta, _ := o["metadata"].(Object)
	ns, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	if ns == "" {
		return kind + " " + name
	}
	return kind + " " + ns + "/" + name
}

// templateHashes maps each pod-template hash carried by a ReplicaSet to
// its placeholder, "<hash:rev N>" (or "<hash:N>" in order of appearance
// when the ReplicaSet has no revision).
func templateHashes(objs []Object) map[string]string {
	m := map[string]string{}
	for _, o := range objs {
		if o["kind"] != "ReplicaSet" {
			continue
		}
		meta, _ := o["metadata"].(Object)
		labels, _ := meta["labels"].(Object)
		hash, _ := labels[podTemplateHashLabel].(string)
		if hash == "" {
			continue
		}
		annotations, _ := meta["annotations"].(Object)
		if rev, ok := annotations[revisionAnnotation].(string); ok && rev != "" {
			m[hash] = "<hash:rev " + rev + ">"
		} else if _, seen := m[hash]; !seen {
			m[hash] = fmt.Sprintf("<hash:%d>", len(m)+1)
		}
	}
	return m
}

// metaDropped are the metadata fields the server assigns.
var metaDropped = []string{"uid", "resourceVersion", "managedFields", "selfLink"}

// normalizeValue rewrites v (a decoded JSON value) in place where it can
// and returns it; key is the map key v was found under.
func normalizeValue(key string, v any, hashes map[string]string) any {
	switch x := v.(type) {
	case Object:
		if key == "metadata" {
			for _, f := range metaDropped {
				delete(x, f)
			}
		}
		if key == "ownerReferences" {
			delete(x, "uid")
		}
		for k, e := range x {
			x[k] = normalizeValue(k, e, hashes)
		}
		return x
	case []any:
		for i, e := range x {
			// Elements of ownerReferences are handled like the list.
			x[i] = normalizeValue(key, e, hashes)
		}
		return x
	case string:
		if x != "" && (strings.HasSuffix(key, "Time") || strings.HasSuffix(key, "Timestamp") || key == "startedAt" || key == "finishedAt") {
			return timePlaceholder
		}
		return replaceHashes(serviceAccountVolume.ReplaceAllString(x, "kube-api-access-"+randPlaceholder), hashes)
	default:
		return v
	}
}

// replaceHashes substitutes every known template hash in s.
func replaceHashes(s string, hashes map[string]string) string {
	for h, p := range hashes {
		if strings.Contains(s, h) {
			s = strings.ReplaceAll(s, h, p)
		}
	}
	return s
}

// deepCopy copies a decoded JSON value.
func deepCopy(v any) any {
	switch x := v.(type) {
	case Object:
		c := make(Object, len(x))
		for k, e := range x {
			c[k] = deepCopy(e)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = deepCopy(e)
		}
		return c
	default:
		return v
	}
}
