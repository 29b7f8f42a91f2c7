package deltafifo

import (
	"sync"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/internal/ring"
	"github.com/kcmlab/kcm/kube/api"
)

// FIFO is an arrival-ordered log of deltas with per-key bookkeeping. Many
// goroutines may produce; one goroutine at a time consumes with Pop.
//
// Every delta ever enqueued gets a sequence number, counting from 0. The
// three counters done ≤ head ≤ tail cut that sequence into
//
//	[0, done)     consumed: Pop's process returned
//	[done, head)  in flight: handed to process, which has not returned yet
//	[head, tail)  queued in the ring
//
// A delta is pending while it is in flight or queued.
type FIFO[T api.Object] struct {
	keyOf func(T) string
	known KnownObjects[T] // nil: the consumer's contents are unknown
	log   zerolog.Logger

	// notify holds a token when the queue may have become non-empty since
	// Pop last looked. Capacity 1; sends never block.
	notify chan struct{}
	// closedCh is closed by Close, to wake a waiting Pop.
	closedCh chan struct{}

	mu sync.Mutex
	// queue holds the deltas with sequence numbers head ≤ s < tail, oldest
	// first: s sits at queue.at(s-head).
	queue ring.Ring[Delta[T]]
	// batch holds the in-flight deltas done ≤ s < head at batch[s-done].
	// Reused by every Pop and zeroed after process returns.
	batch []Delta[T]
	// Invariant: done ≤ head ≤ tail; head-done == len of the in-flight batch
	// (0 when no process is running); tail-head == queue.len().
	done, head, tail uint64
	// keys has an entry for k iff k has pending deltas (queued or in flight):
	// pending is how many of the deltas in [done, tail) have key k, last is
	// the largest sequence number among them. Empty and nil after Close.
	keys map[string]keyState
	// popping is true while a Pop runs (waiting or processing).
	popping bool
	closed  bool
	// replace is the open streaming replace, or nil.
	replace *Replacer[T]
	// initialDone is set when the first replace finishes; syncEnd is tail at
	// that moment. HasSynced: initialDone && done ≥ syncEnd.
	initialDone bool
	syncEnd     uint64

	// gather is Options.GatherReplaces. gatherAt, when > 0, is the queue
	// length a Pop waiting for a full batch during a replace wants to be
	// woken at.
	gather   bool
	gatherAt int
	// bookmarks and atomic are Options.Bookmarks and AtomicReplaces.
	// wholePending counts the ReplacedAll deltas pending (queued or in
	// flight): until the consumer has applied one, its objects are in
	// neither the bookkeeping nor Known.
	bookmarks, atomic bool
	wholePending      int

	// waitHook, when set (by tests only), runs each time Pop is about to
	// block, without the lock held.
	waitHook func()
}

// keyState is the bookkeeping of one key with pending deltas.
type keyState struct {
	pending int
	last    uint64
}

// New returns an open, empty FIFO.
func New[T api.Object](o Options[T]) *FIFO[T] {
	keyOf := o.KeyFunc
	if keyOf == nil {
		keyOf = metaKey[T]
	}
	return &FIFO[T]{
		keyOf:     keyOf,
		known:     o.Known,
		log:       o.Logger,
		notify:    make(chan struct{}, 1),
		closedCh:  make(chan struct{}),
		keys:      make(map[string]keyState),
		gather:    o.GatherReplaces,
		bookmarks: o.Bookmarks,
		atomic:    o.AtomicReplaces && o.Known != nil,
	}
}

// Add enqueues an Added delta (a watch ADDED event).
func (f *FIFO[T]) Add(obj T) error { return f.enqueue(Added, obj) }

// Update enqueues an Updated delta (a watch MODIFIED event).
func (f *FIFO[T]) Update(obj T) error { return f.enqueue(Updated, obj) }

func (f *FIFO[T]) enqueue(t DeltaType, obj T) error {
	key := f.keyOf(obj)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	if f.replace != nil {
		// News about key newer than the open replace's snapshot: its Finish
		// must not infer the key deleted, nor put the list's older state back.
		f.replace.heardLocked(key, obj, false)
	}
	f.pushLocked(Delta[T]{Type: t, Object: obj, Key: key})
	return nil
}

// Delete enqueues a Deleted delta (a watch DELETED event), except that
//   - a Delete of a key that is neither pending nor known to the store is
//     ignored (there is nothing the consumer could remove), unless a
//     ReplacedAll is pending, whose objects the FIFO cannot see;
//   - a Delete of a key whose last pending delta is already a Deleted is
//     merged with it: a pending tombstone still in the queue is upgraded in
//     place to this real Deleted; otherwise the new Delete is dropped.
func (f *FIFO[T]) Delete(obj T) error {
	key := f.keyOf(obj)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	d := Delta[T]{Type: Deleted, Object: obj, Key: key}
	if f.replace != nil && f.replace.atomic {
		f.replace.heardLocked(key, obj, true) // even if ignored below: the list may hold key
	}
	if st, ok := f.keys[key]; ok {
		if f.mergeDeleteLocked(st, d) {
			return nil
		}
	} else if f.known != nil && f.wholePending == 0 {
		if _, ok := f.known.GetByKey(key); !ok {
			return nil
		}
	}
	f.pushLocked(d)
	return nil
}

// mergeDeleteLocked folds the real Deleted d into st's last pending delta if
// that is a Deleted too, and reports whether it did.
func (f *FIFO[T]) mergeDeleteLocked(st keyState, d Delta[T]) bool {
	last := f.lastLocked(st)
	if last.Type != Deleted {
		return false
	}
	// An in-flight delta cannot change any more; a real Deleted is already
	// as informative as d.
	if st.last >= f.head && last.FinalStateUnknown {
		d.InitialList = last.InitialList
		*last = d
	}
	return true
}

// Resync enqueues a Sync delta for every key the store knows that has no
// pending deltas, in the order Known.ListKeys returns them. Keys with pending
// deltas are skipped: their newest state is on its way to the consumer.
// While a ReplacedAll is pending Resync does nothing: the store's objects
// would come back after it and undo it, and it notifies every key anyway.
func (f *FIFO[T]) Resync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	if f.known == nil || f.wholePending > 0 {
		return nil
	}
	for _, key := range f.known.ListKeys() {
		if _, pending := f.keys[key]; pending {
			continue
		}
		if obj, ok := f.known.GetByKey(key); ok {
			f.pushLocked(Delta[T]{Type: Sync, Object: obj, Key: key})
		}
	}
	return nil
}

// Bookmark enqueues a Bookmark delta: the server's state has reached rv
// (a watch bookmark). It does nothing without Options.Bookmarks, and while
// a replace is open (the replace's end carries the list's
// resourceVersion; a bookmark amid its items would claim the items not
// yet listed). A Bookmark queued right behind another one, not yet
// popped, replaces it: only the newer says something.
func (f *FIFO[T]) Bookmark(rv string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	if !f.bookmarks || f.replace != nil {
		return nil
	}
	if n := f.queue.Len(); n > 0 {
		if last := f.queue.At(n - 1); last.Type == Bookmark {
			last.Info = &Info[T]{ResourceVersion: rv}
			return nil
		}
	}
	f.pushLocked(Delta[T]{Type: Bookmark, Info: &Info[T]{ResourceVersion: rv}})
	return nil
}

// Len is the number of pending deltas (queued or being processed); 0 after
// Close.
func (f *FIFO[T]) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return 0
	}
	return int(f.tail - f.done)
}

// Queued is the number of deltas waiting to be popped: Len without the
// batch a Pop is processing. It is what client-go's informer_queued_items
// counts (RealFIFO removes an item before processing it); 0 after Close.
func (f *FIFO[T]) Queued() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return 0
	}
	return int(f.tail - f.head)
}

// HasSynced reports whether the first replace has finished and every delta
// that arrived before its Finish returned (its items and tombstones among
// them) has been consumed by Pop.
func (f *FIFO[T]) HasSynced() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.initialDone && f.done >= f.syncEnd
}

// Close shuts the FIFO down: pending deltas are dropped, a waiting Pop
// returns ErrClosed, and every later call returns ErrClosed. A batch being
// processed finishes normally. Close is idempotent.
func (f *FIFO[T]) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	f.closed = true
	close(f.closedCh)
	f.queue.Reset()
	f.keys = nil
	f.replace = nil
	f.wholePending = 0
}

// IsClosed reports whether Close was called.
func (f *FIFO[T]) IsClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// pushLocked appends d to the queue and records it in the key's
// bookkeeping (a keyless delta: in wholePending, for a ReplacedAll).
func (f *FIFO[T]) pushLocked(d Delta[T]) {
	wasEmpty := f.queue.Len() == 0
	f.queue.Push(d)
	switch {
	case d.Type == ReplacedAll:
		f.wholePending++
	case !d.keyless():
		st := f.keys[d.Key]
		st.pending++
		st.last = f.tail
		f.keys[d.Key] = st
	}
	f.tail++
	if wasEmpty {
		f.wakeLocked()
	} else if f.gatherAt > 0 && f.queue.Len() >= f.gatherAt {
		f.gatherAt = 0
		f.wakeLocked() // the batch a gathering Pop waits for is queued
	}
}

// wakeLocked leaves Pop the token that says the queue changed.
func (f *FIFO[T]) wakeLocked() {
	select {
	case f.notify <- struct{}{}:
	default:
	}
}

// lastLocked returns the newest pending delta of a key, wherever it is.
func (f *FIFO[T]) lastLocked(st keyState) *Delta[T] {
	if st.last >= f.head {
		return f.queue.At(int(st.last - f.head))
	}
	return &f.batch[st.last-f.done]
}
