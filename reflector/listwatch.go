package reflector

import (
	"context"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// ListerWatcher is what a reflector reads from: a LIST streamed item by
// item, and WATCH streams. rest.Resources satisfies it through
// FromResources; tests plug in fakes.
type ListerWatcher[T api.Object] interface {
	ListEach(ctx context.Context, opts rest.ListOptions, fn func(T) error) (rest.ListMeta, error)
	Watch(ctx context.Context, opts rest.WatchOptions) (Watch[T], error)
}

// Watch is an open watch stream.
type Watch[T api.Object] interface {
	Next() (rest.WatchEvent[T], error)
	Close() error
}

// Sink receives what the reflector learns: the deltafifo in an informer.
// It is deliberately small; the reflector knows nothing of stores.
type Sink[T api.Object] interface {
	Add(obj T) error
	Update(obj T) error
	Delete(obj T) error
	// StartReplace opens a replace of the whole state at resourceVersion
	// rv (known once the list ends, so possibly ""). Items are added one by
	// one as they arrive; Finish ends it (keys not seen are deleted) and
	// Abort drops it when the list failed midway.
	StartReplace() Replacer[T]
	// Bookmark reports that the server's state reached rv: a watch
	// bookmark at or after the last resourceVersion applied, in order
	// with the events (client-go's ReflectorBookmarkStore). Bookmarks
	// amid a WatchList's initial events are not reported; their end is
	// the replace's Finish.
	Bookmark(rv string) error
}

// Replacer is one replace in progress.
type Replacer[T api.Object] interface {
	Add(obj T) error
	Finish(rv string) error
	Abort()
}

// resources adapts *rest.Resources to ListerWatcher.
type resources[T api.Object] struct {
	r         *rest.Resources[T]
	transport rest.WatchTransport
}

// FromResources returns a ListerWatcher over a rest client for one
// resource, watching with the given transport.
func FromResources[T api.Object](r *rest.Resources[T], transport rest.WatchTransport) ListerWatcher[T] {
	return resources[T]{r: r, transport: transport}
}

func (a resources[T]) ListEach(ctx context.Context, opts rest.ListOptions, fn func(T) error) (rest.ListMeta, error) {
	return a.r.ListEach(ctx, opts, fn)
}

func (a resources[T]) Watch(ctx context.Context, opts rest.WatchOptions) (Watch[T], error) {
	opts.Transport = a.transport
	w, err := a.r.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return w, nil
}
