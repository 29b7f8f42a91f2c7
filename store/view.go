package store

import (
	"github.com/kcmlab/kcm/kube/api"
)

// View is the reading half of a Store: what client-go's Indexer offers a
// controller (GetByKey, List, ListKeys, ByIndex, IndexKeys,
// ListIndexFuncValues) without Add, Update, Delete, Replace or AddIndexers.
// An informer hands out a View of its cache and keeps the Store, the only
// value that can write, to itself.
//
// View is a struct, not an interface, on purpose: an interface value holding
// the *Store could be type-asserted back to it (r.(*store.Store[T]).Set),
// while a View's only field is unexported, so nothing outside this package
// can reach the writer through it. It is one pointer wide: pass it by value.
// Every method behaves exactly as the Store method of the same name, with
// the same guarantees towards a concurrent writer. The zero View has no
// store behind it; its methods panic.
type View[T api.Object] struct {
	s *Store[T]
}

// View returns the read-only view of s.
func (s *Store[T]) View() View[T] { return View[T]{s: s} }

// KeyOf returns the key obj is stored under (the store's key function).
func (v View[T]) KeyOf(obj T) string { return v.s.KeyOf(obj) }

// Get returns the object stored under key (client-go's GetByKey).
func (v View[T]) Get(key string) (T, bool) { return v.s.Get(key) }

// Len returns the number of stored keys.
func (v View[T]) Len() int { return v.s.Len() }

// List returns every stored object, in no particular order.
func (v View[T]) List() []T { return v.s.List() }

// ListKeys returns every stored key, in no particular order.
func (v View[T]) ListKeys() []string { return v.s.ListKeys() }

// ByIndex returns the objects indexed under value, ordered by key.
func (v View[T]) ByIndex(index, value string) ([]T, error) { return v.s.ByIndex(index, value) }

// AppendByIndex is ByIndex appending to dst.
func (v View[T]) AppendByIndex(dst []T, index, value string) ([]T, error) {
	return v.s.AppendByIndex(dst, index, value)
}

// IndexLen returns the number of keys indexed under value.
func (v View[T]) IndexLen(index, value string) (int, error) { return v.s.IndexLen(index, value) }

// IndexKeys returns the keys indexed under value, ordered.
func (v View[T]) IndexKeys(index, value string) ([]string, error) { return v.s.IndexKeys(index, value) }

// ByIndexPage returns one page of the objects indexed under value.
func (v View[T]) ByIndexPage(index, value, after string, limit int) (items []T, next string, err error) {
	return v.s.ByIndexPage(index, value, after, limit)
}

// ByIndexRange returns one page of the objects indexed under the values in
// [from, to).
func (v View[T]) ByIndexRange(index, from, to string, after Cursor, limit int) (items []T, next Cursor, err error) {
	return v.s.ByIndexRange(index, from, to, after, limit)
}

// ListIndexValues returns the distinct values of index that have keys.
func (v View[T]) ListIndexValues(index string) []string { return v.s.ListIndexValues(index) }

// MetaNamespaceKey is the key the default KeyFunc gives an object named
// name in namespace: "namespace/name", or "name" when namespace is empty
// (a cluster-scoped object), exactly api.ObjectMeta.Key (client-go's
// MetaNamespaceKeyFunc). Listers find an object by namespace and name with
// it instead of concatenating strings, which would get cluster-scoped keys
// wrong. It is meaningless for a store built with another KeyFunc.
func MetaNamespaceKey(namespace, name string) string {
	m := api.ObjectMeta{Namespace: namespace, Name: name}
	return m.Key()
}
