package processor

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestRingFIFOAndCapacity(t *testing.T) {
	tests := []struct {
		name     string
		min      int
		push     int // elements pushed first
		pop      int // then popped
		wantCap  int
		wantHead int // first element left, -1 when empty
	}{
		{"empty ring allocates nothing", 4, 0, 0, 0, -1},
		{"first push allocates min", 4, 1, 0, 4, 0},
		{"min rounds up to a power of two", 5, 1, 0, 8, 0},
		{"full ring doubles", 4, 5, 0, 8, 0},
		{"grows repeatedly", 4, 17, 0, 32, 0},
		{"pop keeps order", 4, 3, 2, 4, 2},
		{"drained burst shrinks by halves to min", 4, 64, 64, 4, -1},
		{"no shrink above a quarter", 4, 32, 23, 32, 23},
		{"shrink at a quarter", 4, 32, 24, 16, 24},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRing[int](tc.min)
			for i := range tc.push {
				r.Push(i)
			}
			for i := range tc.pop {
				got, ok := r.Pop()
				if !ok || got != i {
					t.Fatalf("pop %d = %d, %v; want %d, true", i, got, ok, i)
				}
			}
			if r.Cap() != tc.wantCap {
				t.Errorf("Cap() = %d, want %d", r.Cap(), tc.wantCap)
			}
			if r.Len() != tc.push-tc.pop {
				t.Errorf("Len() = %d, want %d", r.Len(), tc.push-tc.pop)
			}
			got, ok := r.Pop()
			if tc.wantHead < 0 {
				if ok {
					t.Errorf("Pop on empty ring = %d, true", got)
				}
			} else if !ok || got != tc.wantHead {
				t.Errorf("next Pop = %d, %v; want %d", got, ok, tc.wantHead)
			}
		})
	}
}

// TestRingWrapAroundGrowth grows a ring whose window wraps past the end of
// its array: the copy must keep the oldest-first order.
func TestRingWrapAroundGrowth(t *testing.T) {
	r := newRing[int](4)
	for i := range 4 {
		r.Push(i)
	}
	r.Pop()
	r.Pop()
	r.Push(4)
	r.Push(5) // window is now slots 2,3,0,1: wrapped
	r.Push(6) // full: grows while wrapped
	want := []int{2, 3, 4, 5, 6}
	for _, w := range want {
		if got, ok := r.Pop(); !ok || got != w {
			t.Fatalf("Pop = %d, %v; want %d", got, ok, w)
		}
	}
}

// TestRingReleasesPoppedSlots checks that a popped pointer is no longer
// referenced by the ring, so the cache can free objects nobody else holds.
func TestRingReleasesPoppedSlots(t *testing.T) {
	r := newRing[*int](4)
	for i := range 3 {
		r.Push(&i)
	}
	r.Pop()
	r.Pop()
	nonNil := 0
	for _, p := range r.buf {
		if p != nil {
			nonNil++
		}
	}
	if nonNil != 1 {
		t.Fatalf("ring holds %d pointers, want 1 (only the unpopped element)", nonNil)
	}
}

func TestRingReserveAndReset(t *testing.T) {
	r := newRing[int](4)
	r.Push(1)
	r.Reserve(10)
	if r.Cap() != 16 {
		t.Fatalf("Cap() after Reserve(10) with 1 element = %d, want 16", r.Cap())
	}
	if got, _ := r.Pop(); got != 1 {
		t.Fatalf("Reserve lost the element: Pop = %d", got)
	}
	r.Push(2)
	r.Reset()
	if r.Len() != 0 || r.Cap() != 0 {
		t.Fatalf("after Reset Len=%d Cap=%d, want 0 0", r.Len(), r.Cap())
	}
	r.Push(3)
	if r.Cap() != 4 {
		t.Fatalf("Cap() after Reset and Push = %d, want min 4", r.Cap())
	}
}

// TestRingMatchesSliceModel drives the ring and a plain slice with the same
// random pushes and pops and checks they always agree, and that the
// capacity invariants hold after every operation.
func TestRingMatchesSliceModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	r := newRing[int](8)
	var model []int
	next := 0
	for step := range 200_000 {
		// Phases of mostly-push and mostly-pop make bursts that grow and
		// shrink the ring.
		pushBias := 0.8
		if (step/5000)%2 == 1 {
			pushBias = 0.2
		}
		if rng.Float64() < pushBias {
			r.Push(next)
			model = append(model, next)
			next++
		} else if rng.IntN(4) == 0 {
			k := rng.IntN(70)
			got := r.PopInto(nil, k)
			want := model[:min(k, len(model))]
			if !slices.Equal(got, want) {
				t.Fatalf("step %d: PopInto(%d) = %v, want %v", step, k, got, want)
			}
			model = model[len(want):]
		} else {
			got, ok := r.Pop()
			if len(model) == 0 {
				if ok {
					t.Fatalf("step %d: Pop on empty = %d, true", step, got)
				}
			} else {
				if !ok || got != model[0] {
					t.Fatalf("step %d: Pop = %d, %v; want %d", step, got, ok, model[0])
				}
				model = model[1:]
			}
		}
		c := r.Cap()
		if r.Len() != len(model) || (c != 0 && (c&(c-1) != 0 || c < 8 || r.Len() > c)) {
			t.Fatalf("step %d: Len=%d model=%d Cap=%d breaks the invariants", step, r.Len(), len(model), c)
		}
		if c > 8 && r.Len() < c/4 {
			t.Fatalf("step %d: Len=%d with Cap=%d: a drained ring must shrink", step, r.Len(), c)
		}
	}
}

// TestRingPopIntoMatchesPop: PopInto takes the same elements Pop would, and
// shrinks a drained ring just the same.
func TestRingPopIntoMatchesPop(t *testing.T) {
	tests := []struct {
		name          string
		push, k       int
		wantGot       int
		wantLen, wCap int
	}{
		{"fewer than asked", 3, 10, 3, 0, 4},
		{"exactly k", 10, 10, 10, 0, 4},
		{"part of a burst", 64, 40, 40, 24, 64},
		{"burst drained to a quarter shrinks", 64, 48, 48, 16, 32},
		{"from empty", 0, 5, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRing[int](4)
			for i := range tc.push {
				r.Push(i)
			}
			got := r.PopInto([]int{-1}, tc.k)
			if len(got) != tc.wantGot+1 || got[0] != -1 {
				t.Fatalf("PopInto returned %v", got)
			}
			for i, v := range got[1:] {
				if v != i {
					t.Fatalf("element %d = %d", i, v)
				}
			}
			if r.Len() != tc.wantLen || r.Cap() != tc.wCap {
				t.Fatalf("Len=%d Cap=%d, want %d %d", r.Len(), r.Cap(), tc.wantLen, tc.wCap)
			}
		})
	}
}
