package garbagecollector

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kcmlab/kcm/kube/api"
)

// Finalizers the collector acts on (meta/v1 FinalizerOrphanDependents and
// FinalizerDeleteDependents). kube-apiserver puts one of them on an object
// deleted with propagationPolicy Orphan or Foreground; the collector
// removes it once the dependents are orphaned or gone.
const (
	FinalizerOrphanDependents = "orphan"
	FinalizerDeleteDependents = "foregroundDeletion"
)

// objectRef is what the collector knows an object by: the coordinates of
// an ownerReference (apiVersion, kind, name, uid) plus the namespace,
// which an ownerReference does not carry (Kubernetes' objectReference).
// For a node the collector has only heard of as an owner ("virtual"), the
// namespace is the one of the dependent that named it, a guess until the
// object is seen.
type objectRef struct {
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
	UID        string
}

// refFromOwner is the identity an ownerReference gives its owner, seen
// from a dependent in namespace ns.
func refFromOwner(o api.OwnerReference, ns string) objectRef {
	return objectRef{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: ns, Name: o.Name, UID: o.UID}
}

// matches reports whether an ownerReference names r by all four
// coordinates (Kubernetes' ownerReferenceMatchesCoordinates); the
// namespace is not part of an ownerReference.
func (r objectRef) matches(o api.OwnerReference) bool {
	return o.UID == r.UID && o.Name == r.Name && o.Kind == r.Kind && o.APIVersion == r.APIVersion
}

// String renders r as Kubernetes logs an objectReference, and as the
// OwnerRefInvalidNamespace event message quotes it:
// "[apps/v1/ReplicaSet, namespace: ns, name: web-1, uid: 1234]".
func (r objectRef) String() string {
	return fmt.Sprintf("[%s/%s, namespace: %s, name: %s, uid: %s]", r.APIVersion, r.Kind, r.Namespace, r.Name, r.UID)
}

// group returns the API group of r's apiVersion ("" for core "v1").
func (r objectRef) group() string {
	g, _, found := strings.Cut(r.APIVersion, "/")
	if !found {
		return ""
	}
	return g
}

// version returns the version of r's apiVersion.
func (r objectRef) version() string {
	_, v, found := strings.Cut(r.APIVersion, "/")
	if !found {
		return r.APIVersion
	}
	return v
}

// less orders identities for the alternate-identity choice and the graph
// dump: kind and apiVersion first, then namespace, name and uid
// (Kubernetes' referenceLessThan).
func (r objectRef) less(o objectRef) bool {
	switch {
	case r.Kind != o.Kind:
		return r.Kind < o.Kind
	case r.APIVersion != o.APIVersion:
		return r.APIVersion < o.APIVersion
	case r.Namespace != o.Namespace:
		return r.Namespace < o.Namespace
	case r.Name != o.Name:
		return r.Name < o.Name
	}
	return r.UID < o.UID
}

// blocks reports whether the reference has blockOwnerDeletion: true.
func blocks(o api.OwnerReference) bool { return o.BlockOwnerDeletion != nil && *o.BlockOwnerDeletion }

// hasFinalizer reports whether m lists finalizer f.
func hasFinalizer(m *api.ObjectMeta, f string) bool { return slices.Contains(m.Finalizers, f) }

// beingDeleted reports whether m has a deletionTimestamp.
func beingDeleted(m *api.ObjectMeta) bool { return m.DeletionTimestamp != nil }

// deletionStartsWith reports whether the change from old (nil for an
// add) to cur is the start of a deletion that waits for finalizer f: cur
// is being deleted with f, and old was not, or lacked f (Kubernetes'
// deletionStartsWithFinalizer). A resync, which repeats cur, is not one.
func deletionStartsWith(old, cur *api.ObjectMeta, f string) bool {
	if !beingDeleted(cur) || !hasFinalizer(cur, f) {
		return false
	}
	return old == nil || !beingDeleted(old) || !hasFinalizer(old, f)
}

// ownerRefsEqual compares two ownerReferences field by field, the
// pointers by what they point to.
func ownerRefsEqual(a, b api.OwnerReference) bool {
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		boolPtrEqual(a.Controller, b.Controller) && boolPtrEqual(a.BlockOwnerDeletion, b.BlockOwnerDeletion)
}

func boolPtrEqual(a, b *bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// refPair is one ownerReference whose fields other than the uid changed.
type refPair struct{ old, cur api.OwnerReference }

// referencesDiff compares two ownerReference lists by uid: the
// references only cur has, those only old has, and those in both whose
// other fields differ (Kubernetes' referencesDiffs).
func referencesDiff(old, cur []api.OwnerReference) (added, removed []api.OwnerReference, changed []refPair) {
	for _, c := range cur {
		i := slices.IndexFunc(old, func(o api.OwnerReference) bool { return o.UID == c.UID })
		switch {
		case i < 0:
			added = append(added, c)
		case !ownerRefsEqual(old[i], c):
			changed = append(changed, refPair{old[i], c})
		}
	}
	for _, o := range old {
		if !slices.ContainsFunc(cur, func(c api.OwnerReference) bool { return c.UID == o.UID }) {
			removed = append(removed, o)
		}
	}
	return added, removed, changed
}
