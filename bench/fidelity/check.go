package fidelity

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"sort"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	sigsjson "sigs.k8s.io/json"

	"github.com/kcmlab/kcm/ctrl/deployment"
	"github.com/kcmlab/kcm/ctrl/replicaset"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// ErrDiffers wraps every difference a check finds between what went into
// kcm and what came out.
var ErrDiffers = errors.New("fidelity: kcm's output differs from its input")

// hashLabel is the label kcm and Kubernetes add to a ReplicaSet's
// template.
const hashLabel = "pod-template-hash"

// Cache decodes objects as kcm's typed informers do
// (decode.CompactCached, managedFields stripped), each against the version
// it decoded before under the same namespace/name, so that the parts a
// compact object shares with its predecessor are exercised too.
type Cache struct {
	mu          sync.Mutex
	deployments map[string]*api.Deployment
	replicaSets map[string]*api.ReplicaSet
	dCodec      decode.Codec[*api.Deployment]
	rsCodec     decode.Codec[*api.ReplicaSet]
}

// NewCache returns an empty Cache.
func NewCache() *Cache {
	c := &Cache{deployments: map[string]*api.Deployment{}, replicaSets: map[string]*api.ReplicaSet{}}
	c.dCodec = decode.StrippingManagedFields(decode.CompactCached[api.Deployment](func(ns, name string) (*api.Deployment, bool) {
		d, ok := c.deployments[ns+"/"+name]
		return d, ok
	}))
	c.rsCodec = decode.StrippingManagedFields(decode.CompactCached[api.ReplicaSet](func(ns, name string) (*api.ReplicaSet, bool) {
		rs, ok := c.replicaSets[ns+"/"+name]
		return rs, ok
	}))
	return c
}

// Deployment decodes data and keeps the result as the cached version.
func (c *Cache) Deployment(data []byte) (*api.Deployment, error) {
	return keep(c, c.deployments, "a Deployment", func() (*api.Deployment, error) { return c.dCodec.Decode(data) })
}

// ReplicaSet decodes data and keeps the result as the cached version.
func (c *Cache) ReplicaSet(data []byte) (*api.ReplicaSet, error) {
	return keep(c, c.replicaSets, "a ReplicaSet", func() (*api.ReplicaSet, error) { return c.rsCodec.Decode(data) })
}

// keep decodes under c's lock (the codecs read the cached versions) and
// keeps the result in cache as the cached version; what names the object
// in an error.
func keep[T api.Object](c *Cache, cache map[string]T, what string, dec func() (T, error)) (T, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	obj, err := dec()
	if err != nil {
		var zero T
		return zero, fmt.Errorf("kcm's cache decode of %s: %w", what, err)
	}
	cache[obj.GetObjectMeta().Key()] = obj
	return obj, nil
}

// CheckReplicaSet sends in — the JSON of want as the apiserver serves it
// — through kcm's cache and deployment.NewReplicaSetFor, and checks the
// ReplicaSet's template: decoded with k8s.io/api it is semantically equal
// to want's (the hash label aside), and as JSON it is in's template member
// for member. It returns the ReplicaSet's JSON, as the apiserver would
// store it (with a uid), for CheckPod.
func CheckReplicaSet(c *Cache, in []byte, want *appsv1.Deployment) ([]byte, error) {
	kd, err := c.Deployment(in)
	if err != nil {
		return nil, err
	}
	body, err := deployment.NewReplicaSetFor(kd, 3, 1)
	if err != nil {
		return nil, fmt.Errorf("kcm's ReplicaSet for %s: %w", kd.Key(), err)
	}
	rb, err := body.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var rs appsv1.ReplicaSet
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(rb, &rs); err != nil {
		return nil, fmt.Errorf("k8s.io/api decode of kcm's ReplicaSet: %w", err)
	}
	if rs.Spec.Template.Labels[hashLabel] == "" {
		return nil, fmt.Errorf("%w: the ReplicaSet's template has no %s label", ErrDiffers, hashLabel)
	}
	got := rs.Spec.Template.DeepCopy()
	delete(got.Labels, hashLabel)
	if !equality.Semantic.DeepEqual(got, &want.Spec.Template) {
		return nil, fmt.Errorf("%w: ReplicaSet template (Go, semantic): %s", ErrDiffers, goDiff(&want.Spec.Template, got))
	}
	gm, wm, err := templates(rb, in)
	if err != nil {
		return nil, err
	}
	if d := jsonDiff("spec.template", wm, gm); d != "" {
		return nil, fmt.Errorf("%w: ReplicaSet template (JSON): %s", ErrDiffers, d)
	}
	return withUID(rb, "uid-rs-"+kd.Name)
}

// templates returns spec.template of the ReplicaSet rb (without the hash
// label) and of the Deployment in, as decoded JSON.
func templates(rb, in []byte) (got, want any, err error) {
	var r, d map[string]any
	if err := unmarshalNumbers(rb, &r); err != nil {
		return nil, nil, err
	}
	if err := unmarshalNumbers(in, &d); err != nil {
		return nil, nil, err
	}
	rt := member(r, "spec", "template").(map[string]any)
	meta := maps.Clone(rt["metadata"].(map[string]any))
	labels := maps.Clone(meta["labels"].(map[string]any))
	delete(labels, hashLabel)
	if len(labels) == 0 && member(d, "spec", "template", "metadata", "labels") == nil {
		delete(meta, "labels")
	} else {
		meta["labels"] = labels
	}
	rt = maps.Clone(rt)
	rt["metadata"] = meta
	return rt, member(d, "spec", "template"), nil
}

// checkPodSemantic sends the ReplicaSet rb through kcm's cache (cached)
// and replicaset.NewPodFor, decodes both with k8s.io/api (decode, in the
// encoding form names) and checks that the pod's spec is the template's
// semantically and its labels, annotations and finalizers are the
// template's (GetPodFromTemplate). It returns kcm's pod body for the
// checks of that encoding's bytes.
func checkPodSemantic(rb []byte, cached func([]byte) (*api.ReplicaSet, error), decode func([]byte, any) error, form string) ([]byte, error) {
	krs, err := cached(rb)
	if err != nil {
		return nil, err
	}
	pb, err := replicaset.NewPodFor(krs)
	if err != nil {
		return nil, fmt.Errorf("kcm's pod for %s: %w", krs.Key(), err)
	}
	var rs appsv1.ReplicaSet
	var pod corev1.Pod
	if err := decode(rb, &rs); err != nil {
		return nil, err
	}
	if err := decode(pb, &pod); err != nil {
		return nil, fmt.Errorf("k8s.io/api decode of kcm's pod (%s): %w", form, err)
	}
	t := &rs.Spec.Template
	if !equality.Semantic.DeepEqual(pod.Spec, t.Spec) {
		return nil, fmt.Errorf("%w: pod spec (%s, Go, semantic): %s", ErrDiffers, form, goDiff(t.Spec, pod.Spec))
	}
	if !equality.Semantic.DeepEqual(pod.Labels, t.Labels) || !equality.Semantic.DeepEqual(pod.Annotations, t.Annotations) ||
		!equality.Semantic.DeepEqual(pod.Finalizers, t.Finalizers) {
		return nil, fmt.Errorf("%w: pod metadata (%s): labels %v annotations %v finalizers %v; template %v %v %v", ErrDiffers,
			form, pod.Labels, pod.Annotations, pod.Finalizers, t.Labels, t.Annotations, t.Finalizers)
	}
	return pb, nil
}

// CheckPod sends the ReplicaSet rb through kcm's cache and
// replicaset.NewPodFor, and checks the pod: its spec is the template's,
// semantically (k8s.io/api) and member for member (JSON); its labels,
// annotations and finalizers are the template's (GetPodFromTemplate).
func CheckPod(c *Cache, rb []byte) error {
	pb, err := checkPodSemantic(rb, c.ReplicaSet, func(b []byte, v any) error {
		return sigsjson.UnmarshalCaseSensitivePreserveInts(b, v)
	}, "JSON")
	if err != nil {
		return err
	}
	var r, p map[string]any
	if err := unmarshalNumbers(rb, &r); err != nil {
		return err
	}
	if err := unmarshalNumbers(pb, &p); err != nil {
		return err
	}
	if d := jsonDiff("spec", member(r, "spec", "template", "spec"), member(p, "spec")); d != "" {
		return fmt.Errorf("%w: pod spec (JSON): %s", ErrDiffers, d)
	}
	return nil
}

// CheckCompare checks kcm's template comparison against Kubernetes': for
// a and b encoded as the apiserver encodes them, deployment.EqualIgnoreHash
// says equal exactly when equality.Semantic.DeepEqual does with the hash
// label removed from both (deploymentutil.EqualIgnoreHash).
func CheckCompare(a, b *corev1.PodTemplateSpec) error {
	return CheckCompareWith(a, b, deployment.EqualIgnoreHash)
}

// CheckCompareWith is CheckCompare of another comparison of decoded
// templates, so that the check itself can be shown to fail.
func CheckCompareWith(a, b *corev1.PodTemplateSpec, equal func(a, b map[string]any) bool) error {
	ja, err := encodeTemplate(a)
	if err != nil {
		return err
	}
	jb, err := encodeTemplate(b)
	if err != nil {
		return err
	}
	ca, cb := a.DeepCopy(), b.DeepCopy()
	delete(ca.Labels, hashLabel)
	delete(cb.Labels, hashLabel)
	k8s := equality.Semantic.DeepEqual(ca, cb)
	if kcm := equal(ja, jb); kcm != k8s {
		return fmt.Errorf("%w: EqualIgnoreHash = %v, Kubernetes says %v: %s", ErrDiffers, kcm, k8s, goDiff(ca, cb))
	}
	return nil
}

// encodeTemplate is t's JSON as the apiserver writes it, decoded as kcm's
// deployment controller decodes a template (numbers as json.Number).
func encodeTemplate(t *corev1.PodTemplateSpec) (map[string]any, error) {
	b, err := jsonMarshal(t)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, unmarshalNumbers(b, &m)
}

// member returns the value at path in v, nil when absent.
func member(v any, path ...string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// withUID returns the object JSON b with metadata.uid set.
func withUID(b []byte, uid string) ([]byte, error) {
	var m map[string]any
	if err := unmarshalNumbers(b, &m); err != nil {
		return nil, err
	}
	meta, _ := m["metadata"].(map[string]any)
	if meta == nil {
		return nil, fmt.Errorf("%w: no metadata in %s", ErrDiffers, b)
	}
	meta["uid"] = uid
	return jsonMarshal(m)
}

// jsonDiff returns "" when want and got are the same JSON value, or the
// first path where they differ with both values.
func jsonDiff(path string, want, got any) string {
	wm, wok := want.(map[string]any)
	gm, gok := got.(map[string]any)
	if wok && gok {
		keys := map[string]bool{}
		for k := range wm {
			keys[k] = true
		}
		for k := range gm {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			wv, win := wm[k]
			gv, gin := gm[k]
			switch {
			case win && !gin:
				return fmt.Sprintf("%s.%s: missing (input %s)", path, k, short(wv))
			case gin && !win:
				return fmt.Sprintf("%s.%s: added %s", path, k, short(gv))
			}
			if d := jsonDiff(path+"."+k, wv, gv); d != "" {
				return d
			}
		}
		return ""
	}
	wa, wok := want.([]any)
	ga, gok := got.([]any)
	if wok && gok && len(wa) == len(ga) {
		for i := range wa {
			if d := jsonDiff(fmt.Sprintf("%s[%d]", path, i), wa[i], ga[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return fmt.Sprintf("%s: %s, input %s", path, short(got), short(want))
}

// goDiff describes two Go values that differ, by their JSON.
func goDiff(want, got any) string {
	wb, _ := jsonMarshal(want)
	gb, _ := jsonMarshal(got)
	var w, g any
	_ = unmarshalNumbers(wb, &w)
	_ = unmarshalNumbers(gb, &g)
	if d := jsonDiff("", w, g); d != "" {
		return d
	}
	return "no JSON difference: " + short(string(gb))
}

// short is v as JSON, cut to 300 bytes.
func short(v any) string {
	b, _ := jsonMarshal(v)
	s := string(b)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return strings.TrimSpace(s)
}
