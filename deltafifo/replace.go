package deltafifo

import (
	"cmp"
	"maps"
	"slices"

	"github.com/kcmlab/kcm/kube/api"
)

// Replacer is one streaming replace: the reflector feeds it the items of a
// LIST (or of a WatchList's initial events) one by one, then calls Finish,
// or Abort if the list failed. Use it from one goroutine.
//
// With Options.AtomicReplaces, a replace that starts after the first one
// finished is atomic: it keeps its items instead of enqueuing them, and
// Finish enqueues them all as one ReplacedAll delta, without tombstones
// (the consumer tells what vanished when it swaps the content).
type Replacer[T api.Object] struct {
	f       *FIFO[T]
	rv      string
	initial bool // its deltas carry InitialList
	atomic  bool // one ReplacedAll at Finish
	items   int
	// seen holds the keys this replace listed, and keys that Add or Update
	// reported while it was open. Guarded by f.mu; nil once ended, and for
	// an atomic replace.
	seen map[string]struct{}
	// objs are an atomic replace's items; later holds, for each key that
	// Add, Update or Delete reported while it was open, that newest state,
	// which replaces the list's at Finish. Guarded by f.mu; nil once ended.
	objs  []T
	later map[string]laterState[T]
}

// laterState is a key's state reported while an atomic replace was open.
type laterState[T api.Object] struct {
	obj     T
	deleted bool
}

// heardLocked records that an Add, Update (deleted false) or Delete of key
// arrived while r was open: news newer than its list.
func (r *Replacer[T]) heardLocked(key string, obj T, deleted bool) {
	if !r.atomic {
		r.seen[key] = struct{}{}
		return
	}
	if r.later == nil {
		r.later = map[string]laterState[T]{}
	}
	r.later[key] = laterState[T]{obj: obj, deleted: deleted}
}

// StartReplace opens a streaming replace of the whole contents as of
// resourceVersion rv (recorded for logs). While it is open, an Add or
// Update of a key counts as news newer than the list: Finish will not
// tombstone that key. A replace still open is superseded: its methods
// return ErrReplaceEnded and it produces no tombstones. On a closed FIFO
// the Replacer's methods return ErrClosed.
func (f *FIFO[T]) StartReplace(rv string) *Replacer[T] {
	r := &Replacer[T]{f: f, rv: rv}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return r
	}
	if old := f.replace; old != nil {
		f.log.Debug().Str("rv", old.rv).Int("items", old.items).Msg("deltafifo: replace superseded")
		old.seen, old.objs, old.later = nil, nil, nil
	}
	r.initial = !f.initialDone
	r.atomic = f.atomic && f.initialDone
	if !r.atomic {
		r.seen = make(map[string]struct{})
	}
	f.replace = r
	return r
}

// Replace is StartReplace, Add for each item, Finish: a replace of the
// whole contents with items, as of resourceVersion rv.
func (f *FIFO[T]) Replace(items []T, rv string) error {
	r := f.StartReplace(rv)
	for _, obj := range items {
		if err := r.Add(obj); err != nil {
			r.Abort()
			return err
		}
	}
	return r.Finish()
}

// Add enqueues a Replaced delta for obj at once, so that the consumer can
// apply it while the rest of the list is still arriving; an atomic replace
// keeps obj for Finish instead, or the object Known holds for its key if
// that is the same version.
func (r *Replacer[T]) Add(obj T) error {
	f := r.f
	key := f.keyOf(obj)
	if r.atomic {
		obj = f.sameVersionKnown(key, obj)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := r.checkLocked(); err != nil {
		return err
	}
	r.items++
	if r.atomic {
		r.objs = append(r.objs, obj)
		return nil
	}
	r.seen[key] = struct{}{}
	f.pushLocked(Delta[T]{Type: Replaced, Object: obj, Key: key, InitialList: r.initial})
	return nil
}

// sameVersionKnown returns the object Known holds under key if it is the
// same version of the same object as obj (same UID and a resourceVersion
// that is not empty and equal: the apiserver's identity of an object's
// state), else obj. Known is read without f.mu: whatever version it holds
// now, the answer is only ever the same state as obj.
func (f *FIFO[T]) sameVersionKnown(key string, obj T) T {
	held, ok := f.known.GetByKey(key)
	if !ok {
		return obj
	}
	h, o := held.GetObjectMeta(), obj.GetObjectMeta()
	if o.ResourceVersion != "" && h.ResourceVersion == o.ResourceVersion && h.UID == o.UID {
		return held
	}
	return obj
}

// Finish is FinishAt with the resourceVersion given to StartReplace.
func (r *Replacer[T]) Finish() error { return r.FinishAt(r.rv) }

// FinishAt ends the replace, whose items are the whole contents as of
// resourceVersion rv (a LIST's, known only once it ends): every key known
// to the store or pending with a last delta other than Deleted, that this
// replace did not see, gets a Deleted tombstone (FinalStateUnknown, Object
// = its newest known state: the last pending delta's if any, else the
// store's). Tombstones are enqueued in key order, then, with
// Options.Bookmarks, a Bookmark at rv. The first Finish defines the
// initial population (see HasSynced). An atomic replace instead enqueues
// one ReplacedAll delta holding its items and rv.
func (r *Replacer[T]) FinishAt(rv string) error {
	f := r.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := r.checkLocked(); err != nil {
		return err
	}
	r.rv = rv
	if r.atomic {
		f.pushLocked(Delta[T]{Type: ReplacedAll, Info: &Info[T]{ResourceVersion: rv, Objects: r.withLaterLocked()}})
		f.log.Debug().Str("rv", rv).Int("items", r.items).Msg("deltafifo: atomic replace finished")
		r.endLocked()
		return nil
	}
	tombs := r.tombstonesLocked()
	slices.SortFunc(tombs, func(a, b Delta[T]) int { return cmp.Compare(a.Key, b.Key) })
	for _, d := range tombs {
		f.pushLocked(d)
	}
	if f.bookmarks {
		f.pushLocked(Delta[T]{Type: Bookmark, Info: &Info[T]{ResourceVersion: rv}})
	}
	if !f.initialDone {
		f.initialDone, f.syncEnd = true, f.tail
	}
	f.log.Debug().Str("rv", r.rv).Int("items", r.items).Int("tombstones", len(tombs)).
		Bool("initial", r.initial).Msg("deltafifo: replace finished")
	r.endLocked()
	return nil
}

// Abort ends the replace without tombstones: the list failed midway, so
// absence from it proves nothing. The items already enqueued are real
// server states and stay queued; an atomic replace's, never enqueued, are
// dropped. Abort after the end is a no-op.
func (r *Replacer[T]) Abort() {
	f := r.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.replace == r {
		f.log.Debug().Str("rv", r.rv).Int("items", r.items).Msg("deltafifo: replace aborted")
		r.endLocked()
	}
}

func (r *Replacer[T]) checkLocked() error {
	if r.f.closed {
		return ErrClosed
	}
	if r.f.replace != r {
		return ErrReplaceEnded
	}
	return nil
}

func (r *Replacer[T]) endLocked() {
	r.f.replace = nil
	r.seen = nil
	r.objs, r.later = nil, nil
	if r.f.gatherAt > 0 {
		r.f.gatherAt = 0
		r.f.wakeLocked() // a Pop gathering this replace's items takes what there is
	}
}

// withLaterLocked returns an atomic replace's objects with the newer
// states heard while it was open in place of the list's: each such key's
// listed object is dropped, and its later object, unless deleted, is
// appended, in key order.
func (r *Replacer[T]) withLaterLocked() []T {
	if len(r.later) == 0 {
		return r.objs
	}
	objs := r.objs[:0]
	for _, obj := range r.objs {
		if _, ok := r.later[r.f.keyOf(obj)]; !ok {
			objs = append(objs, obj)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(r.later)) {
		if l := r.later[key]; !l.deleted {
			objs = append(objs, l.obj)
		}
	}
	return objs
}

// tombstonesLocked lists the Deleted tombstones Finish must enqueue.
func (r *Replacer[T]) tombstonesLocked() []Delta[T] {
	f := r.f
	var out []Delta[T]
	tomb := func(key string, obj T) Delta[T] {
		return Delta[T]{Type: Deleted, Object: obj, Key: key, FinalStateUnknown: true, InitialList: r.initial}
	}
	for key, st := range f.keys {
		if _, ok := r.seen[key]; ok {
			continue
		}
		if last := f.lastLocked(st); last.Type != Deleted {
			out = append(out, tomb(key, last.Object))
		}
	}
	if f.known == nil {
		return out
	}
	for _, key := range f.known.ListKeys() {
		if _, ok := r.seen[key]; ok {
			continue
		}
		if _, pending := f.keys[key]; pending {
			continue
		}
		if obj, ok := f.known.GetByKey(key); ok {
			out = append(out, tomb(key, obj))
		}
	}
	return out
}
