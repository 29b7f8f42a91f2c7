package queue

import "sync/atomic"

// Flat combining: Add and Done hand their work to the lock's holder when the
// lock is busy.
//
// Add and Done return nothing, so a caller that finds the lock taken does not
// have to wait for it: it posts its operation to a small ring and goes on,
// and whoever holds the lock applies the posted operations before it lets go.
// This is what keeps the queue fast when a producer and workers run on
// different cores: with a plain mutex every Add, Get and Done of a flood of
// distinct keys queues on the lock, and the lock's hand-offs (parking and
// waking goroutines) cost more than the work it protects — measured at 2
// cores, one producer and 16 workers spent half their CPU in the mutex's
// slow path. With combining only Get waits for the lock.
//
// The rules that keep it exact:
//   - Every lock acquisition applies the posted operations first (lock), so
//     an operation posted before a call began is applied before that call's
//     own work: a worker's Done is applied before its next Get, an Add
//     before any later Len or Get.
//   - Whoever releases the lock looks at the ring afterwards and, if an
//     operation is waiting, takes the lock again to apply it (unlock). A
//     poster that fails to take the lock knows its holder will release it
//     after the post and so will look: no operation is left behind.
//   - When the ring is full, the caller waits for the lock as before.
//   - Only with GOMAXPROCS > 1 when the queue is made (Queue.combining):
//     on one processor a busy lock means a descheduled holder, which
//     parking runs at once, and the look at the ring is pure cost.
//
// The ring is a bounded multi-producer queue in the style of Dmitry
// Vyukov's: each cell carries a sequence number that says whether it is free
// for the position a poster claimed or holds an operation for the consumer,
// which is always the lock's holder.

// opKind is a posted operation.
type opKind uint8

const (
	opAdd opKind = iota + 1
	opAddLow
	opDone
)

// opSlots is the ring's size: enough to absorb a producer's burst while the
// holder works, small enough to stay in cache.
const opSlots = 256

// opCell is one cell of opRing. seq is the cell's position when it is free
// for a poster, position+1 when it holds that position's operation.
type opCell[K comparable] struct {
	seq  atomic.Uint64
	key  K
	hash uint32
	kind opKind
}

// opRing holds the operations posted while the lock was busy, in the order
// their posters claimed cells.
type opRing[K comparable] struct {
	// tail is the next position a poster claims.
	tail atomic.Uint64
	// keep the posters' counter and the holder's on separate cache lines
	_ [56]byte
	// head is the next position to apply; written only under the lock,
	// read without it by waiting.
	head  atomic.Uint64
	cells [opSlots]opCell[K]
}

func newOpRing[K comparable]() *opRing[K] {
	r := &opRing[K]{}
	for i := range r.cells {
		r.cells[i].seq.Store(uint64(i))
	}
	return r
}

// post appends an operation, or reports false when the ring is full.
func (r *opRing[K]) post(k K, h uint32, kind opKind) bool {
	pos := r.tail.Load()
	for {
		c := &r.cells[pos%opSlots]
		switch seq := c.seq.Load(); {
		case seq == pos:
			if r.tail.CompareAndSwap(pos, pos+1) {
				c.key, c.hash, c.kind = k, h, kind
				c.seq.Store(pos + 1) // publishes the fields to the holder
				return true
			}
		case seq < pos:
			return false // the cell still holds the operation of a lap ago
		}
		pos = r.tail.Load()
	}
}

// waiting reports whether an operation is ready to be applied. It may be
// called without the lock.
func (r *opRing[K]) waiting() bool {
	h := r.head.Load()
	return r.cells[h%opSlots].seq.Load() == h+1
}

// take removes the oldest posted operation. Under the lock. An operation
// whose poster has claimed its cell but not yet filled it stops take; that
// poster looks at the ring itself once it has.
func (r *opRing[K]) take() (k K, h uint32, kind opKind, ok bool) {
	pos := r.head.Load()
	c := &r.cells[pos%opSlots]
	if c.seq.Load() != pos+1 {
		return k, 0, 0, false
	}
	k, h, kind = c.key, c.hash, c.kind
	var zero K
	c.key = zero // let the key be collected
	c.seq.Store(pos + opSlots)
	r.head.Store(pos + 1)
	return k, h, kind, true
}

// lock takes the queue's lock and applies the posted operations.
func (q *Queue[K]) lock() {
	q.mu.Lock()
	if q.combining {
		q.applyPostedLocked()
	}
}

// unlock releases the lock, then applies whatever was posted while it was
// held and no one else will apply (see the rules above).
func (q *Queue[K]) unlock() {
	q.mu.Unlock()
	if q.combining {
		q.combine()
	}
}

// combine applies posted operations for as long as some are waiting and the
// lock is free; if the lock is taken, its holder will look after releasing it.
func (q *Queue[K]) combine() {
	for q.ops.waiting() && q.mu.TryLock() {
		q.applyPostedLocked()
		q.mu.Unlock()
	}
}

// lockOrPost takes the lock if it is free, or else posts the operation and
// reports false: the caller is done. When the ring is full it waits for the
// lock.
func (q *Queue[K]) lockOrPost(k K, h uint32, kind opKind) bool {
	if q.mu.TryLock() {
		if q.combining {
			q.applyPostedLocked()
		}
		return true
	}
	if q.combining && q.ops.post(k, h, kind) {
		q.combine()
		return false
	}
	q.lock()
	return true
}

// applyPostedLocked applies the posted operations in order.
func (q *Queue[K]) applyPostedLocked() {
	for {
		k, h, kind, ok := q.ops.take()
		if !ok {
			return
		}
		switch kind {
		case opAdd, opAddLow:
			if !q.shuttingDown {
				q.addHashedLocked(k, h, kind == opAddLow)
			}
		case opDone:
			q.doneHashedLocked(k, h)
		}
	}
}
