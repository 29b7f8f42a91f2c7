package deltafifo

import (
	"context"
	"fmt"
	"testing"

	"github.com/kcmlab/kcm/internal/ring"
)

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
	peak := f.queue.Cap()
	if peak < n {
		t.Fatalf("peak capacity %d < %d", peak, n)
	}
	for f.Len() > 0 {
		if err := f.Pop(context.Background(), 500, func([]Delta[*obj]) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if c := f.queue.Cap(); c > ring.KeepCap {
		t.Errorf("capacity after drain = %d (peak %d), want ≤ %d", c, peak, ring.KeepCap)
	}
	if len(f.keys) != 0 || !f.HasSynced() {
		t.Errorf("keys=%d synced=%v after drain", len(f.keys), f.HasSynced())
	}
}

// A steady stream of Update and Pop allocates nothing once the queue, the
// key map and the batch slice have their size: Pop reuses its batch slice
// whenever it is large enough, including a batch of exactly its length.
func TestSteadyAddPopAllocatesNothing(t *testing.T) {
	objs, keys := benchObjs(8)
	f := New(Options[*obj]{KeyFunc: cachedKey(keys)})
	ctx := context.Background()
	round := func() {
		for _, o := range objs {
			if err := f.Update(o); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Pop(ctx, len(objs), nop); err != nil {
			t.Fatal(err)
		}
	}
	round() // sizes the batch slice to exactly len(objs)
	if got := testing.AllocsPerRun(100, round); got != 0 {
		t.Fatalf("%v allocations per Update×%d + Pop, want 0", got, len(objs))
	}
}
