package informer

import (
	"fmt"
	"slices"
	"strings"

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

// List returns the cached objects whose labels match sel, in no
// particular order. A selector with an exact requirement ("k=v",
// "k in (...)") is answered from the label index when the store has one
// (an informer's has): only the objects under the requirement's key=value
// pairs are read and matched, instead of every cached object.
func (l Lister[T]) List(sel labels.Selector) []T {
	if sel.IsNothing() {
		return nil
	}
	if objs, ok := l.byLabel(sel, "", false, -1); ok {
		return objs
	}
	return filterOwned(l.s.List(), sel, "", false)
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

// LastStoreSyncResourceVersion is the resourceVersion the cache is current
// at (Informer.LastStoreSyncResourceVersion): what a controller compares
// with its own last write before trusting what it lists.
func (l Lister[T]) LastStoreSyncResourceVersion() string { return l.s.LastStoreSyncResourceVersion() }

// NamespaceLister reads one namespace of the cache.
type NamespaceLister[T api.Object] struct {
	l  Lister[T]
	ns string
}

// Get returns the object named name in the namespace.
func (n NamespaceLister[T]) Get(name string) (T, error) { return n.l.get(n.ns, name) }

// List returns the namespace's objects whose labels match sel, ordered by
// key when the store has a namespace index. It reads whichever index holds fewer candidates: the namespace's
// (when the store has a namespace index) or, for a selector with an exact
// requirement, the label index's.
func (n NamespaceLister[T]) List(sel labels.Selector) []T {
	if sel.IsNothing() {
		return nil
	}
	inNS, err := n.l.s.IndexLen(store.IndexNamespace, n.ns)
	if err != nil {
		inNS = -1 // no namespace index
	}
	if objs, ok := n.l.byLabel(sel, n.ns, true, inNS); ok {
		return objs
	}
	if inNS < 0 {
		return filterOwned(n.l.s.List(), sel, n.ns, true)
	}
	objs, _ := n.l.s.ByIndex(store.IndexNamespace, n.ns)
	return filterOwned(objs, sel, "", false)
}

// byLabel answers sel from the label index: it picks the exact
// requirement with the fewest indexed objects and matches those against
// the whole selector (and namespace ns when inNS). It declines (false)
// when sel has no exact requirement, the store has no label index, or
// the best requirement has more candidates than limit (>= 0), the size of
// the alternative.
func (l Lister[T]) byLabel(sel labels.Selector, ns string, inNS bool, limit int) ([]T, bool) {
	var best []string // the key=value pairs of the chosen requirement
	cost := -1
	for key, values := range sel.ExactRequirements() {
		pairs := make([]string, len(values))
		c := 0
		for i, v := range values {
			pairs[i] = key + "=" + v
			k, err := l.s.IndexLen(store.IndexLabel, pairs[i])
			if err != nil {
				return nil, false // no label index
			}
			c += k
		}
		if cost < 0 || c < cost {
			best, cost = pairs, c
		}
	}
	if cost < 0 || (limit >= 0 && cost > limit) {
		return nil, false
	}
	objs := make([]T, 0, cost)
	for _, p := range best {
		objs, _ = l.s.AppendByIndex(objs, store.IndexLabel, p)
	}
	out := filterOwned(objs, sel, ns, inNS)
	if len(best) > 1 {
		// Each value's objects come in key order; keep one order overall.
		slices.SortFunc(out, func(a, b T) int { return strings.Compare(l.s.KeyOf(a), l.s.KeyOf(b)) })
	}
	return out, true
}

// filterOwned keeps the objects of objs (a slice the caller owns) that
// match sel and, when inNS, are in namespace ns, filtering in place. A
// result much shorter than objs is copied out, so that it does not pin
// objs' whole array.
func filterOwned[T api.Object](objs []T, sel labels.Selector, ns string, inNS bool) []T {
	if sel.Empty() && !inNS {
		return objs
	}
	out := objs[:0]
	for _, o := range objs {
		m := o.GetObjectMeta()
		if (!inNS || m.Namespace == ns) && sel.Matches(m.Labels) {
			out = append(out, o)
		}
	}
	clear(objs[len(out):]) // drop the references filtered out
	if cap(out) > 4*len(out)+16 {
		out = slices.Clone(out)
	}
	return out
}
