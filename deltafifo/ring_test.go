package deltafifo

import (
	"context"
	"fmt"
	"testing"
)

func TestRingOrderAcrossWrapAndGrowth(t *testing.T) {
	var r ring[int]
	next, want := 0, 0
	dst := make([]int, 7)
	// Interleave pushes and pops so head wraps around several times while
	// the buffer grows.
	for round := 0; round < 50; round++ {
		for i := 0; i < round; i++ {
			r.push(next)
			next++
		}
		n := r.popInto(dst[:round%7])
		for _, v := range dst[:n] {
			if v != want {
				t.Fatalf("round %d: popped %d, want %d", round, v, want)
			}
			want++
		}
		if r.len() != next-want {
			t.Fatalf("len = %d, want %d", r.len(), next-want)
		}
	}
	for r.len() > 0 {
		n := r.popInto(dst)
		for _, v := range dst[:n] {
			if v != want {
				t.Fatalf("drain: popped %d, want %d", v, want)
			}
			want++
		}
	}
	if c := r.capacity(); c&(c-1) != 0 {
		t.Errorf("capacity %d is not a power of two", c)
	}
}

func TestRingClearsPoppedSlots(t *testing.T) {
	var r ring[*int]
	for i := 0; i < 10; i++ {
		r.push(new(int))
	}
	r.popInto(make([]*int, 4))
	live := 0
	for _, p := range r.buf {
		if p != nil {
			live++
		}
	}
	if live != 6 {
		t.Errorf("%d non-nil slots, want 6: popped slots must not pin objects", live)
	}
}

// A 50k-item initial list must not leave a 50k-slot queue behind.
func TestQueueShrinksAfterBurst(t *testing.T) {
	const n = 50_000
	f := New(Options[*obj]{})
	r := f.StartReplace("1")
	for i := 0; i < n; i++ {
		if err := r.Add(mk(fmt.Sprintf("ns/p%d", i), "1")); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Finish(); err != nil {
		t.Fatal(err)
	}
	peak := f.queue.capacity()
	if peak < n {
		t.Fatalf("peak capacity %d < %d", peak, n)
	}
	for f.Len() > 0 {
		if err := f.Pop(context.Background(), 500, func([]Delta[*obj]) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if c := f.queue.capacity(); c > keepRing {
		t.Errorf("capacity after drain = %d (peak %d), want ≤ %d", c, peak, keepRing)
	}
	if len(f.keys) != 0 || !f.HasSynced() {
		t.Errorf("keys=%d synced=%v after drain", len(f.keys), f.HasSynced())
	}
}
