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

// node is one tracked key: the key and its flags. Nodes live in one slice
// and never move, so the lanes hold node numbers and get reaches a key's
// state without hashing it.
type node[K comparable] struct {
	key   K
	flags flags
	// staleLow counts the copies of this node's number that lowLane still
	// holds from promotions (see sets.promote). Such copies are older than
	// any live copy of the same number, so get skips the first staleLow
	// copies it meets. The count outlives the key: a node freed and reused
	// for another key keeps it until lowLane has dropped those copies.
	staleLow uint32
	// box, while set, announces to lock-free adds that the key waits in
	// a lane (see fastDedup); nil for most keys.
	box *pendingBox[K]
}

func (n node[K]) keyOf() K { return n.key }

// sets is the queue's pure state: the FIFO lanes, the dirty set and the
// processing set, with no locking, goroutines or time. Queue drives it under
// its mutex; tests drive it directly.
//
// Every dirty or processing key has a node. The index finds a key's node
// (one hash per add and per done); the lanes hold node numbers, so get does
// not hash at all. A node whose key is neither dirty nor processing goes
// back to the free list.
type sets[K comparable] struct {
	// normal and lowLane hold the numbers of the nodes whose keys are
	// ready to be handed to a worker, in arrival order. get serves lowLane
	// only when normal is empty.
	// Invariant: a node in normal has flags dirty, not processing, not low.
	normal ring.Ring[uint32]
	// lowLane may also hold stale copies (see node.staleLow). Every other
	// node in lowLane has flags dirty|low and is not processing.
	lowLane ring.Ring[uint32]
	// index maps every dirty or processing key to its node.
	index keyIndex[K, node[K]]
	// nodes holds the tracked keys; free lists the unused positions.
	nodes []node[K]
	free  []uint32
	// ready is the number of live (non-stale) node numbers in the lanes.
	ready int
	// inFlight is the number of keys with the processing flag.
	inFlight int
	// stale is the number of stale copies in lowLane.
	stale int
	// fast lets adds of waiting keys skip the queue's lock.
	fast fastDedup[K]
	// peak is the most keys tracked at once since the queue was last
	// empty; smallDrains counts the drains in a row whose peak used under
	// a quarter of the memory held (see tidy).
	peak, smallDrains int
}

// nodesKeep is the node capacity a queue keeps however it drains; a larger
// one (left by a flood) is given back after drainsToShrink small drains.
const (
	nodesKeep      = 1024
	drainsToShrink = 8
)

func newSets[K comparable]() sets[K] {
	return sets[K]{index: newKeyIndex[K, node[K]]()}
}

// tracked is the number of keys that are dirty or processing.
func (s *sets[K]) tracked() int { return s.index.used }

// flagsOf returns k's flags, 0 when k is not tracked.
func (s *sets[K]) flagsOf(k K) flags {
	i, ok := s.index.find(k, s.index.hash(k), s.nodes)
	if !ok {
		return 0
	}
	return s.nodes[s.index.cells[i].node-1].flags
}

// add marks k dirty and, unless a worker holds it, puts it at the back of
// its lane. A key that is already dirty keeps its place (deduplication),
// except that a normal add of a key waiting in the low lane promotes it.
// add reports whether k became dirty, i.e. whether this add counts.
func (s *sets[K]) add(k K, lowPriority bool) bool {
	return s.addHashed(k, s.index.hash(k), lowPriority)
}

// hash is k's index hash. It reads only the index's seed, which never
// changes, so Queue computes it before taking its lock.
func (s *sets[K]) hash(k K) uint32 { return s.index.hash(k) }

// addHashed is add with k's hash already computed.
func (s *sets[K]) addHashed(k K, h uint32, lowPriority bool) bool {
	s.index.reserve()
	i, found := s.index.find(k, h, s.nodes)
	f := dirty
	if lowPriority {
		f |= low
	}
	if !found {
		n := s.alloc(k, f)
		s.index.insertAt(i, h, n+1)
		s.peak = max(s.peak, s.index.used)
		s.enqueue(n, f)
		return true
	}
	n := s.index.cells[i].node - 1
	nd := &s.nodes[n]
	if nd.flags&dirty != 0 {
		if !lowPriority && nd.flags&low != 0 {
			s.promote(n, nd)
		}
		if nd.box == nil && nd.flags&processing == 0 {
			// Added again while waiting: likely to be added again, so
			// let such adds skip the lock.
			nd.box = s.fast.publish(nd.key, h, laneState(nd.flags))
		}
		return false
	}
	// Tracked but not dirty: a worker holds it; done will enqueue it.
	nd.flags |= f
	return true
}

// alloc takes a node for k.
func (s *sets[K]) alloc(k K, f flags) uint32 {
	if last := len(s.free) - 1; last >= 0 {
		n := s.free[last]
		s.free = s.free[:last]
		nd := &s.nodes[n]
		nd.key, nd.flags = k, f
		return n
	}
	s.nodes = append(s.nodes, node[K]{key: k, flags: f})
	return uint32(len(s.nodes) - 1)
}

// release frees node n (its index cell is already gone).
func (s *sets[K]) release(n uint32) {
	nd := &s.nodes[n]
	var zero K
	nd.key, nd.flags = zero, 0 // let the key be collected
	s.free = append(s.free, n)
	s.tidy()
}

// tidy runs whenever nothing is tracked and no node number is left in the
// lanes. Every node is then free, so the slice restarts at length 0 (new
// keys take nodes in order again). Memory left by a flood is given back
// with hysteresis: once drainsToShrink drains in a row have peaked at under
// a quarter of the capacity, the nodes and the index are released. A queue
// that fills and drains to the same size again and again (a busy
// controller) keeps them instead of rebuilding them every time.
func (s *sets[K]) tidy() {
	if s.index.used != 0 || s.lowLane.Len() != 0 || s.normal.Len() != 0 {
		return
	}
	s.nodes, s.free = s.nodes[:0], s.free[:0]
	s.fast.reset()
	if cap(s.nodes) > nodesKeep || len(s.index.cells) > indexKeep {
		if 4*s.peak <= max(cap(s.nodes), len(s.index.cells)/2) {
			s.smallDrains++
		} else {
			s.smallDrains = 0
		}
		if s.smallDrains >= drainsToShrink {
			s.nodes, s.free, s.index.cells = nil, nil, nil
			s.smallDrains = 0
		}
	}
	s.peak = 0
}

// promote moves the dirty low-priority key of node n to the normal lane. If
// it is waiting in lowLane, that copy becomes stale and a copy joins normal;
// if a worker holds it, only the flag changes and done puts it into normal.
func (s *sets[K]) promote(n uint32, nd *node[K]) {
	nd.flags &^= low
	if nd.flags&processing != 0 {
		return
	}
	if nd.box != nil {
		nd.box.state.Store(boxNormal)
	}
	nd.staleLow++
	s.stale++
	s.normal.Push(n)
}

// laneState is the pendingBox state of a waiting key with flags f.
func laneState(f flags) uint32 {
	if f&low != 0 {
		return boxLow
	}
	return boxNormal
}

func (s *sets[K]) enqueue(n uint32, f flags) {
	if f&low != 0 {
		s.lowLane.Push(n)
	} else {
		s.normal.Push(n)
	}
	s.ready++
}

// get hands out the oldest ready key, normal lane first, and moves it from
// dirty to processing. It reports false when no key is ready.
func (s *sets[K]) get() (K, bool) {
	n, ok := s.normal.Pop()
	for !ok && s.lowLane.Len() > 0 {
		n, _ = s.lowLane.Pop()
		if nd := &s.nodes[n]; nd.staleLow > 0 {
			nd.staleLow--
			s.stale--
			continue
		}
		ok = true
	}
	if !ok {
		s.tidy()
		var zero K
		return zero, false
	}
	nd := &s.nodes[n]
	nd.flags = processing
	if nd.box != nil {
		s.fast.retire(nd.box)
		nd.box = nil
	}
	s.ready--
	s.inFlight++
	return nd.key, true
}

// done ends a worker's hold on k. If k was added while it was processing,
// it goes to the back of its lane. done reports whether k was processing
// (a done for a key not handed out is ignored) and whether it was requeued.
func (s *sets[K]) done(k K) (wasProcessing, requeued bool) {
	return s.doneHashed(k, s.index.hash(k))
}

// doneHashed is done with k's hash already computed.
func (s *sets[K]) doneHashed(k K, h uint32) (wasProcessing, requeued bool) {
	i, found := s.index.find(k, h, s.nodes)
	if !found {
		return false, false
	}
	n := s.index.cells[i].node - 1
	nd := &s.nodes[n]
	if nd.flags&processing == 0 {
		return false, false
	}
	s.inFlight--
	if nd.flags&dirty == 0 {
		s.index.deleteAt(i)
		s.release(n)
		return true, false
	}
	nd.flags &^= processing
	s.enqueue(n, nd.flags)
	return true, true
}
