package decode

import (
	"hash/maphash"
	"testing"
	"unsafe"
)

// tableUse offers v to t as sharing does: found, or added on a miss.
func tableUse(t *recentTable[int], seed maphash.Seed, v int) (found bool) {
	h := maphash.Comparable(seed, v)
	if _, ok := t.find(h, func(e int) bool { return e == v }); ok {
		return true
	}
	t.add(h, v)
	return false
}

// slotBytes is the memory of t's slots now.
func slotBytes[V any](t *recentTable[V]) uintptr {
	return uintptr(len(t.cur.Load().slots)) * unsafe.Sizeof(recentSlot[V]{})
}

// TestRecentTableSizedByUse: a sharing table's slots are sized by the
// values that keep coming back, not fixed at the maximum — a process
// whose objects hold few recurring values (names and uids are each seen
// once) pays initialBuckets of slots, 32 KiB, not the 2 MiB of the string
// table's maximum.
func TestRecentTableSizedByUse(t *testing.T) {
	seed := maphash.MakeSeed()
	tab := newRecentTable[int](initialBuckets, stringBuckets)
	for v := range 200_000 { // unique values, each offered once
		if tableUse(tab, seed, v) {
			t.Fatalf("value %d found before it was added", v)
		}
	}
	if got, want := slotBytes(tab), uintptr(32<<10); tab.buckets() != initialBuckets || got > want {
		t.Errorf("after 200k values seen once: %d buckets, %d bytes of slots; want %d buckets, ≤ %d bytes",
			tab.buckets(), got, initialBuckets, want)
	}
}

// TestRecentTableGrowsForRecurringValues: when more values keep coming
// back than the table holds, it doubles until they fit (nearly every
// offer is a hit), and never past its maximum.
func TestRecentTableGrowsForRecurringValues(t *testing.T) {
	for _, tc := range []struct {
		name            string
		values, max     int // recurring values, maximum buckets
		wantMinHitShare float64
	}{
		{"the working set fits below the maximum", 20_000, 1 << 16, 0.9},
		{"capped at the maximum", 20_000, 1 << 12, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seed := maphash.MakeSeed()
			tab := newRecentTable[int](initialBuckets, tc.max)
			var hits int
			const rounds = 20
			for r := range rounds {
				hits = 0
				for v := range tc.values {
					if tableUse(tab, seed, v) {
						hits++
					}
				}
				if r == 0 && hits != 0 {
					t.Fatalf("round 0: %d hits on a table never offered these values", hits)
				}
			}
			if b := tab.buckets(); b > tc.max {
				t.Errorf("%d buckets, past the maximum %d", b, tc.max)
			}
			if share := float64(hits) / float64(tc.values); share < tc.wantMinHitShare {
				t.Errorf("last round found %.2f of %d recurring values (table of %d buckets); want ≥ %.2f",
					share, tc.values, tab.buckets(), tc.wantMinHitShare)
			}
			if tc.values > 2*tc.max && tab.buckets() != tc.max {
				t.Errorf("%d buckets under a working set larger than the maximum; want the maximum %d", tab.buckets(), tc.max)
			}
		})
	}
}

// TestRecentTableGrowKeepsEntries: a grow moves every entry to its
// bucket in the larger table, hot marks included, so nothing already
// shared is missed after it.
func TestRecentTableGrowKeepsEntries(t *testing.T) {
	seed := maphash.MakeSeed()
	tab := newRecentTable[int](16, 16) // no grow but the test's
	// 24 values that take at most two slots of each of the 16 buckets (a
	// value's bucket is its hash's top bits): every one has a slot whatever
	// the random seed. (Consecutive integers would leave some buckets with
	// three or more, and how many were kept would depend on the seed.)
	shift := tab.cur.Load().shift
	perBucket := map[uint64]int{}
	var kept []int
	for v := 0; len(kept) < 24; v++ {
		if b := maphash.Comparable(seed, v) >> shift; perBucket[b] < 2 {
			perBucket[b]++
			kept = append(kept, v)
		}
	}
	for _, v := range kept {
		if tableUse(tab, seed, v) {
			t.Fatalf("value %d found before it was added", v)
		}
	}
	for _, v := range kept {
		if !tableUse(tab, seed, v) { // found: in the table, now hot
			t.Fatalf("value %d not kept, though its bucket had a free slot", v)
		}
	}
	hot := func() (n int) {
		ts := tab.cur.Load()
		for i := range ts.slots {
			if ts.slots[i].entry.Load() != nil && ts.slots[i].tag.Load()&hotBit != 0 {
				n++
			}
		}
		return n
	}
	hotBefore := hot()
	tab.grow(tab.cur.Load())
	if tab.buckets() != 32 {
		t.Fatalf("grow: %d buckets, want 32", tab.buckets())
	}
	if h := hot(); h != hotBefore {
		t.Errorf("grow: %d hot entries, want the %d before", h, hotBefore)
	}
	for _, v := range kept {
		h := maphash.Comparable(seed, v)
		if _, ok := tab.find(h, func(e int) bool { return e == v }); !ok {
			t.Errorf("value %d, in the table before the grow, not found after it", v)
		}
	}
}

// TestRecentTableConcurrentGrow: decoders on several goroutines find and
// add while the table grows under them (run with -race): a find returns
// only an equal value, and the table ends within its maximum.
func TestRecentTableConcurrentGrow(t *testing.T) {
	seed := maphash.MakeSeed()
	tab := newRecentTable[int](initialBuckets, 1<<13)
	done := make(chan struct{})
	for g := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for r := range 20 {
				for v := range 3000 {
					v := (v*7 + g + r) % 3000
					h := maphash.Comparable(seed, v)
					if got, ok := tab.find(h, func(e int) bool { return e == v }); ok && got != v {
						t.Errorf("find(%d) = %d", v, got)
						return
					}
					tab.add(h, v)
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
	if b := tab.buckets(); b <= initialBuckets || b > 1<<13 {
		t.Errorf("%d buckets after 240k offers of 3000 recurring values from %d; want grown, ≤ %d", b, initialBuckets, 1<<13)
	}
}
