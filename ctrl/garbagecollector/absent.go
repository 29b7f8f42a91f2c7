package garbagecollector

import (
	"container/list"
	"sync"
)

// absentCacheSize is how many absent owners the collector remembers
// (Kubernetes' NewReferenceCache(500)).
const absentCacheSize = 500

// absentOwners remembers owner identities the apiserver said do not exist
// (Kubernetes' absentOwnerCache), so that the dependents of one deleted
// owner do not each ask again. Keys are identities: a namespaced owner is
// absent in one namespace, a cluster-scoped one (namespace "") everywhere.
// A uid is never reused, so an identity once absent stays absent; the
// bound only limits memory. Safe for concurrent use.
type absentOwners struct {
	mu    sync.Mutex
	size  int
	order *list.List // of objectRef, most recent first
	items map[objectRef]*list.Element
}

func newAbsentOwners(size int) *absentOwners {
	return &absentOwners{size: size, order: list.New(), items: map[objectRef]*list.Element{}}
}

// add records r as absent, evicting the least recently used entry when full.
func (a *absentOwners) add(r objectRef) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if e, ok := a.items[r]; ok {
		a.order.MoveToFront(e)
		return
	}
	a.items[r] = a.order.PushFront(r)
	if a.order.Len() > a.size {
		last := a.order.Back()
		a.order.Remove(last)
		delete(a.items, last.Value.(objectRef))
	}
}

// has reports whether r is known absent, and marks it used.
func (a *absentOwners) has(r objectRef) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.items[r]
	if ok {
		a.order.MoveToFront(e)
	}
	return ok
}
