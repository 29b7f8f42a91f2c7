package queue

import "github.com/kcmlab/kcm/internal/ring"

// flags records where a key stands in the queue's three sets.
type flags uint8

const (
	// dirty: the key must be processed (again). A dirty key that is not
	// processing sits in exactly one lane; a dirty key that is processing
	// sits in none and is put back into its lane by done.
	dirty flags = 1 << iota
	// processing: a worker holds the key (between get and done).
	processing
	// low: the key's pending work belongs to the low-priority lane.
	// Only meaningful together with dirty.
	low
)

// sets is the queue's pure state: the FIFO lanes, the dirty set and the
// processing set, with no locking, goroutines or time. Queue drives it under
// its mutex; tests drive it directly.
//
// The dirty and processing sets share one map (a key's flags), so that each
// of add, get and done costs a single map lookup and at most one write.
type sets[K comparable] struct {
	// normal and lowLane hold the keys ready to be handed to a worker, in
	// arrival order. get serves lowLane only when normal is empty.
	// Invariant: a key in normal has flags dirty, not processing, not low.
	normal ring.Ring[K]
	// lowLane may also hold stale copies of keys promoted to normal while
	// they waited here (see staleLow). Every other key in lowLane has flags
	// dirty|low and is not processing.
	lowLane ring.Ring[K]
	// items maps every dirty or processing key to its flags; a key with
	// neither flag is absent.
	items map[K]flags
	// staleLow counts, per key, the copies in lowLane that were left behind
	// when the key was promoted to normal. Such copies are always older than
	// any live copy of the same key, so get skips a key's first staleLow
	// copies. Allocated on first promotion.
	staleLow map[K]int
	// ready is the number of live (non-stale) keys in the two lanes.
	ready int
	// inFlight is the number of keys with the processing flag.
	inFlight int
}

func newSets[K comparable]() sets[K] {
	return sets[K]{items: make(map[K]flags)}
}

// add marks k dirty and, unless a worker holds it, puts it at the back of
// its lane. A key that is already dirty keeps its place (deduplication),
// except that a normal add of a key waiting in the low lane promotes it.
// add reports whether k became dirty, i.e. whether this add counts.
func (s *sets[K]) add(k K, lowPriority bool) bool {
	f := s.items[k]
	if f&dirty != 0 {
		if !lowPriority && f&low != 0 {
			s.promote(k, f)
		}
		return false
	}
	f |= dirty
	if lowPriority {
		f |= low
	}
	s.items[k] = f
	if f&processing == 0 {
		s.enqueue(k, f)
	}
	return true
}

// promote moves a dirty low-priority key to the normal lane. If it is
// waiting in lowLane, that copy becomes stale and a copy joins normal; if a
// worker holds it, only the flag changes and done puts it into normal.
func (s *sets[K]) promote(k K, f flags) {
	s.items[k] = f &^ low
	if f&processing != 0 {
		return
	}
	if s.staleLow == nil {
		s.staleLow = make(map[K]int)
	}
	s.staleLow[k]++
	s.normal.Push(k)
}

func (s *sets[K]) enqueue(k K, f flags) {
	if f&low != 0 {
		s.lowLane.Push(k)
	} else {
		s.normal.Push(k)
	}
	s.ready++
}

// get hands out the oldest ready key, normal lane first, and moves it from
// dirty to processing. It reports false when no key is ready.
func (s *sets[K]) get() (K, bool) {
	k, ok := s.normal.Pop()
	for !ok && s.lowLane.Len() > 0 {
		k, _ = s.lowLane.Pop()
		ok = !s.dropStale(k)
	}
	if !ok {
		var zero K
		return zero, false
	}
	s.items[k] = processing
	s.ready--
	s.inFlight++
	return k, true
}

// dropStale reports whether k, just popped from lowLane, is a stale copy,
// and if so forgets one stale copy of k.
func (s *sets[K]) dropStale(k K) bool {
	n := s.staleLow[k]
	if n == 0 {
		return false
	}
	if n == 1 {
		delete(s.staleLow, k)
	} else {
		s.staleLow[k] = n - 1
	}
	return true
}

// done ends a worker's hold on k. If k was added while it was processing,
// it goes to the back of its lane. done reports whether k was processing
// (a done for a key not handed out is ignored) and whether it was requeued.
func (s *sets[K]) done(k K) (wasProcessing, requeued bool) {
	f := s.items[k]
	if f&processing == 0 {
		return false, false
	}
	s.inFlight--
	if f&dirty == 0 {
		delete(s.items, k)
		return true, false
	}
	f &^= processing
	s.items[k] = f
	s.enqueue(k, f)
	return true, true
}
