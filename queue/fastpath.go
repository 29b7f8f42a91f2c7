package queue

import "sync/atomic"

// The states of a pendingBox.
const (
	// boxGone: the key left its lane (a worker took it); the box is dead.
	boxGone uint32 = iota
	// boxNormal: the key waits in the normal lane.
	boxNormal
	// boxLow: the key waits in the low lane.
	boxLow
)

// pendingBox announces, to adds that do not hold the queue's lock, that a
// key is waiting in a lane. Its key never changes after publication, so a
// reader may compare it without the lock; state is changed only under the
// lock, in the same critical section as the key's flags.
type pendingBox[K comparable] struct {
	key   K
	state atomic.Uint32
	// hash is the key's index hash; like key, it never changes after
	// publication, and readers compare it before the key.
	hash uint32
	// slot is the box's position in the current table; under the lock.
	slot int
}

// pendingTable is one generation of fastDedup's slots. The slots are
// replaced as a whole when the table grows; readers still holding an old
// generation see the same boxes, whose states stay true.
type pendingTable[K comparable] struct {
	slots []atomic.Pointer[pendingBox[K]]
	// used counts the non-nil slots; under the lock.
	used int
}

// fastProbe is how many slots from a key's home a box may sit in, and how
// many a reader looks at. A box that finds no free slot is not published;
// its key simply keeps using the locked path.
const fastProbe = 4

// fastStart is the slot count of fastDedup's first table.
const fastStart = 64

// fastDedup lets Add skip the lock for its most common case under load:
// the key is already waiting in a lane, so the add changes nothing. Only
// keys that were added again while waiting get a box (the first duplicate,
// on the locked path, publishes it), so a stream of distinct keys costs
// nothing here. A reader that finds no box, or a dead one, takes the lock
// as usual: a miss is never wrong, only slower.
//
// Why a hit is correct: the box's state is boxNormal exactly while its key
// is dirty, in the normal lane and not held by a worker; the locked
// transitions (get, promote) change the state inside the critical section
// that changes the key. An add that reads boxNormal is therefore an add of
// a key that, at that instant, was waiting in the normal lane, which is a
// no-op (deduplication, not counted in workqueue_adds_total).
type fastDedup[K comparable] struct {
	table atomic.Pointer[pendingTable[K]]
}

// pending reports, without the lock, whether k (with index hash h) is
// waiting in the normal lane — or, when lowOK, in either lane.
func (f *fastDedup[K]) pending(k K, h uint32, lowOK bool) bool {
	t := f.table.Load()
	if t == nil {
		return false
	}
	mask := uint32(len(t.slots) - 1)
	for i := range uint32(fastProbe) {
		b := t.slots[(h+i)&mask].Load()
		if b == nil || b.hash != h || b.key != k {
			continue
		}
		s := b.state.Load()
		return s == boxNormal || (lowOK && s == boxLow)
	}
	return false
}

// publish makes a box for k in state and returns it, or nil when no slot
// near k's home is free. Under the lock.
func (f *fastDedup[K]) publish(k K, h uint32, state uint32) *pendingBox[K] {
	t := f.table.Load()
	if t == nil || 2*(t.used+1) > len(t.slots) {
		t = f.grow(t)
	}
	mask := uint32(len(t.slots) - 1)
	for i := range uint32(fastProbe) {
		j := (h + i) & mask
		if t.slots[j].Load() != nil {
			continue
		}
		b := &pendingBox[K]{key: k, hash: h, slot: int(j)}
		b.state.Store(state)
		t.slots[j].Store(b)
		t.used++
		return b
	}
	return nil
}

// grow replaces t by a table twice as large (fastStart slots when t is
// nil), moving the live boxes. Boxes that find no slot are retired.
func (f *fastDedup[K]) grow(t *pendingTable[K]) *pendingTable[K] {
	size := fastStart
	if t != nil {
		size = 2 * len(t.slots)
	}
	n := &pendingTable[K]{slots: make([]atomic.Pointer[pendingBox[K]], size)}
	if t != nil {
		mask := uint32(size - 1)
		for i := range t.slots {
			b := t.slots[i].Load()
			if b == nil {
				continue
			}
			b.slot = -1
			for p := range uint32(fastProbe) {
				j := (b.hash + p) & mask
				if n.slots[j].Load() == nil {
					n.slots[j].Store(b)
					b.slot = int(j)
					n.used++
					break
				}
			}
			if b.slot < 0 {
				b.state.Store(boxGone)
			}
		}
	}
	f.table.Store(n)
	return n
}

// retire kills b and frees its slot. Under the lock.
func (f *fastDedup[K]) retire(b *pendingBox[K]) {
	b.state.Store(boxGone)
	if b.slot < 0 {
		return
	}
	t := f.table.Load()
	t.slots[b.slot].Store(nil)
	t.used--
}

// reset drops the table: nothing is pending. Under the lock.
func (f *fastDedup[K]) reset() {
	if f.table.Load() != nil {
		f.table.Store(nil)
	}
}
