package queue

import (
	"math/rand/v2"
	"testing"
)

// probeNodes is a node slice for driving keyIndex directly: node i holds
// key i.
func probeNodes(n int) []node[int] {
	nodes := make([]node[int], n)
	for i := range nodes {
		nodes[i].key = i
	}
	return nodes
}

// checkIndex verifies the probing invariant: every key is found from its
// home cell, and the count of cells in use.
func checkIndex(t *testing.T, x *keyIndex[int, node[int]], nodes []node[int], want map[int]uint32) {
	t.Helper()
	if x.used != len(want) {
		t.Fatalf("used = %d, want %d", x.used, len(want))
	}
	for k, h := range want {
		i, ok := x.find(k, h, nodes)
		if !ok || x.cells[i].node != uint32(k)+1 {
			t.Fatalf("key %d (hash %d) not found from its home cell", k, h)
		}
	}
}

// TestKeyIndexTable drives the index with chosen hashes, so that keys
// collide on purpose: linear probing must find every key past the ones in
// front of it, and backward-shift deletion must keep them findable without
// tombstones (the rule a deleted cell must not break a probe run).
func TestKeyIndexTable(t *testing.T) {
	type step struct {
		del  bool
		key  int
		hash uint32
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"three keys share a home; the first is deleted", []step{
			{key: 1, hash: 3}, {key: 2, hash: 3}, {key: 3, hash: 3}, {del: true, key: 1, hash: 3}}},
		{"the middle of a run is deleted", []step{
			{key: 1, hash: 3}, {key: 2, hash: 3}, {key: 3, hash: 3}, {del: true, key: 2, hash: 3}}},
		{"a key at its home behind a deleted cell stays put", []step{
			{key: 1, hash: 3}, {key: 2, hash: 3}, {key: 3, hash: 5}, {key: 4, hash: 5},
			{del: true, key: 1, hash: 3}}},
		{"a run wraps around the end of the table", []step{
			{key: 1, hash: 15}, {key: 2, hash: 15}, {key: 3, hash: 15}, {key: 4, hash: 0},
			{del: true, key: 1, hash: 15}, {del: true, key: 2, hash: 15}}},
		{"a key homed after the hole must not move before its home", []step{
			{key: 1, hash: 14}, {key: 2, hash: 15}, {key: 3, hash: 14}, {key: 4, hash: 0},
			{del: true, key: 2, hash: 15}}},
		{"delete all then reinsert", []step{
			{key: 1, hash: 7}, {key: 2, hash: 7}, {del: true, key: 1, hash: 7}, {del: true, key: 2, hash: 7},
			{key: 2, hash: 7}, {key: 1, hash: 8}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := newKeyIndex[int, node[int]]()
			nodes := probeNodes(8)
			want := map[int]uint32{}
			for _, st := range tc.steps {
				if st.del {
					i, ok := x.find(st.key, st.hash, nodes)
					if !ok {
						t.Fatalf("key %d to delete not found", st.key)
					}
					x.deleteAt(i)
					delete(want, st.key)
				} else {
					x.reserve()
					i, ok := x.find(st.key, st.hash, nodes)
					if ok {
						t.Fatalf("key %d found before insert", st.key)
					}
					x.insertAt(i, st.hash, uint32(st.key)+1)
					want[st.key] = st.hash
				}
				checkIndex(t, &x, nodes, want)
			}
			for k := range 8 {
				if _, in := want[k]; in {
					continue
				}
				for _, h := range []uint32{3, 5, 7, 8, 14, 15, 0} {
					if i, ok := x.find(k, h, nodes); ok {
						t.Fatalf("deleted key %d still found at cell %d", k, i)
					}
				}
			}
		})
	}
}

// TestKeyIndexAgainstMap runs random inserts and deletes with hashes drawn
// from a few values (long collision runs, wrap-around, growth) and compares
// with a map after every step.
func TestKeyIndexAgainstMap(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 3))
		x := newKeyIndex[int, node[int]]()
		nodes := probeNodes(64)
		want := map[int]uint32{}
		for step := range 2000 {
			k := rng.IntN(64)
			h, in := want[k]
			if !in {
				h = uint32(rng.IntN(6)) * 5 // few homes, some at the table's end
			}
			i, ok := x.find(k, h, nodes)
			if ok != in {
				t.Fatalf("seed %d step %d: find(%d) = %v, map says %v", seed, step, k, ok, in)
			}
			if in {
				x.deleteAt(i)
				delete(want, k)
			} else {
				if x.reserve() {
					i, _ = x.find(k, h, nodes)
				}
				x.insertAt(i, h, uint32(k)+1)
				want[k] = h
			}
			checkIndex(t, &x, nodes, want)
		}
	}
}

// The index grows before it is more than half full.
func TestKeyIndexLoad(t *testing.T) {
	x := newKeyIndex[int, node[int]]()
	nodes := probeNodes(5000)
	for k := range 5000 {
		h := x.hash(k)
		x.reserve()
		i, _ := x.find(k, h, nodes)
		x.insertAt(i, h, uint32(k)+1)
		if 2*x.used > len(x.cells) {
			t.Fatalf("%d keys in %d cells: more than half full", x.used, len(x.cells))
		}
	}
}

// A flood's nodes and index cells are kept while floods of that size keep
// coming, and given back after drainsToShrink small drains in a row.
func TestSetsReleaseAfterSmallDrains(t *testing.T) {
	s := newSets[int]()
	cycle := func(n int) {
		for i := range n {
			s.add(i, false)
		}
		for range n {
			k, _ := s.get()
			s.done(k)
		}
	}
	cycle(10_000)
	bigNodes, bigCells := s.nodes.capacity(), len(s.index.cells)
	if bigNodes < 10_000 || bigCells < 20_000 {
		t.Fatalf("after a flood of 10000: %d nodes, %d cells", bigNodes, bigCells)
	}
	cycle(10_000) // the same size again: nothing is rebuilt
	if s.nodes.capacity() != bigNodes || len(s.index.cells) != bigCells {
		t.Fatalf("a repeated flood reallocated: %d nodes, %d cells", s.nodes.capacity(), len(s.index.cells))
	}
	for i := range drainsToShrink {
		if s.nodes.capacity() != bigNodes {
			t.Fatalf("released after %d small drains, want %d", i, drainsToShrink)
		}
		cycle(10)
	}
	if s.nodes.capacity() > nodesKeep || len(s.index.cells) > indexKeep {
		t.Fatalf("after %d small drains still %d nodes, %d cells", drainsToShrink, s.nodes.capacity(), len(s.index.cells))
	}
	cycle(10) // still works after the release
	if s.tracked() != 0 || s.ready != 0 || s.inFlight != 0 {
		t.Fatalf("state not empty: tracked %d ready %d inFlight %d", s.tracked(), s.ready, s.inFlight)
	}
}

// A burst of delays is given back once the delay heap drains.
func TestDelayHeapReleaseAfterBurst(t *testing.T) {
	h := newDelayHeap[int]()
	for k := range 5000 {
		h.push(k, ms(k))
	}
	for range 5000 {
		if _, ok := h.popDue(ms(1 << 20)); !ok {
			t.Fatal("popDue found nothing before the heap drained")
		}
	}
	if cap(h.waiters) > nodesKeep || len(h.index.cells) > indexKeep || cap(h.items) > nodesKeep {
		t.Fatalf("drained heap keeps %d waiters, %d cells, %d slots", cap(h.waiters), len(h.index.cells), cap(h.items))
	}
	h.push(1, ms(1))
	if k, ok := h.popDue(ms(1)); !ok || k != 1 {
		t.Fatalf("after release popDue = %d, %v", k, ok)
	}
}

// nodeStore hands out positions in order across chunk boundaries, keeps
// every node in place while it grows, and reset zeroes what was used.
func TestNodeStore(t *testing.T) {
	var st nodeStore[int]
	first := st.at(st.push(node[int]{key: -1}))
	for i := range 3*chunkSize + 5 {
		if got := st.push(node[int]{key: i}); got != uint32(i+1) {
			t.Fatalf("push %d returned position %d", i, got)
		}
	}
	if first != st.at(0) || first.key != -1 {
		t.Fatal("node 0 moved or changed while the store grew")
	}
	for i := range 3*chunkSize + 5 {
		if k := st.at(uint32(i + 1)).key; k != i {
			t.Fatalf("at(%d).key = %d, want %d", i+1, k, i)
		}
	}
	if c := st.capacity(); c != 4*chunkSize {
		t.Fatalf("capacity = %d, want %d", c, 4*chunkSize)
	}
	st.reset()
	if st.n != 0 || st.capacity() != 4*chunkSize || st.chunks[3][4].key != 0 || st.chunks[0][0].key != 0 {
		t.Fatalf("after reset: n %d capacity %d, nodes not zeroed", st.n, st.capacity())
	}
}

// dropIdle removes idle nodes in place, including from runs that wrap
// around the end of the table, and leaves every other key findable from
// its home cell. Hashes are chosen so that runs collide and wrap.
func TestDropIdle(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		rng := rand.New(rand.NewPCG(seed, 9))
		s := newSets[int]()
		s.eagerCells = 0 // keep finished keys idle even in a small table
		hashOf := map[int]uint32{}
		for k := range 7 { // 7 keys in 16 cells: no growth
			h := uint32(12 + rng.IntN(8)) // homes 12..15 and 0..3 (wrap)
			hashOf[k] = h
			s.addHashed(k, h, false)
		}
		idle := map[int]bool{}
		for range 7 {
			k, _ := s.get()
			if rng.IntN(2) == 0 {
				s.doneHashed(k, hashOf[k])
				idle[k] = true
			} else {
				s.addHashed(k, hashOf[k], false) // held and dirty: stays
				s.doneHashed(k, hashOf[k])
			}
		}
		if s.idle != len(idle) {
			t.Fatalf("seed %d: idle = %d, want %d", seed, s.idle, len(idle))
		}
		s.dropIdle()
		if s.idle != 0 || s.index.used != 7-len(idle) {
			t.Fatalf("seed %d: after dropIdle idle %d used %d, want 0 and %d", seed, s.idle, s.index.used, 7-len(idle))
		}
		for k, h := range hashOf {
			_, found := s.find(k, h)
			if found == idle[k] {
				t.Fatalf("seed %d: key %d (home %d, idle %v) found = %v after dropIdle", seed, k, h&15, idle[k], found)
			}
		}
	}
}
