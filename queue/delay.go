package queue

import "time"

// waiting is a key that becomes ready at a deadline.
type waiting[K comparable] struct {
	key K
	at  time.Time
	// seq orders equal deadlines by arrival.
	seq uint64
}

// delayHeap holds the keys added with AddAfter until their deadlines: a
// binary min-heap on (at, seq) plus an index from key to heap position, so
// that adding a key that is already waiting updates it in place (the earlier
// deadline wins) instead of storing it twice.
//
// It is pure data: no locking, goroutines or clock. Pushes and pops of a
// steady population allocate nothing; the slice and the map grow only when
// the population does.
type delayHeap[K comparable] struct {
	// items is the heap. Invariant: items[i] is not after its children
	// items[2i+1] and items[2i+2] in (at, seq) order.
	items []waiting[K]
	// pos maps each waiting key to its index in items.
	// Invariant: pos[items[i].key] == i for every i, and len(pos) == len(items).
	pos map[K]int
	seq uint64
}

func newDelayHeap[K comparable]() delayHeap[K] {
	return delayHeap[K]{pos: make(map[K]int)}
}

func (h *delayHeap[K]) len() int { return len(h.items) }

// push schedules k at at. If k is already waiting, it keeps the earlier of
// the two deadlines. push reports whether the earliest deadline of the heap
// changed, i.e. whether the timer waiting on it must be re-armed.
func (h *delayHeap[K]) push(k K, at time.Time) bool {
	if i, ok := h.pos[k]; ok {
		if !at.Before(h.items[i].at) {
			return false
		}
		h.items[i].at = at
		return h.up(i) == 0
	}
	h.seq++
	h.items = append(h.items, waiting[K]{key: k, at: at, seq: h.seq})
	i := len(h.items) - 1
	h.pos[k] = i
	return h.up(i) == 0
}

// next returns the earliest deadline; ok is false when nothing waits.
func (h *delayHeap[K]) next() (at time.Time, ok bool) {
	if len(h.items) == 0 {
		return time.Time{}, false
	}
	return h.items[0].at, true
}

// popDue removes and returns the earliest key if its deadline is not after
// now.
func (h *delayHeap[K]) popDue(now time.Time) (K, bool) {
	if len(h.items) == 0 || h.items[0].at.After(now) {
		var zero K
		return zero, false
	}
	top := h.items[0]
	last := len(h.items) - 1
	h.swap(0, last)
	h.items[last] = waiting[K]{} // drop references held by the key
	h.items = h.items[:last]
	delete(h.pos, top.key)
	h.down(0) // a no-op on an empty heap
	return top.key, true
}

func (h *delayHeap[K]) less(i, j int) bool {
	a, b := &h.items[i], &h.items[j]
	if !a.at.Equal(b.at) {
		return a.at.Before(b.at)
	}
	return a.seq < b.seq
}

func (h *delayHeap[K]) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.pos[h.items[i].key] = i
	h.pos[h.items[j].key] = j
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
