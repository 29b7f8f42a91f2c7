package queue

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"
)

var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func ms(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }

// checkHeap verifies the heap order and the key → position index.
func checkHeap[K comparable](t *testing.T, h *delayHeap[K]) {
	t.Helper()
	if h.index.used != len(h.items) {
		t.Fatalf("index has %d keys, heap %d", h.index.used, len(h.items))
	}
	for i, it := range h.items {
		w := h.waiters[it.waiter]
		if int(w.slot) != i {
			t.Fatalf("waiter of %v records slot %d, want %d", w.key, w.slot, i)
		}
		c, ok := h.index.find(w.key, h.index.hash(w.key), h.waiters)
		if !ok || h.index.cells[c].node != it.waiter+1 {
			t.Fatalf("index finds %v at %v (ok %v), want waiter %d", w.key, h.index.cells[c].node, ok, it.waiter+1)
		}
		if i > 0 && h.less(i, (i-1)/2) {
			t.Fatalf("item %d is before its parent", i)
		}
	}
}

func TestDelayHeapTable(t *testing.T) {
	type push struct {
		key       string
		at        int // ms after t0
		wantEarly bool
	}
	tests := []struct {
		name   string
		pushes []push
		now    int
		want   []string // popDue order at now
		left   int
	}{
		{
			name:   "pops in deadline order, only what is due",
			pushes: []push{{"a", 30, true}, {"b", 10, true}, {"c", 20, false}, {"d", 40, false}},
			now:    30, want: []string{"b", "c", "a"}, left: 1,
		},
		{
			name:   "equal deadlines pop in arrival order",
			pushes: []push{{"x", 5, true}, {"y", 5, false}, {"z", 5, false}},
			now:    5, want: []string{"x", "y", "z"},
		},
		{
			name:   "earlier deadline wins for a duplicate",
			pushes: []push{{"a", 50, true}, {"b", 20, true}, {"a", 10, true}},
			now:    15, want: []string{"a"}, left: 1,
		},
		{
			name:   "later deadline for a duplicate is ignored",
			pushes: []push{{"a", 10, true}, {"a", 50, false}},
			now:    10, want: []string{"a"},
		},
		{
			name:   "nothing due",
			pushes: []push{{"a", 10, true}},
			now:    9, want: nil, left: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newDelayHeap[string]()
			for _, p := range tc.pushes {
				if got := h.push(p.key, ms(p.at)); got != p.wantEarly {
					t.Fatalf("push(%s, %d) earliest-changed = %v, want %v", p.key, p.at, got, p.wantEarly)
				}
				checkHeap(t, &h)
			}
			var got []string
			for {
				k, ok := h.popDue(ms(tc.now))
				if !ok {
					break
				}
				checkHeap(t, &h)
				got = append(got, k)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("popped %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("popped %v, want %v", got, tc.want)
				}
			}
			if h.len() != tc.left {
				t.Fatalf("left %d, want %d", h.len(), tc.left)
			}
		})
	}
}

// TestDelayHeapRandom checks order and index against a brute-force minimum
// under random pushes, updates and pops.
func TestDelayHeapRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	h := newDelayHeap[int]()
	want := map[int]int{} // key → deadline in ms
	now := 0
	for step := range 5000 {
		if rng.IntN(3) > 0 {
			k, at := rng.IntN(200), now+1+rng.IntN(100)
			h.push(k, ms(at))
			if old, ok := want[k]; !ok || at < old {
				want[k] = at
			}
		} else {
			now += rng.IntN(10)
			for {
				k, ok := h.popDue(ms(now))
				if !ok {
					break
				}
				for other, at := range want {
					if at < want[k] {
						t.Fatalf("step %d: popped %d (at %d) before %d (at %d)", step, k, want[k], other, at)
					}
				}
				if want[k] > now {
					t.Fatalf("step %d: popped %d at %d before its deadline %d", step, k, now, want[k])
				}
				delete(want, k)
			}
		}
		if h.len() != len(want) {
			t.Fatalf("step %d: heap has %d keys, want %d", step, h.len(), len(want))
		}
	}
	checkHeap(t, &h)
}

func TestDelayHeapSteadyStateAllocatesNothing(t *testing.T) {
	h := newDelayHeap[int]()
	for k := range 1024 {
		h.push(k, ms(k))
	}
	i := 0
	allocs := testing.AllocsPerRun(10000, func() {
		k, _ := h.popDue(ms(1 << 30))
		h.push(k, ms(1024+i))
		h.push(k, ms(1000+i)) // in-place update to an earlier deadline
		i++
	})
	if allocs != 0 {
		t.Fatalf("steady-state push/popDue allocates %.2f per op, want 0", allocs)
	}
}

// TestDelayHeapGrowsByDoubling: a storm of new delays (keys added with
// AddAfter faster than they fall due) grows the heap's slices to twice
// their length each time they fill. append alone grows a large slice by a
// quarter, which allocated about 5 slots and copied 4 per key in such a
// storm; the figure was 343 bytes a key in bench/'s AddAfter/new.
func TestDelayHeapGrowsByDoubling(t *testing.T) {
	h := newDelayHeap[string]()
	itemsCap, waitersCap := 0, 0
	for i := range 1 << 14 {
		before, beforeW := len(h.items), len(h.waiters)
		h.push(fmt.Sprintf("ns/pod-%d", i), ms(1<<14-i))
		if c := cap(h.items); c != itemsCap {
			if itemsCap > 0 && c < 2*before {
				t.Fatalf("items grew from %d (cap %d) to cap %d, want at least %d", before, itemsCap, c, 2*before)
			}
			itemsCap = c
		}
		if c := cap(h.waiters); c != waitersCap {
			if waitersCap > 0 && c < 2*beforeW {
				t.Fatalf("waiters grew from %d (cap %d) to cap %d, want at least %d", beforeW, waitersCap, c, 2*beforeW)
			}
			waitersCap = c
		}
	}
	checkHeap(t, &h)
	if got := unsafe.Sizeof(waiter[string]{}); got != 24 {
		t.Errorf("a waiter with a string key is %d bytes, want 24 (slot and hash 32 bits each)", got)
	}
	if got := unsafe.Sizeof(waiting{}); got != 24 {
		t.Errorf("a heap slot is %d bytes, want 24 (deadline, arrival number, waiter number: doc.go)", got)
	}
}
