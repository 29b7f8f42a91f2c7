package queue

import (
	"slices"
	"time"
)

// waiting is one slot of the delay heap: a deadline and the waiter it
// belongs to. It holds no key, so the heap's moves copy 24 bytes and touch
// no hash table.
type waiting struct {
	// at is the deadline in nanoseconds after the heap's base time.
	at int64
	// seq orders equal deadlines by arrival.
	seq uint64
	// waiter is the position of the waiter in delayHeap.waiters.
	waiter uint32
}

// waiter is a key that waits in the delay heap, and where.
type waiter[K comparable] struct {
	key K
	// slot is the waiter's position in delayHeap.items (32 bits, like the
	// waiter numbers: a waiter is then 24 bytes with a string key).
	slot uint32
	// hash is the key's index hash, kept so that popDue finds its cell
	// without hashing the key again.
	hash uint32
}

func (w waiter[K]) keyOf() K { return w.key }

// delayHeap holds the keys added with AddAfter until their deadlines: a
// binary min-heap on (at, seq) plus an index from key to waiter, so that
// adding a key that is already waiting updates it in place (the earlier
// deadline wins) instead of storing it twice.
//
// The heap slots name waiters by number and each waiter records its slot,
// so a sift moves small slots and updates a slice element per move; only
// push (one hash) and popDue (one probe, by the stored hash) use the index.
//
// It is pure data: no locking, goroutines or clock. Pushes and pops of a
// steady population allocate nothing; the slices and the index grow only
// when the population does.
type delayHeap[K comparable] struct {
	// items is the heap. Invariant: items[i] is not after its children
	// items[2i+1] and items[2i+2] in (at, seq) order.
	items []waiting
	// waiters holds the waiting keys; free lists the unused positions.
	// Invariant: waiters[items[i].waiter].slot == i for every i.
	waiters []waiter[K]
	free    []uint32
	// index maps each waiting key to its waiter.
	// Invariant: index.used == len(items).
	index keyIndex[K, waiter[K]]
	// base is the time deadlines count from: the first deadline pushed.
	// Deadlines more than 292 years from it saturate and lose their order.
	base    time.Time
	hasBase bool
	seq     uint64
}

func newDelayHeap[K comparable]() delayHeap[K] {
	return delayHeap[K]{index: newKeyIndex[K, waiter[K]]()}
}

func (h *delayHeap[K]) len() int { return len(h.items) }

// offset converts a time to nanoseconds after base.
func (h *delayHeap[K]) offset(t time.Time) int64 {
	if !h.hasBase {
		h.base, h.hasBase = t, true
	}
	return int64(t.Sub(h.base))
}

// push schedules k at at. If k is already waiting, it keeps the earlier of
// the two deadlines. push reports whether the earliest deadline of the heap
// changed, i.e. whether the timer waiting on it must be re-armed.
func (h *delayHeap[K]) push(k K, at time.Time) bool {
	d := h.offset(at)
	hash := h.index.hash(k)
	h.index.reserve()
	c, found := h.index.find(k, hash, h.waiters)
	if found {
		i := int(h.waiters[h.index.cells[c].node-1].slot)
		if d >= h.items[i].at {
			return false
		}
		h.items[i].at = d
		return h.up(i) == 0
	}
	w := h.alloc(k, hash)
	h.index.insertAt(c, hash, w+1)
	h.seq++
	h.items = append(doubled(h.items), waiting{at: d, seq: h.seq, waiter: w})
	i := len(h.items) - 1
	h.waiters[w].slot = uint32(i)
	return h.up(i) == 0
}

// alloc takes a waiter for k.
func (h *delayHeap[K]) alloc(k K, hash uint32) uint32 {
	if last := len(h.free) - 1; last >= 0 {
		w := h.free[last]
		h.free = h.free[:last]
		h.waiters[w] = waiter[K]{key: k, hash: hash}
		return w
	}
	h.waiters = append(doubled(h.waiters), waiter[K]{key: k, hash: hash})
	return uint32(len(h.waiters) - 1)
}

// doubled returns s with room for at least one more element: when s is
// full, a new array of twice its length. append alone grows a large slice
// by about a quarter, so a heap that grows to n keys would allocate about
// 5n slots and copy 4n on the way; doubling allocates 2n and copies n. The
// delay heap grows this way in a storm of new delays (the AddAfter/new
// benchmark: 343 bytes a key before, with the GC collecting the old arrays).
func doubled[E any](s []E) []E {
	if len(s) < cap(s) {
		return s
	}
	return slices.Grow(s, max(len(s), 8))
}

// next returns the earliest deadline; ok is false when nothing waits.
func (h *delayHeap[K]) next() (at time.Time, ok bool) {
	if len(h.items) == 0 {
		return time.Time{}, false
	}
	return h.base.Add(time.Duration(h.items[0].at)), true
}

// popDue removes and returns the earliest key if its deadline is not after
// now.
func (h *delayHeap[K]) popDue(now time.Time) (K, bool) {
	if len(h.items) == 0 || h.items[0].at > int64(now.Sub(h.base)) {
		var zero K
		return zero, false
	}
	top := h.items[0].waiter
	last := len(h.items) - 1
	h.swap(0, last)
	h.items = h.items[:last]
	h.down(0) // a no-op on an empty heap
	w := &h.waiters[top]
	k := w.key
	h.index.deleteAt(h.index.cellOf(w.hash, top+1))
	*w = waiter[K]{} // drop the reference to the key
	h.free = append(h.free, top)
	if len(h.items) == 0 {
		h.tidy()
	}
	return k, true
}

// tidy runs when the heap is empty: every waiter is free, so the waiter
// slice restarts at length 0, and memory left by a burst of delays (more
// than nodesKeep waiters) is given back. Delays come in bursts far apart (a
// storm of failures), unlike the sets' steady refills, so no hysteresis.
func (h *delayHeap[K]) tidy() {
	h.waiters, h.free = h.waiters[:0], h.free[:0]
	if cap(h.waiters) > nodesKeep || len(h.index.cells) > indexKeep {
		h.waiters, h.free, h.items, h.index.cells = nil, nil, nil, nil
	}
}

func (h *delayHeap[K]) less(i, j int) bool {
	a, b := &h.items[i], &h.items[j]
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

func (h *delayHeap[K]) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.waiters[h.items[i].waiter].slot = uint32(i)
	h.waiters[h.items[j].waiter].slot = uint32(j)
}

// up restores the heap invariant above i and returns i's final position.
func (h *delayHeap[K]) up(i int) int {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			break
		}
		h.swap(i, parent)
		i = parent
	}
	return i
}

// down restores the heap invariant below i.
func (h *delayHeap[K]) down(i int) {
	n := len(h.items)
	for {
		small := i
		if l := 2*i + 1; l < n && h.less(l, small) {
			small = l
		}
		if r := 2*i + 2; r < n && h.less(r, small) {
			small = r
		}
		if small == i {
			return
		}
		h.swap(i, small)
		i = small
	}
}
