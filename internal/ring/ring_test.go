package ring

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// check fails t unless r keeps the invariants documented on Ring's fields.
func check[E comparable](t *testing.T, r *Ring[E]) {
	t.Helper()
	c := len(r.buf)
	if c != 0 && (c&(c-1) != 0 || c < StartCap) {
		t.Fatalf("capacity %d is not a power of two ≥ %d", c, StartCap)
	}
	if r.n < 0 || r.n > c || (c == 0 && r.head != 0) || (c > 0 && (r.head < 0 || r.head >= c)) {
		t.Fatalf("head %d, n %d with capacity %d", r.head, r.n, c)
	}
	var zero E
	for i := r.n; i < c; i++ {
		if r.buf[(r.head+i)%c] != zero {
			t.Fatalf("slot %d outside the window [%d, +%d) is not zero: a popped element is still referenced",
				(r.head+i)%c, r.head, r.n)
		}
	}
}

// fill returns a ring that received push elements 0, 1, ... and then gave
// the first pop of them back one Pop at a time.
func fill(t *testing.T, push, pop int) *Ring[int] {
	t.Helper()
	var r Ring[int]
	for i := range push {
		r.Push(i)
	}
	for i := range pop {
		if got, ok := r.Pop(); !ok || got != i {
			t.Fatalf("Pop %d = %d, %v; want %d, true", i, got, ok, i)
		}
	}
	check(t, &r)
	return &r
}

func TestCapacityFollowsTheGrowthAndShrinkRule(t *testing.T) {
	tests := []struct {
		name      string
		push, pop int
		wantCap   int
	}{
		{"the zero ring allocates nothing", 0, 0, 0},
		{"the first push allocates StartCap", 1, 0, StartCap},
		{"a full ring is not grown before it overflows", StartCap, 0, StartCap},
		{"the push that overflows doubles", StartCap + 1, 0, 2 * StartCap},
		{"growth repeats", 1000, 0, 1024},
		{"a ring at or below KeepCap never shrinks", KeepCap, KeepCap, KeepCap},
		{"a small ring never shrinks", 100, 100, 128},
		{"more than an eighth full: no shrink", 4*KeepCap + 1, 3 * KeepCap, 8 * KeepCap},
		{"exactly an eighth full: a quarter of the capacity", 4*KeepCap + 1, 3*KeepCap + 1, 2 * KeepCap},
		{"just above an eighth of 2·KeepCap", KeepCap + 1, KeepCap - KeepCap/4, 2 * KeepCap},
		{"an eighth of 2·KeepCap: KeepCap, not below", KeepCap + 1, KeepCap - KeepCap/4 + 1, KeepCap},
		{"drained burst shrinks step by step down to KeepCap", 8*KeepCap + 1, 8*KeepCap + 1, KeepCap},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := fill(t, tc.push, tc.pop)
			if r.Cap() != tc.wantCap || r.Len() != tc.push-tc.pop {
				t.Fatalf("Cap, Len = %d, %d; want %d, %d", r.Cap(), r.Len(), tc.wantCap, tc.push-tc.pop)
			}
			for i := tc.pop; i < tc.push; i++ {
				if got, ok := r.Pop(); !ok || got != i {
					t.Fatalf("Pop = %d, %v; want %d, true", got, ok, i)
				}
			}
			if got, ok := r.Pop(); ok {
				t.Fatalf("Pop on an empty ring = %d, true", got)
			}
		})
	}
}

// PopInto takes what Pop would take, in the same order, and shrinks by the
// same rule, in one step even when it drains most of a burst at once.
func TestPopInto(t *testing.T) {
	tests := []struct {
		name            string
		push, pop, dst  int
		wantN, wantCap  int
		wrapBeforePopIn bool
	}{
		{"empty ring, empty dst", 0, 0, 0, 0, 0, false},
		{"empty ring", 0, 0, 5, 0, 0, false},
		{"fewer than dst holds", 3, 0, 10, 3, StartCap, false},
		{"exactly dst", 10, 0, 10, 10, StartCap, false},
		{"part of the ring", 10, 0, 4, 4, StartCap, false},
		{"window wraps past the end", 12, 8, 10, 10, StartCap, true},
		{"burst taken in one call shrinks to KeepCap", 8 * KeepCap, 0, 8 * KeepCap, 8 * KeepCap, KeepCap, false},
		{"leaves exactly an eighth: twice the rest", 8 * KeepCap, 0, 7 * KeepCap, 7 * KeepCap, 2 * KeepCap, false},
		{"leaves more than an eighth: keeps", 8 * KeepCap, 0, 7*KeepCap - 1, 7*KeepCap - 1, 8 * KeepCap, false},
		{"leaves a few: straight to KeepCap", 8 * KeepCap, 0, 8*KeepCap - 10, 8*KeepCap - 10, KeepCap, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := fill(t, tc.push, tc.pop)
			next := tc.push
			if tc.wrapBeforePopIn {
				// Refill so the window runs past the end of buf.
				for range tc.pop {
					r.Push(next)
					next++
				}
				if r.head+r.n <= len(r.buf) {
					t.Fatalf("setup: window [%d, +%d) does not wrap in %d slots", r.head, r.n, len(r.buf))
				}
			}
			dst := make([]int, tc.dst+1)
			dst[tc.dst] = -1 // past the slice PopInto gets: must stay
			n := r.PopInto(dst[:tc.dst])
			check(t, r)
			if n != tc.wantN || r.Cap() != tc.wantCap || dst[tc.dst] != -1 {
				t.Fatalf("PopInto = %d with Cap %d, sentinel %d; want %d, %d, -1", n, r.Cap(), dst[tc.dst], tc.wantN, tc.wantCap)
			}
			for i, v := range dst[:n] {
				if v != tc.pop+i {
					t.Fatalf("dst[%d] = %d, want %d", i, v, tc.pop+i)
				}
			}
			for want := tc.pop + n; want < next; want++ {
				if got, ok := r.Pop(); !ok || got != want {
					t.Fatalf("Pop after PopInto = %d, %v; want %d", got, ok, want)
				}
			}
			if r.Len() != 0 {
				t.Fatalf("Len = %d after draining", r.Len())
			}
		})
	}
}

// Growing and shrinking while the window wraps past the end of buf must
// keep the oldest-first order.
func TestResizeWrappedWindow(t *testing.T) {
	var r Ring[int]
	for i := range StartCap {
		r.Push(i)
	}
	for range StartCap / 2 {
		r.Pop()
	}
	for i := range StartCap / 2 {
		r.Push(StartCap + i) // the window now wraps
	}
	if r.head == 0 || r.Cap() != StartCap {
		t.Fatalf("setup: head %d, Cap %d", r.head, r.Cap())
	}
	r.Push(100) // full: grows while wrapped
	check(t, &r)
	want := []int{8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 100}
	got := make([]int, 20)
	got = got[:r.PopInto(got)]
	if !slices.Equal(got, want) {
		t.Fatalf("after growth of a wrapped window: %v, want %v", got, want)
	}

	// Shrinking a wrapped window: 8·KeepCap slots, full and wrapped, then
	// drained to an eighth.
	r.Reset()
	for i := range 8 * KeepCap {
		r.Push(i)
	}
	for range KeepCap / 2 {
		r.Pop()
	}
	for i := range KeepCap / 2 {
		r.Push(8*KeepCap + i) // full again, wrapped
	}
	for range 7*KeepCap - 1 {
		r.Pop()
	}
	if r.Cap() != 8*KeepCap || r.head+r.n <= len(r.buf) {
		t.Fatalf("setup: window [%d, +%d) in %d slots should wrap", r.head, r.n, len(r.buf))
	}
	r.Pop() // an eighth full: shrinks while wrapped
	check(t, &r)
	if r.Cap() != 2*KeepCap || r.Len() != KeepCap {
		t.Fatalf("Cap, Len = %d, %d; want %d, %d", r.Cap(), r.Len(), 2*KeepCap, KeepCap)
	}
	for want := 7*KeepCap + KeepCap/2; want < 8*KeepCap+KeepCap/2; want++ {
		if got, ok := r.Pop(); !ok || got != want {
			t.Fatalf("Pop = %d, %v; want %d", got, ok, want)
		}
	}
}

func TestAt(t *testing.T) {
	r := fill(t, 20, 10) // wraps after two more pushes
	r.Push(20)
	r.Push(21)
	for i := range r.Len() {
		if got := *r.At(i); got != 10+i {
			t.Fatalf("At(%d) = %d, want %d", i, got, 10+i)
		}
	}
	*r.At(r.Len() - 1) = -21
	*r.At(0) = -10
	if got, _ := r.Pop(); got != -10 {
		t.Fatalf("Pop after writing through At(0) = %d", got)
	}
	for _, i := range []int{-1, r.Len(), r.Len() + 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("At(%d) with Len %d did not panic", i, r.Len())
				}
			}()
			r.At(i)
		}()
	}
	var empty Ring[int]
	func() {
		defer func() {
			if recover() == nil {
				t.Errorf("At(0) on an empty ring did not panic")
			}
		}()
		empty.At(0)
	}()
}

func TestReserve(t *testing.T) {
	tests := []struct {
		name          string
		push, reserve int
		wantCap       int
	}{
		{"on the zero ring: at least StartCap", 0, 1, StartCap},
		{"zero on the zero ring allocates nothing", 0, 0, 0},
		{"rounds up to a power of two", 1, 40, 64},
		{"exact power of two", 0, 64, 64},
		{"one past a power of two", 0, 65, 128},
		{"room already there: no change", 10, 6, StartCap},
		{"one more than the room", 10, 7, 2 * StartCap},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := fill(t, tc.push, 0)
			r.Reserve(tc.reserve)
			check(t, r)
			if r.Cap() != tc.wantCap {
				t.Fatalf("Cap after Reserve(%d) with %d elements = %d, want %d", tc.reserve, tc.push, r.Cap(), tc.wantCap)
			}
			before := r.Cap()
			for i := range tc.reserve {
				r.Push(tc.push + i)
			}
			if r.Cap() != before {
				t.Fatalf("Push after Reserve grew %d → %d", before, r.Cap())
			}
			for want := range tc.push + tc.reserve {
				if got, _ := r.Pop(); got != want {
					t.Fatalf("Pop = %d, want %d", got, want)
				}
			}
		})
	}
}

func TestReset(t *testing.T) {
	r := fill(t, 3*KeepCap, 5)
	r.Reset()
	check(t, r)
	if r.Len() != 0 || r.Cap() != 0 {
		t.Fatalf("after Reset Len, Cap = %d, %d; want 0, 0", r.Len(), r.Cap())
	}
	if _, ok := r.Pop(); ok {
		t.Fatal("Pop after Reset returned an element")
	}
	r.Push(7)
	if got, _ := r.Pop(); got != 7 || r.Cap() != StartCap {
		t.Fatalf("after Reset and Push: Pop %d, Cap %d", got, r.Cap())
	}
}

// TestMatchesSliceModel drives a ring and a plain slice with the same random
// operations, in phases that grow and drain it, and checks after each one
// that they agree and that the invariants hold; after every Pop or PopInto
// a ring larger than KeepCap must be more than an eighth full.
func TestMatchesSliceModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var r Ring[int]
	var model []int
	next := 0
	for step := range 300_000 {
		pushBias := 0.8
		if (step/20_000)%2 == 1 {
			pushBias = 0.2
		}
		popped := false
		switch x := rng.Float64(); {
		case x < pushBias:
			before := r.Cap()
			r.Push(next)
			model = append(model, next)
			next++
			if before > 0 && r.Cap() > before && r.Cap() >= 2*r.Len() {
				t.Fatalf("step %d: a Push doubled the ring to %d slots for %d elements: want fewer than 2·Len()", step, r.Cap(), r.Len())
			}
		case x < pushBias+0.01:
			k := rng.IntN(200)
			r.Reserve(k)
			if r.Cap()-r.Len() < k {
				t.Fatalf("step %d: Reserve(%d) left room for %d", step, k, r.Cap()-r.Len())
			}
		case x < pushBias+0.02 && len(model) > 0:
			i := rng.IntN(len(model))
			if got := *r.At(i); got != model[i] {
				t.Fatalf("step %d: At(%d) = %d, want %d", step, i, got, model[i])
			}
		case x < pushBias+0.1:
			dst := make([]int, rng.IntN(300))
			got := dst[:r.PopInto(dst)]
			want := model[:min(len(dst), len(model))]
			if !slices.Equal(got, want) {
				t.Fatalf("step %d: PopInto(%d) = %v, want %v", step, len(dst), got, want)
			}
			model = model[len(want):]
			popped = true
		default:
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
			popped = true
		}
		if r.Len() != len(model) {
			t.Fatalf("step %d: Len %d, model %d", step, r.Len(), len(model))
		}
		if popped && r.Cap() > KeepCap && r.Cap() >= 8*r.Len() {
			t.Fatalf("step %d: Len %d with Cap %d after a pop: want fewer than 8·Len() slots or at most KeepCap", step, r.Len(), r.Cap())
		}
		if step%97 == 0 {
			check(t, &r)
		}
	}
	if next < 100_000 {
		t.Fatalf("only %d pushes: the phases did not build bursts", next)
	}
}

// Allocation counts: steady-state operations allocate nothing; growth and
// shrinking allocate once per doubling or per shrink, never per element.
func TestAllocations(t *testing.T) {
	type big struct{ a, b, c *int }
	steady := fill(t, 100, 0)
	p := new(int)
	var bigRing Ring[big]
	for range 100 {
		bigRing.Push(big{p, p, p})
	}
	dst := make([]int, 64)
	// hover has 4096 slots and 600 elements, more than an eighth.
	hover := fill(t, 2*KeepCap+1, 2*KeepCap+1-600)
	// atKeep has KeepCap slots and fewer than an eighth of them in use.
	atKeep := fill(t, KeepCap, KeepCap-10)
	full := fill(t, 1<<14, 0)
	drainDst := make([]int, 1<<14)
	tests := []struct {
		name string
		// want counts the allocations of f, setup is how many of them
		// come from f's own setup rather than the ring.
		want, setup float64
		f           func()
	}{
		{"Push+Pop at steady depth", 0, 0, func() { steady.Push(1); steady.Pop() }},
		{"Push+Pop of a 24-byte element", 0, 0, func() { bigRing.Push(big{p, p, p}); bigRing.Pop() }},
		{"64 Pushes + PopInto(64)", 0, 0, func() {
			for i := range 64 {
				steady.Push(i)
			}
			steady.PopInto(dst)
		}},
		{"At", 0, 0, func() { *steady.At(50)++ }},
		{"Reserve within the room", 0, 0, func() { steady.Reserve(steady.Cap() - steady.Len()) }},
		{"Pop on empty", 0, 0, func() {
			var r Ring[int]
			r.Pop()
		}},
		{"hovering between 600 and 2000 elements in 4096 slots", 0, 0, func() {
			for range 1400 {
				hover.Push(1)
			}
			for range 1400 {
				hover.Pop()
			}
		}},
		{"Push+Pop in a KeepCap ring under an eighth full", 0, 0, func() { atKeep.Push(1); atKeep.Pop() }},
		{"growing from zero to 16384: one allocation per doubling", 11, 0, func() {
			var r Ring[int]
			for i := range 1 << 14 {
				r.Push(i)
			}
		}},
		{"draining 16384 one at a time: one allocation per shrink (to 4096, to 1024)", 2, 1, func() {
			r := Ring[int]{buf: slices.Clone(full.buf), head: full.head, n: full.n}
			for range r.Len() {
				r.Pop()
			}
		}},
		{"draining 16384 at once: one allocation", 1, 1, func() {
			r := Ring[int]{buf: slices.Clone(full.buf), head: full.head, n: full.n}
			r.PopInto(drainDst)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := testing.AllocsPerRun(20, tc.f) - tc.setup; got != tc.want {
				t.Fatalf("%v allocations per run, want %v", got, tc.want)
			}
		})
	}
	if hover.Cap() != 4*KeepCap || hover.Len() != 600 || atKeep.Cap() != KeepCap {
		t.Fatalf("hover ring ended with Cap %d, Len %d", hover.Cap(), hover.Len())
	}
}
