package deltafifo

import (
	"cmp"
	"slices"

	"github.com/kcmlab/kcm/kube/api"
)

// Replacer is one streaming replace: the reflector feeds it the items of a
// LIST (or of a WatchList's initial events) one by one, then calls Finish,
// or Abort if the list failed. Use it from one goroutine.
type Replacer[T api.Object] struct {
	f       *FIFO[T]
	rv      string
	initial bool // its deltas carry InitialList
	items   int
	// seen holds the keys this replace listed, and keys that Add or Update
	// reported while it was open. Guarded by f.mu; nil once ended.
	seen map[string]struct{}
}

// StartReplace opens a streaming replace of the whole contents as of
// resourceVersion rv (recorded for logs). While it is open, an Add or
// Update of a key counts as news newer than the list: Finish will not
// tombstone that key. A replace still open is superseded: its methods
// return ErrReplaceEnded and it produces no tombstones. On a closed FIFO
// the Replacer's methods return ErrClosed.
func (f *FIFO[T]) StartReplace(rv string) *Replacer[T] {
	r := &Replacer[T]{f: f, rv: rv, seen: make(map[string]struct{})}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return r
	}
	if old := f.replace; old != nil {
		f.log.Debug().Str("rv", old.rv).Int("items", old.items).Msg("deltafifo: replace superseded")
		old.seen = nil
	}
	r.initial = !f.initialDone
	f.replace = r
	return r
}

// Replace is StartReplace, Add for each item, Finish.
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
// apply it while the rest of the list is still arriving.
func (r *Replacer[T]) Add(obj T) error {
	f := r.f
	key := f.keyOf(obj)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := r.checkLocked(); err != nil {
		return err
	}
	r.seen[key] = struct{}{}
	r.items++
	f.pushLocked(Delta[T]{Type: Replaced, Object: obj, Key: key, InitialList: r.initial})
	return nil
}

// Finish ends the replace: every key known to the store or pending with a
// last delta other than Deleted, that this replace did not see, gets a
// Deleted tombstone (FinalStateUnknown, Object = its newest known state:
// the last pending delta's if any, else the store's). Tombstones are
// enqueued in key order. The first Finish defines the initial population
// (see HasSynced).
func (r *Replacer[T]) Finish() error {
	f := r.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := r.checkLocked(); err != nil {
		return err
	}
	tombs := r.tombstonesLocked()
	slices.SortFunc(tombs, func(a, b Delta[T]) int { return cmp.Compare(a.Key, b.Key) })
	for _, d := range tombs {
		f.pushLocked(d)
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
// server states and stay queued. Abort after the end is a no-op.
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
	if r.f.gatherAt > 0 {
		r.f.gatherAt = 0
		r.f.wakeLocked() // a Pop gathering this replace's items takes what there is
	}
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
