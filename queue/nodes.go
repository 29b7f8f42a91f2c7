package queue

// Nodes are stored in chunks of chunkSize: growing by a chunk copies
// nothing, where a slice that doubles copies every node (and, since a node
// holds pointers, runs the GC's write barriers over all of them) and leaves
// the old array as garbage. Both showed in the profile of a flood of
// distinct keys (16 % of the CPU in growth, copying and GC work).
const (
	chunkBits = 8
	chunkSize = 1 << chunkBits
	chunkMask = chunkSize - 1
)

// nodeStore is the sets' node storage: positions 0..n-1 are allocated (in
// use or on the free list), chunks never move, so a *node stays valid.
type nodeStore[K comparable] struct {
	chunks [][]node[K]
	n      int
}

// at returns node i (i < n).
func (st *nodeStore[K]) at(i uint32) *node[K] { return &st.chunks[i>>chunkBits][i&chunkMask] }

// push appends nd and returns its position.
func (st *nodeStore[K]) push(nd node[K]) uint32 {
	if st.n == len(st.chunks)<<chunkBits {
		st.chunks = append(st.chunks, make([]node[K], chunkSize))
	}
	i := uint32(st.n)
	*st.at(i) = nd
	st.n++
	return i
}

// capacity is the number of nodes the chunks hold.
func (st *nodeStore[K]) capacity() int { return len(st.chunks) << chunkBits }

// reset zeroes the allocated nodes and keeps the chunks.
func (st *nodeStore[K]) reset() {
	for c := 0; c<<chunkBits < st.n; c++ {
		clear(st.chunks[c])
	}
	st.n = 0
}

// release drops the chunks.
func (st *nodeStore[K]) release() { st.chunks, st.n = nil, 0 }
