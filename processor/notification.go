package processor

import (
	"github.com/kcmlab/kcm/kube/api"
)

// Kind says what happened to an object.
type Kind uint8

// The kinds of notification. The zero Kind is invalid so that a zero
// Notification is never mistaken for a real one.
const (
	// The zero Kind, invalid: no notification carries it.
	_ Kind = iota
	// Add: the object appeared in the cache (or, with IsInitialList, was
	// already there when the handler was added or the informer first synced).
	Add
	// Update: the object changed from Old to Obj.
	Update
	// Delete: the object left the cache; Obj is its last known state.
	Delete
	// Sync: a periodic resync re-announces an unchanged object. Handlers see
	// it as an update; only listeners whose own resync period is due get it.
	Sync
)

// String returns the lower-case name of k, as it appears in logs.
func (k Kind) String() string {
	switch k {
	case Add:
		return "add"
	case Update:
		return "update"
	case Delete:
		return "delete"
	case Sync:
		return "sync"
	default:
		return "invalid"
	}
}

// Notification is one event on its way from the informer to a handler.
// It is a small value (two pointers and three bytes for the usual pointer T)
// that the listener buffers store inline, so distributing one allocates
// nothing.
type Notification[T api.Object] struct {
	// Kind selects the handler method.
	Kind Kind
	// IsInitialList is set on an Add that belongs to the state a handler
	// starts from (the informer's first list, or the snapshot a handler
	// added later receives); those adds gate the registration's HasSynced.
	IsInitialList bool
	// FinalStateUnknown is set on a Delete the informer inferred from a
	// relist: the object vanished while no watch was open, and Obj is the
	// last state the cache held, which may be stale (client-go wraps such an
	// object in DeletedFinalStateUnknown).
	FinalStateUnknown bool
	// Obj is the object: the added one, the new state of an update or
	// sync, or the last known state of a deleted one.
	Obj T
	// Old is the previous state for Update and Sync; zero otherwise.
	Old T
}

// AddNotification announces obj as added.
func AddNotification[T api.Object](obj T, isInitialList bool) Notification[T] {
	return Notification[T]{Kind: Add, Obj: obj, IsInitialList: isInitialList}
}

// UpdateNotification announces a change from oldObj to newObj.
func UpdateNotification[T api.Object](oldObj, newObj T) Notification[T] {
	return Notification[T]{Kind: Update, Old: oldObj, Obj: newObj}
}

// DeleteNotification announces that obj left the cache.
func DeleteNotification[T api.Object](obj T, finalStateUnknown bool) Notification[T] {
	return Notification[T]{Kind: Delete, Obj: obj, FinalStateUnknown: finalStateUnknown}
}

// SyncNotification announces a periodic resync of an object whose cached
// state is oldObj and newObj (usually the same object).
func SyncNotification[T api.Object](oldObj, newObj T) Notification[T] {
	return Notification[T]{Kind: Sync, Old: oldObj, Obj: newObj}
}

// Deliver calls the handler method that n's Kind selects. A Notification
// with an invalid Kind is ignored.
func (n Notification[T]) Deliver(h Handler[T]) {
	switch n.Kind {
	case Add:
		h.OnAdd(n.Obj, n.IsInitialList)
	case Update, Sync:
		h.OnUpdate(n.Old, n.Obj)
	case Delete:
		h.OnDelete(n.Obj, n.FinalStateUnknown)
	}
}

// countsForSync reports whether handling n is part of reaching HasSynced.
func (n Notification[T]) countsForSync() bool { return n.Kind == Add && n.IsInitialList }

// objectKey returns obj's cache key for logs, tolerating a nil object (a
// nil *Pod panics when its embedded metadata is dereferenced).
func objectKey[T api.Object](obj T) (key string) {
	defer func() {
		if recover() != nil {
			key = "<nil>"
		}
	}()
	return obj.GetObjectMeta().Key()
}

// metaOf returns obj's metadata, or nil for a nil object.
func metaOf[T api.Object](obj T) (m *api.ObjectMeta) {
	defer func() {
		if recover() != nil {
			m = nil
		}
	}()
	return obj.GetObjectMeta()
}
