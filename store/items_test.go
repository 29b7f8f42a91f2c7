package store

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// cellOf returns the live cell of key in s's current table, or nil.
func cellOf(s *Store[*tobj], key string) *cell[*tobj] {
	_, c := s.tab.Load().getCell(s.hash(key), key)
	return c
}

// checkItemTable checks the item table's invariants: every slot holding a
// cell has its key's hash, and its own position in objs holding its cell's
// object; the positions given out are 0..filled-1, one per occupied slot,
// and nothing lies beyond them; no key holds two slots, every key is found
// by a probe from its hash, filled counts the occupied slots, n the live
// ones, and the load stays under the maximum.
func checkItemTable(t *testing.T, s *Store[*tobj], tab *table[*tobj]) {
	t.Helper()
	it := tab.items.Load()
	seen := map[string]int{}
	used, live := 0, 0
	filled := int(it.filled.Load())
	if len(it.objs) != len(it.slots) {
		t.Errorf("objs has %d entries for %d slots", len(it.objs), len(it.slots))
	}
	owner := map[uint32]int{}
	for i := range it.slots {
		c := it.slots[i].c.Load()
		if c == nil {
			continue
		}
		used++
		if c.live() {
			live++
		}
		pos := it.slots[i].pos
		if int(pos) >= filled {
			t.Errorf("slot %d: position %d, but only %d are given out", i, pos, filled)
			continue
		}
		if j, ok := owner[pos]; ok {
			t.Errorf("slots %d and %d share position %d", j, i, pos)
		}
		owner[pos] = i
		if p := it.objs[pos]; p != c.ptr() {
			t.Errorf("slot %d: key %q: slot's object %p, cell's %p", i, c.key, p, c.ptr())
		}
		if h := s.hash(c.key); it.slots[i].hash != uint32(h) {
			t.Errorf("slot %d: key %q with hash %x, want %x", i, c.key, it.slots[i].hash, uint32(h))
		}
		if j, ok := seen[c.key]; ok {
			t.Errorf("key %q in slots %d and %d", c.key, j, i)
		}
		seen[c.key] = i
		if j, fc := it.find(s.hash(c.key), c.key); j != i || fc != c {
			t.Errorf("key %q in slot %d: a probe finds slot %d", c.key, i, j)
		}
	}
	for pos := filled; pos < len(it.objs); pos++ {
		if it.objs[pos] != nil {
			t.Errorf("position %d, beyond the %d given out, holds an object", pos, filled)
		}
	}
	if used != filled || int64(live) != tab.n.Load() {
		t.Errorf("table counts: filled %d (counted %d), n %d (counted %d live)", filled, used, tab.n.Load(), live)
	}
	if used*8 > it.buckets()*maxLoad8 {
		t.Errorf("table of %d buckets holds %d slots, over the maximum load", it.buckets(), used)
	}
}

func TestBucketsFor(t *testing.T) {
	// A rebuilt table holds its live keys at no more than half of its
	// buckets, in a power of two of at least minBuckets.
	for _, tc := range []struct{ n, want int }{
		{0, 8}, {4, 8}, {5, 16}, {8, 16}, {9, 32}, {16, 32}, {17, 64}, {8192, 16384}, {10000, 32768},
	} {
		if got := bucketsFor(tc.n); got != tc.want {
			t.Errorf("bucketsFor(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

// A key deleted and added again takes its old slot back, so that a key is
// in one slot at most and List, walking the slots, cannot meet it twice.
func TestReaddTakesTheSameSlot(t *testing.T) {
	s := New(Options[*tobj]{})
	for i := range 3 { // with p9 below: 4 keys, under the 8-bucket table's maximum (6)
		s.Set(mk("ns", fmt.Sprint("p", i)))
	}
	it := s.tab.Load().items.Load()
	slotOf := func(key string) int {
		i, _ := it.find(s.hash(key), key)
		return i
	}
	was := slotOf("ns/p2")
	s.Delete("ns/p2")
	if _, ok := s.Get("ns/p2"); ok {
		t.Fatal("Get found a deleted key")
	}
	if got := slotOf("ns/p2"); got != was {
		t.Fatalf("deleted key left slot %d for %d (its dead cell must stay)", was, got)
	}
	s.Set(mk("ns", "p9")) // a new key must not take the dead slot
	s.Set(mk("ns", "p2", rev(2)))
	if s.tab.Load().items.Load() != it {
		t.Fatal("table rebuilt; the test needs it unchanged")
	}
	if got := slotOf("ns/p2"); got != was {
		t.Fatalf("re-added key in slot %d, want its old slot %d", got, was)
	}
	if o, ok := s.Get("ns/p2"); !ok || o.Rev != 2 {
		t.Fatalf("Get(ns/p2) = %v, %v", o, ok)
	}
	checkItemTable(t, s, s.tab.Load())
}

// Growth and shrinking rebuild the table; every live key stays readable,
// and a reader still holding the old table finds the keys it held.
func TestItemTableGrowsAndShrinks(t *testing.T) {
	s := New(Options[*tobj]{})
	first := s.tab.Load().items.Load()
	const n = 2000
	for i := range n {
		s.Set(mk("ns", fmt.Sprint("p", i)))
	}
	grown := s.tab.Load().items.Load()
	if grown == first || grown.buckets() < n*8/maxLoad8 {
		t.Fatalf("after %d adds the table has %d buckets", n, grown.buckets())
	}
	checkItemTable(t, s, s.tab.Load())
	for i := range n - 10 {
		s.Delete(fmt.Sprint("ns/p", i))
	}
	shrunk := s.tab.Load().items.Load()
	if shrunk.buckets() >= grown.buckets()/8 {
		t.Fatalf("after deleting all but 10 keys the table still has %d buckets (was %d)", shrunk.buckets(), grown.buckets())
	}
	checkItemTable(t, s, s.tab.Load())
	for i := n - 10; i < n; i++ {
		if _, ok := s.Get(fmt.Sprint("ns/p", i)); !ok {
			t.Errorf("ns/p%d lost by the rebuild", i)
		}
	}
	if got := len(s.List()); got != 10 {
		t.Fatalf("List has %d objects, want 10", got)
	}
	// The frozen table still leads to the live cells of the keys it held.
	if _, c := grown.find(s.hash(fmt.Sprint("ns/p", n-1)), fmt.Sprint("ns/p", n-1)); c == nil || !c.live() {
		t.Fatal("the old table lost a live key")
	}
}

// put refuses an insert whose probe would run past the tail, and the
// table's insert then rebuilds until the key fits: keys whose hashes all
// start probing at the last bucket fill the tail first.
func TestProbeNeverWraps(t *testing.T) {
	tab := newTable[*tobj](0)
	const h = ^uint64(0) // every key starts at the last bucket
	it := tab.items.Load()
	tail := len(it.slots) - it.buckets()
	n := 0
	for ; n < tail; n++ {
		c := &cell[*tobj]{key: fmt.Sprint("k", n)}
		c.store(mk("", c.key))
		if !it.put(h, c) {
			break
		}
	}
	c := &cell[*tobj]{key: "one-more"}
	c.store(mk("", c.key))
	if it.put(h, c) {
		t.Fatalf("put past the end succeeded after %d keys (%d slots)", n, len(it.slots))
	}
	tab.n.Store(int64(n))
	tab.insertCell(h, c)
	tab.n.Add(1)
	nt := tab.items.Load()
	if nt == it {
		t.Fatal("insertCell did not rebuild a full table")
	}
	for i := range n {
		if _, c := nt.find(h, fmt.Sprint("k", i)); c == nil {
			t.Fatalf("k%d lost by the rebuild", i)
		}
	}
	if _, c := nt.find(h, "one-more"); c == nil {
		t.Fatal("the inserted key is not in the rebuilt table")
	}
}

// TestListUnderChurn: while one writer deletes and re-adds keys (and adds
// fresh ones, which grows the table), List never returns a key twice and
// always returns the keys no one touches.
func TestListUnderChurn(t *testing.T) {
	s := New(Options[*tobj]{Indexers: BuiltinIndexers[*tobj]()})
	const stable, churn = 100, 100
	for i := range stable {
		s.Set(mk("stable", fmt.Sprint("s", i)))
	}
	for i := range churn {
		s.Set(mk("churn", fmt.Sprint("c", i)))
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for round := 0; round < 300 && !stop.Load(); round++ {
			for i := range churn {
				s.Delete(fmt.Sprint("churn/c", i))
				s.Set(mk("churn", fmt.Sprint("c", i), rev(round)))
			}
			s.Set(mk("fresh", fmt.Sprint("f", round)))
		}
		stop.Store(true)
	})
	for lists := 0; !stop.Load() || lists < 10; lists++ {
		seen := map[string]bool{}
		nstable := 0
		for _, o := range s.List() {
			k := o.Key()
			if seen[k] {
				t.Errorf("List returned %s twice", k)
				stop.Store(true)
				break
			}
			seen[k] = true
			if o.Namespace == "stable" {
				nstable++
			}
		}
		if nstable != stable {
			t.Errorf("List returned %d of the %d untouched keys", nstable, stable)
			stop.Store(true)
		}
	}
	wg.Wait()
	checkItemTable(t, s, s.tab.Load())
}

// A rebuild during List's walk leaves the walked table's slots behind the
// writes that follow; List notices and walks again, so it returns each key
// with the object it held when read (here: after the update), not the one
// frozen in the old table. With two rebuilds in a row it reads the cells.
func TestListWalksAgainAfterARebuild(t *testing.T) {
	for _, rebuilds := range []int{1, 2, 3} {
		s := New(Options[*tobj]{})
		s.Set(mk("ns", "k", rev(1)))
		fresh, calls := 0, 0
		testHookListWalked = func() {
			calls++
			if calls > rebuilds {
				return
			}
			// Grow the table (a rebuild), then update k in the new one.
			it := s.tab.Load().items.Load()
			for s.tab.Load().items.Load() == it {
				s.Set(mk("fresh", fmt.Sprint("f", fresh)))
				fresh++
			}
			s.Set(mk("ns", "k", rev(1+calls)))
		}
		got := s.List()
		testHookListWalked = nil
		var k *tobj
		for _, o := range got {
			if o.Key() == "ns/k" {
				k = o
			}
		}
		if want := 1 + min(rebuilds, 2); k == nil || k.Rev != want {
			t.Errorf("%d rebuilds during List: ns/k = %+v, want rev %d", rebuilds, k, want)
		}
		if len(got) != s.Len() && rebuilds <= 2 {
			t.Errorf("%d rebuilds during List: %d objects, store has %d", rebuilds, len(got), s.Len())
		}
	}
}
