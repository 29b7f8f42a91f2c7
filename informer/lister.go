package informer

import (
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/store"
)

// Lister reads an informer's cache (client-go's listers). Results are the
// cached objects themselves: shared and read-only — api.DeepCopy before
// modifying one. Get finds an object under the key the cache stores it by,
// store.MetaNamespaceKey(namespace, name): "namespace/name", or "name" for
// a cluster-scoped object.
type Lister[T api.Object] struct {
	s   store.View[T]
	res string
}

// NewLister returns a lister over any store's view whose keys are the
// default ones (store.MetaNamespaceKey; an informer's always are).
func NewLister[T api.Object](v store.View[T], resource string) Lister[T] {
	return Lister[T]{s: v, res: resource}
}

// List returns the cached objects whose labels match sel.
func (l Lister[T]) List(sel labels.Selector) []T {
	return filter(l.s.List(), sel)
}

// Get returns a cluster-scoped object by name. A missing object is a
// rest.ErrNotFound, like the apiserver's answer.
func (l Lister[T]) Get(name string) (T, error) { return l.get("", name) }

func (l Lister[T]) get(ns, name string) (T, error) {
	obj, ok := l.s.Get(store.MetaNamespaceKey(ns, name))
	if !ok {
		var zero T
		return zero, fmt.Errorf("%s %q not found in cache: %w", l.res, name, rest.ErrNotFound)
	}
	return obj, nil
}

// Namespace returns a lister for one namespace; "" reads the
// cluster-scoped objects.
func (l Lister[T]) Namespace(ns string) NamespaceLister[T] {
	return NamespaceLister[T]{l: l, ns: ns}
}

// ByIndex returns the objects with value in the named index, ordered by key.
func (l Lister[T]) ByIndex(index, value string) ([]T, error) { return l.s.ByIndex(index, value) }

// NamespaceLister reads one namespace of the cache.
type NamespaceLister[T api.Object] struct {
	l  Lister[T]
	ns string
}

// Get returns the object named name in the namespace.
func (n NamespaceLister[T]) Get(name string) (T, error) { return n.l.get(n.ns, name) }

// List returns the namespace's objects whose labels match sel, using the
// namespace index when the store has one.
func (n NamespaceLister[T]) List(sel labels.Selector) []T {
	objs, err := n.l.s.ByIndex(store.IndexNamespace, n.ns)
	if err != nil {
		objs = nil
		for _, o := range n.l.s.List() {
			if o.GetObjectMeta().Namespace == n.ns {
				objs = append(objs, o)
			}
		}
	}
	return filter(objs, sel)
}

func filter[T api.Object](objs []T, sel labels.Selector) []T {
	if sel.Empty() {
		return objs
	}
	out := objs[:0:0]
	for _, o := range objs {
		if sel.Matches(o.GetObjectMeta().Labels) {
			out = append(out, o)
		}
	}
	return out
}
