package processor

import (
	"github.com/kcmlab/kcm/kube/api"
)

// Handler receives the notifications of one registration, one at a time and
// in the order the informer applied them to its store (client-go:
// ResourceEventHandler). Methods run on the registration's own goroutine; a
// method that blocks holds up only its own registration, but it does hold it
// up, and it holds up shutdown: handlers are expected to do little more than
// compute a key and add it to a queue.
//
// Objects are shared with the cache and with every other handler: read them,
// never modify them.
type Handler[T api.Object] interface {
	// OnAdd: obj appeared. isInitialList is true when obj is part of the state
	// the handler starts from rather than a change seen live.
	OnAdd(obj T, isInitialList bool)
	// OnUpdate: the object changed from oldObj to newObj, or a resync
	// re-announced it (then both hold the cached state).
	OnUpdate(oldObj, newObj T)
	// OnDelete: obj left the cache. finalStateUnknown is true when the delete
	// was inferred from a relist: obj is the last state the cache knew, and
	// the object may have changed on the server before it went away.
	OnDelete(obj T, finalStateUnknown bool)
}

// HandlerFuncs adapts up to three functions to Handler; a nil function
// ignores its notifications (client-go: ResourceEventHandlerFuncs).
type HandlerFuncs[T api.Object] struct {
	AddFunc    func(obj T, isInitialList bool)
	UpdateFunc func(oldObj, newObj T)
	DeleteFunc func(obj T, finalStateUnknown bool)
}

var _ Handler[api.Object] = HandlerFuncs[api.Object]{}

// OnAdd calls AddFunc if set.
func (f HandlerFuncs[T]) OnAdd(obj T, isInitialList bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj, isInitialList)
	}
}

// OnUpdate calls UpdateFunc if set.
func (f HandlerFuncs[T]) OnUpdate(oldObj, newObj T) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc if set.
func (f HandlerFuncs[T]) OnDelete(obj T, finalStateUnknown bool) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj, finalStateUnknown)
	}
}

// FilteringHandler passes on only the objects Filter accepts, translating an
// update that crosses the filter's boundary into the event the inner handler
// would expect of a cache holding just the accepted objects
// (client-go: FilteringResourceEventHandler):
//
//	old accepted  new accepted  inner handler sees
//	no            no            nothing
//	no            yes           OnAdd(new, false)
//	yes           yes           OnUpdate(old, new)
//	yes           no            OnDelete(old, false)
//
// Filter must be a pure function of the object, or the inner handler's view
// drifts from what it was told.
type FilteringHandler[T api.Object] struct {
	Filter  func(obj T) bool
	Handler Handler[T]
}

var _ Handler[api.Object] = FilteringHandler[api.Object]{}

// OnAdd passes obj on if accepted.
func (f FilteringHandler[T]) OnAdd(obj T, isInitialList bool) {
	if f.Filter(obj) {
		f.Handler.OnAdd(obj, isInitialList)
	}
}

// OnUpdate passes on the add, update or delete the table above selects.
func (f FilteringHandler[T]) OnUpdate(oldObj, newObj T) {
	was, is := f.Filter(oldObj), f.Filter(newObj)
	switch {
	case was && is:
		f.Handler.OnUpdate(oldObj, newObj)
	case is:
		f.Handler.OnAdd(newObj, false)
	case was:
		f.Handler.OnDelete(oldObj, false)
	}
}

// OnDelete passes obj on if accepted.
func (f FilteringHandler[T]) OnDelete(obj T, finalStateUnknown bool) {
	if f.Filter(obj) {
		f.Handler.OnDelete(obj, finalStateUnknown)
	}
}
