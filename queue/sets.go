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

// node is one known key: the key and its flags. Nodes live in one slice
// and never move, so the lanes hold node numbers and get reaches a key's
// state without hashing it.
type node[K comparable] struct {
	key K
	// box, while set, announces to lock-free adds that the key waits in
	// a lane (see fastDedup); nil for most keys.
	box *pendingBox[K]
	// staleLow counts the copies of this node's number that lowLane still
	// holds from promotions (see sets.promote). Such copies are older than
	// any live copy of the same number, so get skips the first staleLow
	// copies it meets. The count outlives the key: a node freed and reused
	// for another key keeps it until lowLane has dropped those copies.
	staleLow uint32
	// held is the node's position in sets.held while a worker holds it.
	held int32
	// hash is the key's index hash.
	hash  uint32
	flags flags
}

func (n node[K]) keyOf() K { return n.key }

// heldKey is one entry of sets.held: a node a worker holds, with its
// key's hash so that done compares hashes before keys.
type heldKey struct {
	hash uint32
	node uint32
}

// sets is the queue's pure state: the FIFO lanes, the dirty set and the
// processing set, with no locking, goroutines or time. Queue drives it under
// its mutex; tests drive it directly.
//
// A key has a node while it is dirty or processing, and keeps it, idle,
// after its Done until the index needs the room: a key added again soon (a
// controller's objects change again and again) finds its node and pays no
// insert, and Done pays no delete. The index finds a key's node on add;
// the lanes hold node numbers, so get does not hash; the held list (as
// long as the number of busy workers) finds the node on done.
type sets[K comparable] struct {
	// normal and lowLane hold the numbers of the nodes whose keys are
	// ready to be handed to a worker, in arrival order. get serves lowLane
	// only when normal is empty.
	// Invariant: a node in normal has flags dirty, not processing, not low.
	normal ring.Ring[uint32]
	// lowLane may also hold stale copies (see node.staleLow). Every other
	// node in lowLane has flags dirty|low and is not processing.
	lowLane ring.Ring[uint32]
	// index maps every key with a node (dirty, processing or idle) to it.
	index keyIndex[K, node[K]]
	// nodes holds the keys; free lists the positions not in the index.
	nodes nodeStore[K]
	free  []uint32
	// held lists the nodes workers hold. Invariant: for every i,
	// nodes[held[i].node].held == i and that node has flag processing.
	held []heldKey
	// idle is the number of nodes in the index with no flag.
	idle int
	// ready is the number of live (non-stale) node numbers in the lanes.
	ready int
	// inFlight is the number of keys with the processing flag.
	inFlight int
	// stale is the number of stale copies in lowLane.
	stale int
	// fast lets adds of waiting keys skip the queue's lock.
	fast fastDedup[K]
	// eagerCells: while the index has at most this many cells (it is
	// in cache), done deletes a finished key at once; a larger index keeps
	// the node idle, saving done a cache miss. Measured: idle nodes cost a
	// stream of distinct keys through a small queue 15-20 % (the scan in
	// dropIdle) and save a flood 30-50 %. Tests set it to 0 to exercise
	// idle nodes in small tables.
	eagerCells int
	// peak is the most keys tracked at once since the queue was last
	// empty; smallDrains counts the drains in a row whose peak used under
	// a quarter of the memory held (see tidy).
	peak, smallDrains int
}

// nodesKeep is the node capacity a queue keeps however it drains; a larger
// one (left by a flood) is given back after drainsToShrink small drains.
// heldScan is the largest held list done searches by scanning; beyond it
// done uses the index.
const (
	nodesKeep      = 1024
	drainsToShrink = 8
	heldScan       = 32
	// eagerCells is the index size up to which done deletes a finished key
	// at once instead of leaving its node idle (sets.eagerCells).
	eagerCells = 4096
)

func newSets[K comparable]() sets[K] {
	return sets[K]{index: newKeyIndex[K, node[K]](), eagerCells: eagerCells}
}

// tracked is the number of keys that are dirty or processing.
func (s *sets[K]) tracked() int { return s.index.used - s.idle }

// flagsOf returns k's flags, 0 when k is not tracked.
func (s *sets[K]) flagsOf(k K) flags {
	i, ok := s.find(k, s.index.hash(k))
	if !ok {
		return 0
	}
	return s.nodes.at(s.index.cells[i].node - 1).flags
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
	if 2*(s.index.used+1) > len(s.index.cells) {
		s.makeRoom()
	}
	i, found := s.find(k, h)
	f := dirty
	if lowPriority {
		f |= low
	}
	if !found {
		n := s.alloc(k, h, f)
		s.index.insertAt(i, h, n+1)
		s.peak = max(s.peak, s.tracked())
		s.enqueue(n, f)
		return true
	}
	n := s.index.cells[i].node - 1
	nd := s.nodes.at(n)
	switch {
	case nd.flags == 0: // idle: it comes back
		s.idle--
		nd.flags = f
		s.peak = max(s.peak, s.tracked())
		s.enqueue(n, f)
		return true
	case nd.flags&dirty != 0:
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
	// A worker holds it; done will enqueue it.
	nd.flags |= f
	return true
}

// find is keyIndex.find over the chunked nodes: the cell holding k and
// true, or the empty cell where k would go and false.
func (s *sets[K]) find(k K, h uint32) (int, bool) {
	cells := s.index.cells
	if len(cells) == 0 {
		return -1, false
	}
	mask := uint32(len(cells) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		c := cells[i]
		if c.node == 0 {
			return int(i), false
		}
		if c.hash == h && s.nodes.at(c.node-1).key == k {
			return int(i), true
		}
	}
}

// makeRoom runs when the index is half full: idle nodes leave it (in
// place, no allocation) and, if the keys left would still fill it beyond a
// quarter, it doubles. Either way the next makeRoom is at least a quarter
// of the table's inserts away, so its cost per insert is bounded.
func (s *sets[K]) makeRoom() {
	if s.idle > 0 {
		s.dropIdle()
	}
	if 4*(s.index.used+1) > len(s.index.cells) {
		s.index.rebuild(max(indexStart, 2*len(s.index.cells)))
	}
}

// dropIdle deletes every idle node from the index and frees it, in place.
// deleteAt fills the hole at i from later in the run, so i is looked at
// again; cells only move back into the hole, which is at or after the scan
// position, or — when a run wraps past the table's end — into cells already
// scanned, which hold no idle node any more.
func (s *sets[K]) dropIdle() {
	cells := s.index.cells
	for i := range cells {
		for {
			c := cells[i]
			if c.node == 0 || s.nodes.at(c.node-1).flags != 0 {
				break
			}
			s.index.deleteAt(i)
			s.release(c.node - 1)
		}
	}
	s.idle = 0
}

// ceilPow2 is the smallest power of two ≥ n (n ≥ 1).
func ceilPow2(n int) int {
	p := 1
	for p < n {
		p <<= 1
	}
	return p
}

// alloc takes a node for k.
func (s *sets[K]) alloc(k K, h uint32, f flags) uint32 {
	if last := len(s.free) - 1; last >= 0 {
		n := s.free[last]
		s.free = s.free[:last]
		nd := s.nodes.at(n)
		nd.key, nd.hash, nd.flags = k, h, f
		return n
	}
	return s.nodes.push(node[K]{key: k, hash: h, flags: f})
}

// release frees node n, which has left the index.
func (s *sets[K]) release(n uint32) {
	var zero K
	s.nodes.at(n).key = zero // let the key be collected
	s.free = append(s.free, n)
}

// tidy runs whenever nothing is tracked and no node number is left in the
// lanes. Up to nodesKeep idle nodes are kept for keys that come back; more
// (a flood that drained) are dropped at once, and the node slice restarts
// at length 0 so that new keys take nodes in order again. The memory a
// flood left is given back with hysteresis: once drainsToShrink drains in
// a row have peaked at under a quarter of the capacity, the nodes and the
// index are released. A queue that fills and drains to the same size again
// and again (a busy controller) keeps them instead of rebuilding them.
func (s *sets[K]) tidy() {
	if s.tracked() != 0 || s.lowLane.Len() != 0 || s.normal.Len() != 0 {
		return
	}
	big := s.nodes.capacity() > nodesKeep || len(s.index.cells) > indexKeep
	if big && 4*s.peak <= max(s.nodes.capacity(), len(s.index.cells)/2) {
		s.smallDrains++
	} else {
		s.smallDrains = 0
	}
	s.peak = 0
	shrink := big && s.smallDrains >= drainsToShrink
	if s.idle <= nodesKeep && !shrink {
		return
	}
	clear(s.index.cells)
	s.index.used, s.idle = 0, 0
	s.nodes.reset() // every staleLow is 0 and every box nil: the lanes are empty
	s.free = s.free[:0]
	s.fast.reset()
	if shrink {
		s.nodes.release()
		s.free, s.index.cells = nil, nil
		s.smallDrains = 0
	}
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
		if nd := s.nodes.at(n); nd.staleLow > 0 {
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
	nd := s.nodes.at(n)
	nd.flags = processing
	if nd.box != nil {
		s.fast.retire(nd.box)
		nd.box = nil
	}
	nd.held = int32(len(s.held))
	s.held = append(s.held, heldKey{hash: nd.hash, node: n})
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
	n, ok := s.heldNode(k, h)
	if !ok {
		return false, false
	}
	nd := s.nodes.at(n)
	last := len(s.held) - 1
	if pos := nd.held; int(pos) != last {
		moved := s.held[last]
		s.held[pos] = moved
		s.nodes.at(moved.node).held = pos
	}
	s.held = s.held[:last]
	s.inFlight--
	if nd.flags&dirty == 0 {
		nd.flags = 0
		if len(s.index.cells) <= s.eagerCells {
			// A small index is in cache: deleting now is cheaper than
			// scanning for idle nodes later.
			s.index.deleteAt(s.index.cellOf(nd.hash, n+1))
			s.release(n)
		} else {
			s.idle++ // idle: stays in the index until it needs the room
		}
		s.tidy()
		return true, false
	}
	nd.flags &^= processing
	s.enqueue(n, nd.flags)
	return true, true
}

// heldNode finds the node of k among the held keys: by scanning the held
// list while it is short (it is as long as the number of busy workers, and
// its entries are hot), by the index otherwise.
func (s *sets[K]) heldNode(k K, h uint32) (uint32, bool) {
	if len(s.held) <= heldScan {
		for _, e := range s.held {
			if e.hash == h && s.nodes.at(e.node).key == k {
				return e.node, true
			}
		}
		return 0, false
	}
	i, found := s.find(k, h)
	if !found {
		return 0, false
	}
	n := s.index.cells[i].node - 1
	if s.nodes.at(n).flags&processing == 0 {
		return 0, false
	}
	return n, true
}
