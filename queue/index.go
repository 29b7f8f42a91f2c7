package queue

import "hash/maphash"

// slot is one cell of keyIndex: the number of the node holding a key and
// the low 32 bits of the key's hash, which give the key's home cell and a
// cheap first comparison.
type slot struct {
	hash uint32
	// node is the node's position in sets.nodes plus one; 0 marks an
	// empty cell.
	node uint32
}

// Sizes of keyIndex's table. The table is at most half full (linear probing
// stays short) and grows by doubling; sets.tidy drops a table larger than
// indexKeep cells once floods are over.
const (
	indexStart = 16
	indexKeep  = 1024
)

// keyed is a node type that holds its key: the sets' node and the delay
// heap's waiter.
type keyed[K comparable] interface{ keyOf() K }

// keyIndex maps keys to node numbers — the sets' tracked keys and the delay
// heap's waiting keys — with an open-addressing hash table, linear probing
// and backward-shift deletion. The nodes, kept by the owner in a slice of N
// that never moves, hold the keys; a cell holds only a node number and 32
// bits of hash.
//
// It replaces a Go map for one measured reason: the queue's traffic is a
// stream of distinct keys inserted and deleted in FIFO order, and a Go map
// (swiss table) keeps a tombstone for each delete until it rehashes, so
// probe sequences grow long — in the AddGetDone benchmark 40 % of the CPU
// went to scanning control words (maps.ctrlGroup.matchH2). Backward-shift
// deletion moves the cells after a deleted one back towards their home, so
// the table never holds tombstones and a probe stops at the first empty
// cell. The keys themselves live in the nodes; a cell is 8 bytes, so a
// probe reads one cache line in the common case.
//
// keyIndex is pure data: no locks, goroutines or time.
type keyIndex[K comparable, N keyed[K]] struct {
	seed maphash.Seed
	// cells has a power-of-two length, or is nil before the first insert.
	// Invariant: every key is in the cell run that starts at its home cell
	// (hash & mask) with no empty cell between home and it.
	cells []slot
	// used is the number of non-empty cells.
	used int
}

func newKeyIndex[K comparable, N keyed[K]]() keyIndex[K, N] {
	return keyIndex[K, N]{seed: maphash.MakeSeed()}
}

// hash is the 32 bits of k's hash the index uses.
func (x *keyIndex[K, N]) hash(k K) uint32 { return uint32(maphash.Comparable(x.seed, k)) }

// find returns the cell holding k and true, or the empty cell where k would
// be inserted and false. nodes resolves cell numbers to keys. The table must
// have at least one empty cell (reserve guarantees it).
func (x *keyIndex[K, N]) find(k K, h uint32, nodes []N) (int, bool) {
	if len(x.cells) == 0 {
		return -1, false
	}
	mask := uint32(len(x.cells) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		c := x.cells[i]
		if c.node == 0 {
			return int(i), false
		}
		if c.hash == h && nodes[c.node-1].keyOf() == k {
			return int(i), true
		}
	}
}

// cellOf returns the cell holding node number n (position + 1), whose key
// hashes to h. The node must be in the index.
func (x *keyIndex[K, N]) cellOf(h uint32, n uint32) int {
	mask := uint32(len(x.cells) - 1)
	i := h & mask
	for x.cells[i].node != n {
		i = (i + 1) & mask
	}
	return int(i)
}

// reserve makes room for one more key, growing the table if the insert
// would fill it beyond half. It reports whether the table was rebuilt (a
// position from an earlier find is then stale).
func (x *keyIndex[K, N]) reserve() bool {
	if 2*(x.used+1) <= len(x.cells) {
		return false
	}
	x.rebuild(max(indexStart, 2*len(x.cells)))
	return true
}

// insertAt stores node number n (position + 1) for a key with hash h in the
// empty cell i that find returned.
func (x *keyIndex[K, N]) insertAt(i int, h uint32, n uint32) {
	x.cells[i] = slot{hash: h, node: n}
	x.used++
}

// deleteAt empties cell i and shifts the cells of the run after it back
// towards their home cells, so that no probe needs a tombstone to continue.
func (x *keyIndex[K, N]) deleteAt(i int) {
	mask := uint32(len(x.cells) - 1)
	hole := uint32(i)
	for j := (hole + 1) & mask; x.cells[j].node != 0; j = (j + 1) & mask {
		home := x.cells[j].hash & mask
		// The cell at j may move to the hole unless its home lies in the
		// cyclic range (hole, j]: moving it before its home would hide it.
		if (j-home)&mask >= (j-hole)&mask {
			x.cells[hole] = x.cells[j]
			hole = j
		}
	}
	x.cells[hole] = slot{}
	x.used--
}

// rebuild moves every cell into a new table of size cells.
func (x *keyIndex[K, N]) rebuild(size int) {
	old := x.cells
	x.cells = make([]slot, size)
	mask := uint32(size - 1)
	for _, c := range old {
		if c.node == 0 {
			continue
		}
		i := c.hash & mask
		for x.cells[i].node != 0 {
			i = (i + 1) & mask
		}
		x.cells[i] = c
	}
}
