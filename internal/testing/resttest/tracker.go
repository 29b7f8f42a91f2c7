package resttest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kcmlab/kcm/kube/labels"
)

// The object tracker: what the apiserver stores, as JSON objects keyed by
// resource, namespace and name, and the rules of its registry that
// controllers depend on. Every method is called with the server's lock
// held; errors are *apiError values, answered as a Status.

// object is one stored object, decoded from JSON with numbers kept.
type object = map[string]any

// ref names a resource: its API group and plural name.
type ref struct{ group, resource string }

// qualified is the resource as Kubernetes' messages name it:
// "replicasets.apps", "pods".
func (r ref) qualified() string {
	if r.group == "" {
		return r.resource
	}
	return r.resource + "." + r.group
}

// key is where an object is stored.
type key struct {
	ref
	namespace, name string
}

type tracker struct {
	objects map[key]object
	rv      int64
	uids    int
	names   int
	now     func() time.Time
	uid     func(namespace, name string) string
}

func newTracker(now func() time.Time, uid func(namespace, name string) string) *tracker {
	t := &tracker{objects: map[key]object{}, now: now, uid: uid}
	if t.uid == nil {
		t.uid = func(string, string) string { t.uids++; return fmt.Sprintf("uid-%d", t.uids) }
	}
	return t
}

// nextRV takes the next resourceVersion (etcd's revision: one counter for
// every resource).
func (t *tracker) nextRV() string {
	t.rv++
	return strconv.FormatInt(t.rv, 10)
}

// seen raises the counter past a resourceVersion given to the tracker.
func (t *tracker) seen(rv string) {
	if n, err := strconv.ParseInt(rv, 10, 64); err == nil && n > t.rv {
		t.rv = n
	}
}

func (t *tracker) timestamp(d time.Duration) string {
	return t.now().Add(d).UTC().Format(time.RFC3339)
}

// put stores o as it is (Add): a missing uid or resourceVersion is
// filled in, given ones are kept; creationTimestamp is left as given, so
// that storing objects never reads the clock.
func (t *tracker) put(r ref, o object) {
	m := meta(o)
	ns, name := str(m, "namespace"), str(m, "name")
	if str(m, "uid") == "" {
		m["uid"] = t.uid(ns, name)
	}
	if rv := str(m, "resourceVersion"); rv == "" {
		m["resourceVersion"] = t.nextRV()
	} else {
		t.seen(rv)
	}
	t.objects[key{r, ns, name}] = o
}

func (t *tracker) get(k key) (object, error) {
	o, ok := t.objects[k]
	if !ok {
		return nil, notFound(k)
	}
	return o, nil
}

// list returns the objects of r in namespace ns ("" = all) that match the
// selectors, ordered by namespace and name.
func (t *tracker) list(r ref, ns, labelSel, fieldSel string) ([]object, error) {
	sel, err := labels.ParseSelector(labelSel)
	if err != nil {
		return nil, badRequest(fmt.Sprintf("unable to parse requirement: %v", err))
	}
	fields, err := parseFieldSelector(fieldSel)
	if err != nil {
		return nil, err
	}
	var keys []key
	for k := range t.objects {
		if k.ref == r && (ns == "" || k.namespace == ns) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		return strings.Compare(a.namespace+"/"+a.name, b.namespace+"/"+b.name)
	})
	var out []object
	for _, k := range keys {
		o := t.objects[k]
		m := meta(o)
		if sel.Matches(strMap(m["labels"])) && fields(m) {
			out = append(out, o)
		}
	}
	return out, nil
}

// parseFieldSelector supports the fields every resource has:
// metadata.name and metadata.namespace, with = (==) and !=.
func parseFieldSelector(s string) (func(meta map[string]any) bool, error) {
	type term struct {
		field, value string
		not          bool
	}
	var terms []term
	for part := range strings.SplitSeq(s, ",") {
		if part == "" {
			continue
		}
		tm := term{}
		var ok bool
		if tm.field, tm.value, ok = strings.Cut(part, "!="); ok {
			tm.not = true
		} else if tm.field, tm.value, ok = strings.Cut(part, "=="); !ok {
			tm.field, tm.value, ok = strings.Cut(part, "=")
		}
		if !ok || (tm.field != "metadata.name" && tm.field != "metadata.namespace") {
			return nil, badRequest(fmt.Sprintf("field label not supported: %s", part))
		}
		terms = append(terms, tm)
	}
	return func(m map[string]any) bool {
		for _, tm := range terms {
			if (str(m, strings.TrimPrefix(tm.field, "metadata.")) == tm.value) == tm.not {
				return false
			}
		}
		return true
	}, nil
}

// create stores a new object (Kubernetes' BeforeCreate and the create
// strategies): the namespace from the request, a name generated from
// generateName, a uid, resourceVersion, creationTimestamp and generation
// 1, status reset.
func (t *tracker) create(r ref, ns string, o object) (object, error) {
	m := meta(o)
	if got := str(m, "namespace"); got != "" && got != ns {
		return nil, badRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	if ns != "" {
		m["namespace"] = ns
	}
	if str(m, "resourceVersion") != "" {
		return nil, &apiError{code: 500, reason: "InternalError",
			message: "Internal error occurred: resourceVersion should not be set on objects to be created"}
	}
	name := str(m, "name")
	if name == "" {
		gen := str(m, "generateName")
		if gen == "" {
			return nil, invalid(r, "", "metadata.name: Required value: name or generateName is required")
		}
		for name == "" || t.objects[key{r, ns, name}] != nil {
			t.names++
			name = gen + strconv.Itoa(t.names)
		}
		m["name"] = name
	}
	k := key{r, ns, name}
	if _, exists := t.objects[k]; exists {
		return nil, &apiError{code: 409, reason: "AlreadyExists", k: k,
			message: fmt.Sprintf("%s %q already exists", r.qualified(), name)}
	}
	delete(m, "deletionTimestamp")
	delete(m, "deletionGracePeriodSeconds")
	m["uid"] = t.uid(ns, name)
	m["creationTimestamp"] = t.timestamp(0)
	m["resourceVersion"] = t.nextRV()
	if tracksGeneration(r, o) {
		m["generation"] = json.Number("1")
	}
	switch r {
	case ref{"", "namespaces"}:
		o["status"] = map[string]any{"phase": "Active"}
	case ref{"", "pods"}:
		o["status"] = map[string]any{"phase": "Pending"}
	default:
		delete(o, "status")
	}
	t.objects[k] = o
	return o, nil
}

// tracksGeneration: objects with a spec count its changes in
// metadata.generation, except namespaces (Kubernetes' namespace strategy
// leaves generation alone).
func tracksGeneration(r ref, o object) bool {
	_, hasSpec := o["spec"]
	return hasSpec && r != ref{"", "namespaces"}
}

// update replaces the object at k with o through subresource sub ("" for
// the object itself), as Kubernetes' update strategies do: the object
// keeps its status (sub ""), its spec (sub "status"), or everything but
// spec.finalizers (namespaces' "finalize"). A resourceVersion that is not
// the stored one is a Conflict, and so is a uid that is not the stored
// object's; an update that changes nothing keeps the resourceVersion.
func (t *tracker) update(k key, sub string, o object) (object, error) {
	old, err := t.get(k)
	if err != nil {
		return nil, err
	}
	m := meta(o)
	if name := str(m, "name"); name != k.name {
		return nil, badRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, k.name))
	}
	if ns := str(m, "namespace"); ns != "" && ns != k.namespace {
		return nil, badRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	om := meta(old)
	if rv := str(m, "resourceVersion"); rv != "" && rv != str(om, "resourceVersion") {
		return nil, conflict(k, "the object has been modified; please apply your changes to the latest version and try again")
	}
	if uid := str(m, "uid"); uid != "" && uid != str(om, "uid") {
		return nil, conflict(k, fmt.Sprintf("Precondition failed: UID in precondition: %s, UID in object meta: %s", uid, str(om, "uid")))
	}
	next, err := t.strategy(k.ref, sub, old, o)
	if err != nil {
		return nil, err
	}
	return t.commit(k, sub, old, next), nil
}

// strategy returns what an update through sub stores: the new object with
// the fields that sub may not change taken from old.
func (t *tracker) strategy(r ref, sub string, old, o object) (object, error) {
	next := deepCopy(o)
	switch {
	case sub == "":
		copyField(next, old, "status")
		if r == (ref{"", "namespaces"}) {
			setFinalizers(next, specFinalizers(old))
		}
	case sub == "status":
		copyField(next, old, "spec")
	case sub == "finalize" && r == (ref{"", "namespaces"}):
		copyField(next, old, "status")
	default:
		return nil, &apiError{code: 404, reason: "NotFound", message: "the server could not find the requested resource"}
	}
	// What the server owns stays as it is.
	for _, f := range []string{"apiVersion", "kind"} {
		if _, ok := next[f]; !ok {
			copyField(next, old, f)
		}
	}
	nm, om := meta(next), meta(old)
	for _, f := range []string{"uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation", "namespace"} {
		copyField(nm, om, f)
	}
	return next, nil
}

// commit stores next, written through sub, in place of old: a new
// resourceVersion (unless nothing changed), generation bumped by a spec
// change of the object itself (by an annotation change too, for
// Deployments), and the object removed when it was being deleted and
// nothing holds it any more (Kubernetes' ShouldDeleteDuringUpdate).
func (t *tracker) commit(k key, sub string, old, next object) object {
	nm, om := meta(next), meta(old)
	nm["resourceVersion"] = om["resourceVersion"]
	if equalObjects(next, old) {
		return old
	}
	if sub == "" && tracksGeneration(k.ref, next) {
		changed := !equalJSON(next["spec"], old["spec"])
		if k.ref == (ref{"apps", "deployments"}) && !equalJSON(nm["annotations"], om["annotations"]) {
			changed = true
		}
		if changed {
			nm["generation"] = json.Number(strconv.FormatInt(num(om["generation"])+1, 10))
		}
	}
	nm["resourceVersion"] = t.nextRV()
	if str(nm, "deletionTimestamp") != "" && num(nm["deletionGracePeriodSeconds"]) == 0 && !held(k.ref, next) {
		delete(t.objects, k)
		return next
	}
	t.objects[k] = next
	return next
}

// held reports whether finalizers keep o: metadata.finalizers, and a
// namespace's spec.finalizers.
func held(r ref, o object) bool {
	if len(strList(meta(o)["finalizers"])) > 0 {
		return true
	}
	return r == (ref{"", "namespaces"}) && len(specFinalizers(o)) > 0
}

func specFinalizers(o object) []string {
	spec, _ := o["spec"].(map[string]any)
	return strList(spec["finalizers"])
}

func setFinalizers(o object, fins []string) {
	spec, _ := o["spec"].(map[string]any)
	if spec == nil {
		if len(fins) == 0 {
			return
		}
		spec = map[string]any{}
		o["spec"] = spec
	}
	if len(fins) == 0 {
		delete(spec, "finalizers")
		return
	}
	spec["finalizers"] = toAny(fins)
}
