package queue

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestOpRing: operations come out in the order they were posted, across
// many laps of the ring, and a full ring refuses a post instead of
// overwriting an operation not yet applied.
func TestOpRing(t *testing.T) {
	r := newOpRing[string]()
	if r.waiting() {
		t.Fatal("a new ring has an operation waiting")
	}
	next := 0
	posted := 0
	for lap := range 5 {
		// Fill the ring completely, then drain most of it, so that
		// positions wrap at a different cell each lap.
		for i := 0; i < 2*opSlots && r.post(fmt.Sprint(posted), uint32(posted), opDone); i++ {
			posted++
		}
		if got := posted - next; got != opSlots {
			t.Fatalf("lap %d: the ring took %d operations before refusing, want %d", lap, got, opSlots)
		}
		for range opSlots - 3*lap - 1 {
			k, h, kind, ok := r.take()
			if !ok || k != fmt.Sprint(next) || h != uint32(next) || kind != opDone {
				t.Fatalf("lap %d: take = %q %d %d %v, want %d", lap, k, h, kind, ok, next)
			}
			next++
		}
		if !r.waiting() {
			t.Fatalf("lap %d: operations are left but waiting says none", lap)
		}
	}
	for next < posted {
		if k, _, _, ok := r.take(); !ok || k != fmt.Sprint(next) {
			t.Fatalf("draining: take = %q %v, want %d", k, ok, next)
		}
		next++
	}
	if r.waiting() {
		t.Fatal("an empty ring says an operation is waiting")
	}
	if _, _, _, ok := r.take(); ok {
		t.Fatal("take from an empty ring succeeded")
	}
}

// combiningQueue is a queue that posts when its lock is busy, whatever
// GOMAXPROCS is.
func combiningQueue() *Queue[string] { return newWithHooks(Config[string]{}, hooks{combine: on}) }

// whileHeld runs f on another goroutine while the test holds the queue's
// lock, and fails if f does not return: Add and Done must not wait for a
// busy lock while the ring has room.
func whileHeld(t *testing.T, q *Queue[string], f func()) {
	t.Helper()
	q.mu.Lock()
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		f()
	}()
	select {
	case <-returned:
	case <-time.After(time.Minute): // only turns a hang into a failure
		q.mu.Unlock()
		<-returned
		t.Fatal("Add/Done waited for the busy lock instead of posting")
	}
}

// TestPostedAddsAreAppliedWhenTheHolderReleases: adds made while the lock
// is busy return at once and are applied, in order, by the holder's unlock
// — not left for whoever takes the lock next, which may be nobody.
func TestPostedAddsAreAppliedWhenTheHolderReleases(t *testing.T) {
	q := combiningQueue()
	defer q.ShutDown()
	whileHeld(t, q, func() {
		q.Add("a")
		q.AddWithPriority("low", PriorityLow)
		q.Add("b")
		q.Add("a") // a duplicate, applied as one
	})
	if q.s.ready != 0 {
		t.Fatalf("ready = %d while the lock was held, want 0 (the adds are posted)", q.s.ready)
	}
	q.unlock()
	q.mu.Lock() // the raw lock: look without applying anything
	ready, waiting := q.s.ready, q.ops.waiting()
	q.mu.Unlock()
	if ready != 3 || waiting {
		t.Fatalf("after the holder's unlock: ready %d, still posted %v; want 3 ready and nothing posted", ready, waiting)
	}
	for _, want := range []string{"a", "b", "low"} {
		if got := mustGet(t, q); got != want {
			t.Fatalf("Get = %q, want %q (posted adds keep their order; the low lane comes last)", got, want)
		}
	}
}

// TestPostedDoneRequeuesAndDrains: a Done posted while the lock is busy
// has its full effect once applied — a key added while held becomes ready
// again, and a draining shutdown sees the last key finished.
func TestPostedDoneRequeuesAndDrains(t *testing.T) {
	q := combiningQueue()
	q.Add("k")
	if got := mustGet(t, q); got != "k" {
		t.Fatalf("Get = %q", got)
	}
	q.Add("k") // held: ready again after Done
	whileHeld(t, q, func() { q.Done("k") })
	q.unlock()
	if got := mustGet(t, q); got != "k" {
		t.Fatalf("Get = %q, want k again (added while held)", got)
	}
	whileHeld(t, q, func() { q.Done("k") })
	q.unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := q.ShutDownWithDrain(ctx); err != nil {
		t.Fatalf("ShutDownWithDrain after a posted Done: %v", err)
	}
}

// TestFullRingWaitsForTheLock: once the ring is full an Add waits for the
// lock rather than dropping its key; every key arrives, in order.
func TestFullRingWaitsForTheLock(t *testing.T) {
	q := combiningQueue()
	defer q.ShutDown()
	const n = opSlots + 40
	q.mu.Lock()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range n {
			q.Add(fmt.Sprint(i))
		}
	}()
	// The adder fills the ring and then queues on the lock; release it
	// only once the ring is full, so that the waiting path is taken.
	for q.ops.tail.Load()-q.ops.head.Load() < opSlots {
		runtime.Gosched()
	}
	q.unlock()
	wg.Wait()
	for i := range n {
		if got := mustGet(t, q); got != fmt.Sprint(i) {
			t.Fatalf("Get = %q, want %d", got, i)
		}
	}
}

// TestCombiningUnderContention: many adders and workers on one queue; every
// key added is processed after its last add and none is processed by two
// workers at once (the stress test's rules), with the ring in use.
func TestCombiningUnderContention(t *testing.T) {
	q := newWithHooks(Config[int]{}, hooks{combine: on})
	q.mu.Lock()
	q.mu.Unlock()
	const adders, workers, keys, rounds = 4, 4, 64, 3000
	var mu sync.Mutex
	last := make([]int, keys)     // round of the last add, per key
	seen := make([]int, keys)     // round last seen by a worker
	holding := make([]bool, keys) // held by a worker now
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k, err := q.Get(ctx)
				if err != nil {
					return
				}
				mu.Lock()
				if holding[k] {
					mu.Unlock()
					t.Errorf("worker %d: key %d handed out while held", w, k)
					return
				}
				holding[k] = true
				seen[k] = last[k]
				mu.Unlock()
				mu.Lock()
				holding[k] = false
				mu.Unlock()
				q.Done(k)
			}
		}()
	}
	var add sync.WaitGroup
	for a := range adders {
		add.Add(1)
		go func() {
			defer add.Done()
			for r := 1; r <= rounds; r++ {
				k := (r*7 + a*13) % keys
				mu.Lock()
				last[k] = max(last[k], r)
				mu.Unlock()
				q.Add(k)
			}
		}()
	}
	add.Wait()
	if err := q.ShutDownWithDrain(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for k := range keys {
		if last[k] != 0 && seen[k] != last[k] {
			t.Fatalf("key %d: last added in round %d but last processed at round %d: an add was lost", k, last[k], seen[k])
		}
	}
}

// TestPostedAddAfterShutDownIsDropped: like a direct Add after ShutDown, a
// posted one changes nothing.
func TestPostedAddAfterShutDownIsDropped(t *testing.T) {
	q := combiningQueue()
	q.ShutDown()
	whileHeld(t, q, func() { q.Add("late") })
	q.unlock()
	if n := q.Len(); n != 0 {
		t.Fatalf("Len = %d after a posted Add following ShutDown, want 0", n)
	}
}

// TestLockAppliesPostedFirst: an operation still in the ring when someone
// else takes the lock (its poster's look at the ring has not happened yet)
// is applied before that caller's own work, so a caller never sees the
// queue without an Add that returned before its call began.
func TestLockAppliesPostedFirst(t *testing.T) {
	q := combiningQueue()
	defer q.ShutDown()
	whileHeld(t, q, func() { q.Add("first") })
	q.mu.Unlock() // released without looking at the ring
	if n := q.Len(); n != 1 {
		t.Fatalf("Len = %d with an Add posted before the call, want 1", n)
	}
	if got := mustGet(t, q); got != "first" {
		t.Fatalf("Get = %q, want first", got)
	}
}

// TestNoCombiningOnOneProcessor: a queue made with GOMAXPROCS 1 waits for
// the lock instead of posting (a busy lock there means a descheduled
// holder, which parking runs at once).
func TestNoCombiningOnOneProcessor(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	q := New(Config[string]{})
	defer q.ShutDown()
	q.mu.Lock()
	added := make(chan struct{})
	go func() {
		defer close(added)
		q.Add("k")
	}()
	runtime.Gosched() // on one processor the adder now runs into the held lock
	q.unlock()
	<-added
	if n := q.ops.tail.Load(); n != 0 {
		t.Fatalf("Add posted %d operations to the ring on one processor, want 0", n)
	}
	if got := mustGet(t, q); got != "k" {
		t.Fatalf("Get = %q", got)
	}
}
