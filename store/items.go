package store

import (
	"sync/atomic"
	"unsafe"

	"github.com/kcmlab/kcm/kube/api"
)

// This file holds the item table: the key → cell hash table behind Get,
// List and ListKeys. client-go keeps its items in a Go map under the
// store's one RWMutex; kcm's table is written by the one writer only and
// read without any lock, so a reader costs a hash, a few loads and no
// atomic write to a shared cache line.
//
// The table is open addressing with linear probing that never wraps: a
// key's probe starts at hash & mask and runs forward through a tail of
// extra slots past the last bucket (an insert that would run off the end
// rebuilds the table instead). A slot, once given to a key, keeps that key
// until the table is rebuilt: deleting empties the key's cell and leaves it
// in place, and adding the key again puts the new cell into the same slot.
// So a key has at most one slot per table, whatever the history of
// deletes and re-adds, and a reader walking the slots in order (List)
// meets each key at most once. Rebuilds (growth, and dropping the slots of
// deleted keys) build a new table aside and swap it in with one atomic
// store; the old one is never written again, so readers still walking it
// see a frozen set of cells, whose objects stay current.

// Load factors of the item table, in eighths: a table is rebuilt when an
// insert would fill more than maxLoad8/8 of its buckets with live or dead
// keys, and a rebuild sizes the new table so that the live keys fill at
// most rebuildLoad8/8 of it (a power of two: between a quarter and a half).
// With linear probing a hit at 3/4 load reads 2.5 slots on average (16
// bytes each: one cache line or two), and the table costs 32-96 bytes a
// key; lower loads probe less and cost more memory.
const (
	maxLoad8     = 6
	rebuildLoad8 = 4
	minBuckets   = 8
)

// itemTable is one generation of the key → cell table.
type itemTable[T api.Object] struct {
	// mask is the number of buckets minus one (a power of two minus one).
	mask uint64
	// slots are the buckets plus the probe tail.
	slots []slot[T]
	// objs[slots[i].pos] repeats the pointer of slots[i]'s object (nil
	// once deleted), so that List reads one dense array of pointers — 8
	// bytes a key, without the cells, which lie scattered in the heap —
	// instead of the 16-byte slots, half or more of which are empty at
	// the table's load (10k keys: 36 872 slots). Positions are given out in the order slots are first
	// filled, so objs[:filled] covers every key of the table, live or dead,
	// and nothing else. The writer keeps it equal to the cell's object in
	// the current table only; a table replaced by a rebuild keeps the
	// objects its keys had at the swap, so List, after its walk, checks
	// that the table it walked is still the current one. Atomic.
	objs []unsafe.Pointer
	// filled is the number of positions of objs given out, which is the
	// number of slots holding a cell, live or dead. Written by the writer
	// after the position's object, read by List.
	filled atomic.Int64
}

// slot is one bucket. hash is written before c is first stored and never
// changes while the table lives, so a reader that loaded a non-nil c may
// read it without synchronisation.
type slot[T api.Object] struct {
	c atomic.Pointer[cell[T]]
	// hash is the low half of the key's hash: the table's mask never
	// reaches beyond it. pos is the slot's position in objs.
	hash uint32
	pos  uint32
}

// bucketsFor returns the number of buckets a table for n live keys gets.
func bucketsFor(n int) int {
	b := minBuckets
	for n*8 > b*rebuildLoad8 {
		b *= 2
	}
	return b
}

// newItemTable returns an empty table sized for n keys.
func newItemTable[T api.Object](n int) *itemTable[T] {
	b := bucketsFor(n)
	n = b + b/8 + 8
	return &itemTable[T]{mask: uint64(b - 1), slots: make([]slot[T], n), objs: make([]unsafe.Pointer, n)}
}

// buckets returns the number of buckets (without the probe tail).
func (it *itemTable[T]) buckets() int { return int(it.mask) + 1 }

// find returns the slot holding key (live or dead), or -1. Safe for
// readers.
func (it *itemTable[T]) find(h uint64, key string) (int, *cell[T]) {
	for i := int(h & it.mask); i < len(it.slots); i++ {
		sl := &it.slots[i]
		c := sl.c.Load()
		if c == nil {
			return -1, nil
		}
		if sl.hash == uint32(h) && c.key == key {
			return i, c
		}
	}
	return -1, nil
}

// put stores c under a key the table does not hold (not even dead), or
// reports false when the table is full or the probe would run off its
// end. Writer-only; the cell must be complete (key, gen, object) first.
func (it *itemTable[T]) put(h uint64, c *cell[T]) bool {
	used := int(it.filled.Load())
	if (used+1)*8 > it.buckets()*maxLoad8 {
		return false
	}
	for i := int(h & it.mask); i < len(it.slots); i++ {
		sl := &it.slots[i]
		if sl.c.Load() == nil {
			sl.hash, sl.pos = uint32(h), uint32(used)
			atomic.StorePointer(&it.objs[used], c.ptr())
			sl.c.Store(c)
			it.filled.Store(int64(used + 1))
			return true
		}
	}
	return false
}

// rebuilt returns a new table holding the live cells of it, sized for n
// live keys (at least their number). Writer-only.
func (it *itemTable[T]) rebuilt(n int) *itemTable[T] {
	for {
		nt := newItemTable[T](n)
		ok := true
		for i := range it.slots {
			sl := &it.slots[i]
			if c := sl.c.Load(); c != nil && c.live() {
				if !nt.put(uint64(sl.hash), c) {
					ok = false
					break
				}
			}
		}
		if ok {
			return nt
		}
		// A probe ran off the end: such clustering is rare at this load,
		// and a table twice the size spreads it.
		n *= 2
	}
}

// getCell returns key's live cell in the current table and the table's
// copy of its object pointer (see itemTable.objs), or nils.
func (t *table[T]) getCell(h uint64, key string) (*unsafe.Pointer, *cell[T]) {
	it := t.items.Load()
	i, c := it.find(h, key)
	if c == nil || !c.live() {
		return nil, nil
	}
	return &it.objs[it.slots[i].pos], c
}

// setObj makes obj the object of key's live cell c, whose table copy is
// ref (both from getCell). Writer-only.
func setObj[T api.Object](ref *unsafe.Pointer, c *cell[T], obj T) {
	c.store(obj)
	atomic.StorePointer(ref, c.ptr())
}

// deleteObj empties key's live cell c, whose table copy is ref.
// Writer-only.
func deleteObj[T api.Object](ref *unsafe.Pointer, c *cell[T]) {
	c.empty()
	atomic.StorePointer(ref, nil)
}

// insertCell stores a new cell for key, which t holds no live cell for.
// It reuses the key's dead slot when there is one, else puts it in a free
// slot, rebuilding the table when needed. Writer-only.
func (t *table[T]) insertCell(h uint64, c *cell[T]) {
	it := t.items.Load()
	if i, _ := it.find(h, c.key); i >= 0 {
		atomic.StorePointer(&it.objs[it.slots[i].pos], c.ptr())
		it.slots[i].c.Store(c)
		return
	}
	if it.put(h, c) {
		return
	}
	nt := it.rebuilt(int(t.n.Load()) + 1)
	for !nt.put(h, c) {
		nt = nt.rebuilt(2 * (int(t.n.Load()) + 1))
	}
	t.items.Store(nt)
}

// shrinkAfterDelete rebuilds the table when deletes left it mostly dead
// slots, so that a store that emptied does not keep its cells and keys.
// Writer-only.
func (t *table[T]) shrinkAfterDelete() {
	it := t.items.Load()
	n := int(t.n.Load())
	if it.buckets() > 8*minBuckets && n*16 < it.buckets() {
		t.items.Store(it.rebuilt(n))
	}
}

// forLive calls f for every live cell of the table read once, in slot
// order, with its object.
func (t *table[T]) forLive(f func(c *cell[T], obj T)) {
	it := t.items.Load()
	for i := range it.slots {
		if c := it.slots[i].c.Load(); c != nil {
			if obj, ok := c.load(); ok {
				f(c, obj)
			}
		}
	}
}
