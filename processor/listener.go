package processor

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/internal/ring"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/tap"
)

// batchSize is how many notifications the goroutine takes from the buffer
// under one lock: it then contends with Distribute for the lock once per up
// to 64 notifications instead of once each. Each slot costs 24 bytes (for a
// pointer T), and a taken notification still counts in Pending.
const batchSize = 64

// listener connects the processor to one handler (client-go:
// processorListener): an unbounded buffer that Distribute appends to without
// ever waiting for the handler, and one goroutine that drains it into the
// handler. The buffer is the only place notifications wait, so a slow
// handler delays itself and nobody else.
type listener[T api.Object] struct {
	name    string
	handler Handler[T]
	log     zerolog.Logger
	// panicCounter counts recovered panics in the processor's metric, or is
	// nil without metrics.
	panicCounter prometheus.Counter
	// sourceSynced reports whether the informer's source has synced.
	sourceSynced func() bool
	// tap reports each call, begin and end (nil without a Tap); resource
	// is the informer's resource. Set before the goroutine starts.
	tap      *tap.Point
	resource string

	// resync is this listener's resync clock. Guarded by Processor.mu.
	resync resyncSchedule
	// started is set once the goroutine was launched. Guarded by Processor.mu.
	started bool
	// cancel stops the goroutine; non-nil iff started. Guarded by Processor.mu.
	cancel context.CancelFunc

	mu sync.Mutex
	// buf holds the notifications not yet taken by the goroutine, oldest
	// first. Guarded by mu.
	buf ring.Ring[Notification[T]]
	// removed is set by RemoveHandler, under mu. Invariant: once it is set,
	// buf is empty and stays empty (add drops), and the goroutine starts no
	// further handler call (it checks before each call, so it also drops
	// what it had already taken).
	removed atomic.Bool
	// taken counts the notifications the goroutine has moved out of buf and
	// not yet started to deliver; Pending adds it to buf's length.
	taken atomic.Int64

	// wake carries at most one token meaning "buf may have become
	// non-empty". add sends one on every empty-to-non-empty transition, so a
	// goroutine that found buf empty and then waits on wake cannot miss work.
	wake chan struct{}
	// done is closed when the goroutine has exited, or by RemoveHandler for
	// a listener whose goroutine never started.
	done chan struct{}

	// initialPending counts initial-list adds that are buffered or inside
	// the handler. HasSynced waits for it to reach zero.
	initialPending atomic.Int64
	// delivered counts handler calls that have returned (or panicked).
	delivered atomic.Uint64
	// panics counts handler calls that panicked.
	panics atomic.Uint64
}

func newListener[T api.Object](name string, h Handler[T], log zerolog.Logger,
	panicCounter prometheus.Counter, sourceSynced func() bool) *listener[T] {
	return &listener[T]{
		name:         name,
		handler:      h,
		log:          log.With().Str("handler", name).Logger(),
		panicCounter: panicCounter,
		sourceSynced: sourceSynced,
		wake:         make(chan struct{}, 1),
		done:         make(chan struct{}),
	}
}

// add appends n to the buffer; it never waits for the handler.
func (l *listener[T]) add(n Notification[T]) {
	l.mu.Lock()
	if l.removed.Load() {
		l.mu.Unlock()
		return
	}
	if n.countsForSync() {
		l.initialPending.Add(1)
	}
	l.buf.Push(n)
	first := l.buf.Len() == 1
	l.mu.Unlock()
	if first {
		select {
		case l.wake <- struct{}{}:
		default: // a token is already waiting
		}
	}
}

// addSnapshotLocked appends the initial-list adds of objs in one go.
// The caller holds Processor.mu; the listener is not yet visible to
// Distribute.
func (l *listener[T]) addSnapshotLocked(objs []T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Reserve(len(objs))
	for _, obj := range objs {
		l.buf.Push(AddNotification(obj, true))
	}
	l.initialPending.Add(int64(len(objs)))
}

// remove drops the buffer and makes add a no-op. A handler call already in
// progress finishes; no further call starts.
func (l *listener[T]) remove() {
	l.mu.Lock()
	l.removed.Store(true)
	l.buf.Reset()
	l.mu.Unlock()
}

// run is the listener's goroutine: hand notifications to the handler one at
// a time until ctx is cancelled or the listener is removed. exited runs
// just before done is closed.
func (l *listener[T]) run(ctx context.Context, exited func()) {
	defer close(l.done)
	defer exited()
	defer l.taken.Store(0) // whatever was taken and not delivered is dropped
	batch := make([]Notification[T], 0, batchSize)
	for {
		var ok bool
		if batch, ok = l.take(ctx, batch[:0]); !ok {
			return
		}
		for i := range batch {
			l.taken.Add(-1)
			if l.stopping(ctx) {
				return
			}
			l.deliver(batch[i])
			batch[i] = Notification[T]{} // do not pin the object until the next batch
		}
	}
}

// take waits until the buffer has notifications and moves up to batchSize
// of them, oldest first, into batch. ok is false when the listener should
// stop.
func (l *listener[T]) take(ctx context.Context, batch []Notification[T]) (_ []Notification[T], ok bool) {
	for {
		if l.stopping(ctx) {
			return batch, false
		}
		l.mu.Lock()
		batch = batch[:l.buf.PopInto(batch[:batchSize])]
		l.taken.Add(int64(len(batch)))
		l.mu.Unlock()
		if len(batch) > 0 {
			return batch, true
		}
		select {
		case <-l.wake:
		case <-ctx.Done():
			return batch, false
		}
	}
}

// stopping reports whether the goroutine must start no further handler
// call: the processor stopped or the listener was removed. Cancellation
// wins over buffered work, so a stopped processor does not keep draining a
// long buffer.
func (l *listener[T]) stopping(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return true
	default:
		return l.removed.Load()
	}
}

// deliver calls the handler for n (see call), reporting the call to the
// tap while someone watches: in full (begin and end) when the view wants
// it, else only that a call is in progress.
func (l *listener[T]) deliver(n Notification[T]) {
	if !l.tap.On() {
		l.call(n)
		return
	}
	m := metaOf(n.Obj)
	if m == nil {
		m = &api.ObjectMeta{}
	}
	if !l.tap.Want(m.Namespace, m.Name) {
		l.tap.Calling(true)
		l.call(n)
		l.tap.Calling(false)
		return
	}
	e := tap.Event{Op: tap.OpBegin, Resource: l.resource, Key: m.Key(), RV: m.ResourceVersion, UID: m.UID}
	start := l.tap.Now()
	e.At = start
	l.tap.Emit(e)
	l.call(n)
	e.At, e.Op = l.tap.Now(), handlerCall(n)
	e.Took, e.Depth = e.At.Sub(start), l.pending()
	l.tap.Emit(e)
}

// handlerCall names the handler method n calls, as the view shows it.
func handlerCall[T api.Object](n Notification[T]) string {
	switch n.Kind {
	case Add:
		if n.IsInitialList {
			return "OnAdd (initial list)"
		}
		return "OnAdd"
	case Update:
		return "OnUpdate"
	case Delete:
		return "OnDelete"
	case Sync:
		return "OnUpdate (resync)"
	}
	return "invalid"
}

// call calls the handler for n, recovering a panic so that it costs this
// one notification and nothing else.
func (l *listener[T]) call(n Notification[T]) {
	defer func() {
		r := recover()
		if n.countsForSync() {
			l.initialPending.Add(-1)
		}
		l.delivered.Add(1)
		if r != nil {
			l.recovered(n, r)
		}
	}()
	n.Deliver(l.handler)
}

// recovered logs and counts a panic raised by the handler while handling n.
func (l *listener[T]) recovered(n Notification[T], r any) {
	l.panics.Add(1)
	if l.panicCounter != nil {
		l.panicCounter.Inc()
	}
	l.log.Error().
		Str("notification", n.Kind.String()).
		Str("key", objectKey(n.Obj)).
		Str("panic", fmt.Sprint(r)).
		Str("stack", string(debug.Stack())).
		Msg("event handler panicked; notification dropped, handler keeps running")
}

// pending returns the number of notifications waiting for the handler.
func (l *listener[T]) pending() int {
	if l.removed.Load() {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Len() + int(l.taken.Load())
}

// hasSynced: the source has synced and every initial-list add has been
// handled. The source is asked first: once it reports synced, every
// initial-list add has already been counted, so a zero count read afterwards
// is final.
func (l *listener[T]) hasSynced() bool {
	if !l.sourceSynced() {
		return false
	}
	return !l.removed.Load() && l.initialPending.Load() == 0
}
