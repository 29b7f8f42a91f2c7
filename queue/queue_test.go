package queue

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
)

// testCtx bounds every wait of a test; reaching it is a failure, not a
// timing assumption.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func newFakeQueue(t *testing.T, h hooks) (*Queue[string], *clock.Fake) {
	t.Helper()
	clk := clock.NewFake(t0)
	q := newWithHooks(Config[string]{Clock: clk}, h)
	t.Cleanup(q.ShutDown)
	return q, clk
}

// mustGet takes a ready key; it fails the test if none is ready.
func mustGet(t *testing.T, q *Queue[string]) string {
	t.Helper()
	if q.Len() == 0 {
		t.Fatal("no key ready")
	}
	k, err := q.Get(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestQueueAddGetDone(t *testing.T) {
	q, _ := newFakeQueue(t, hooks{})
	for _, k := range []string{"b", "a", "b", "c", "a"} {
		q.Add(k)
	}
	if q.Len() != 3 {
		t.Fatalf("Len = %d, want 3 (duplicates folded)", q.Len())
	}
	for _, want := range []string{"b", "a", "c"} {
		if got := mustGet(t, q); got != want {
			t.Fatalf("Get = %q, want %q (FIFO)", got, want)
		}
	}
	q.Add("a") // while held
	if q.Len() != 0 {
		t.Fatal("key held by a worker was handed out again before Done")
	}
	q.Done("a")
	if got := mustGet(t, q); got != "a" {
		t.Fatalf("after Done, Get = %q, want a", got)
	}
	q.Done("a")
	q.Done("b")
	q.Done("c")
	if q.Len() != 0 || q.s.inFlight != 0 || q.s.tracked() != 0 {
		t.Fatalf("state not empty: ready %d inFlight %d items %d", q.Len(), q.s.inFlight, q.s.tracked())
	}
}

func TestQueuePriorityLane(t *testing.T) {
	q, _ := newFakeQueue(t, hooks{})
	for _, k := range []string{"init-1", "init-2", "init-3"} {
		q.AddWithPriority(k, PriorityLow)
	}
	q.Add("fresh")
	q.Add("init-3") // a real event for a key of the initial list
	want := []string{"fresh", "init-3", "init-1", "init-2"}
	for _, w := range want {
		if got := mustGet(t, q); got != w {
			t.Fatalf("Get = %q, want %q", got, w)
		}
	}
}

// blockedGet starts a Get and returns once it is blocked (via the hook).
func blockedGet(t *testing.T, q *Queue[string], blocked <-chan struct{}, ctx context.Context) <-chan error {
	t.Helper()
	res := make(chan error, 1)
	go func() {
		_, err := q.Get(ctx)
		res <- err
	}()
	select {
	case <-blocked:
	case <-testCtx(t).Done():
		t.Fatal("Get never blocked")
	}
	return res
}

func TestGetBlocksUntilAdd(t *testing.T) {
	blocked := make(chan struct{}, 1)
	q, _ := newFakeQueue(t, hooks{blocked: func() { blocked <- struct{}{} }})
	got := make(chan string, 1)
	go func() {
		k, err := q.Get(testCtx(t))
		if err != nil {
			k = err.Error()
		}
		got <- k
	}()
	<-blocked
	q.Add("x")
	if k := <-got; k != "x" {
		t.Fatalf("blocked Get returned %q, want x", k)
	}
}

func TestGetUnblocksOnShutDown(t *testing.T) {
	blocked := make(chan struct{}, 2)
	q, _ := newFakeQueue(t, hooks{blocked: func() { blocked <- struct{}{} }})
	r1 := blockedGet(t, q, blocked, testCtx(t))
	r2 := blockedGet(t, q, blocked, testCtx(t))
	q.ShutDown()
	for _, r := range []<-chan error{r1, r2} {
		if err := <-r; !errors.Is(err, ErrShutDown) {
			t.Fatalf("Get after ShutDown = %v, want ErrShutDown", err)
		}
	}
}

func TestGetHonoursContext(t *testing.T) {
	blocked := make(chan struct{}, 1)
	q, _ := newFakeQueue(t, hooks{blocked: func() { blocked <- struct{}{} }})
	ctx, cancel := context.WithCancel(context.Background())
	r := blockedGet(t, q, blocked, ctx)
	cancel()
	if err := <-r; !errors.Is(err, context.Canceled) {
		t.Fatalf("Get with cancelled ctx = %v, want context.Canceled", err)
	}
	q.lock()
	getters := q.getters
	q.unlock()
	if getters != 0 {
		t.Fatalf("getters = %d after cancelled Get, want 0", getters)
	}
	q.Add("still-works")
	if got := mustGet(t, q); got != "still-works" {
		t.Fatalf("Get = %q", got)
	}
}

func TestShutDownHandsOutReadyKeysThenErrShutDown(t *testing.T) {
	q, _ := newFakeQueue(t, hooks{})
	q.Add("a")
	q.Add("b")
	k := mustGet(t, q) // a, held across the shutdown
	q.Add("a")         // dirty while held
	q.ShutDown()
	q.Add("c") // dropped
	if got := mustGet(t, q); got != "b" {
		t.Fatalf("Get after ShutDown = %q, want b", got)
	}
	if _, err := q.Get(testCtx(t)); !errors.Is(err, ErrShutDown) {
		t.Fatalf("Get on empty shut-down queue = %v, want ErrShutDown", err)
	}
	q.Done(k) // a was re-added before the shutdown: it is ready again
	if got := mustGet(t, q); got != "a" {
		t.Fatalf("Get = %q, want a", got)
	}
	if !q.ShuttingDown() {
		t.Fatal("ShuttingDown = false")
	}
}

func TestShutDownWithDrain(t *testing.T) {
	t.Run("nothing in flight returns at once", func(t *testing.T) {
		q, _ := newFakeQueue(t, hooks{})
		q.Add("ready-but-not-taken")
		if err := q.ShutDownWithDrain(testCtx(t)); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("honours ctx while a key is held", func(t *testing.T) {
		q, _ := newFakeQueue(t, hooks{})
		q.Add("a")
		mustGet(t, q)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := q.ShutDownWithDrain(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("drain with a held key and a done ctx = %v, want context.Canceled", err)
		}
		if !q.ShuttingDown() {
			t.Fatal("queue not shut down after a failed drain")
		}
	})
	t.Run("waits for Done of every held key", func(t *testing.T) {
		q, _ := newFakeQueue(t, hooks{})
		q.Add("a")
		q.Add("b")
		a, b := mustGet(t, q), mustGet(t, q)
		res := make(chan error, 1)
		go func() { res <- q.ShutDownWithDrain(testCtx(t)) }()
		q.Done(a)
		// The drain cannot have finished: b is held. Prove it with a second
		// drain whose ctx is already done.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := q.ShutDownWithDrain(ctx); err == nil {
			t.Fatal("drain reported success while b is held")
		}
		q.Done(b)
		if err := <-res; err != nil {
			t.Fatalf("drain = %v, want nil", err)
		}
	})
}

func TestAddAfterOrderingStepped(t *testing.T) {
	q, clk := newFakeQueue(t, hooks{})
	q.AddAfter("a", 30*time.Millisecond)
	q.AddAfter("b", 10*time.Millisecond)
	q.AddAfter("c", 20*time.Millisecond)
	q.AddAfter("now", 0)
	if got := mustGet(t, q); got != "now" {
		t.Fatalf("AddAfter(0) key = %q, want it ready at once", got)
	}
	clk.Step(9 * time.Millisecond)
	q.flushDue()
	if q.Len() != 0 {
		t.Fatalf("Len at 9ms = %d, want 0", q.Len())
	}
	clk.Step(21 * time.Millisecond) // 30ms: all three due at once
	q.flushDue()
	for _, want := range []string{"b", "c", "a"} {
		if got := mustGet(t, q); got != want {
			t.Fatalf("Get = %q, want %q (deadline order)", got, want)
		}
	}
}

func TestAddAfterEarlierDeadlineWins(t *testing.T) {
	q, clk := newFakeQueue(t, hooks{})
	q.AddAfter("a", 50*time.Millisecond)
	q.AddAfter("a", 10*time.Millisecond)
	q.AddAfter("a", 40*time.Millisecond)
	clk.Step(10 * time.Millisecond)
	q.flushDue()
	if got := mustGet(t, q); got != "a" {
		t.Fatalf("Get = %q", got)
	}
	q.Done("a")
	clk.Step(time.Second)
	q.flushDue()
	if q.Len() != 0 {
		t.Fatal("a key added after three times was queued twice")
	}
}

// TestAddAfterThroughTheLoop lets the queue's own goroutine and timer do the
// work: the test only learns that the timer is armed and steps the clock.
func TestAddAfterThroughTheLoop(t *testing.T) {
	q, clk := newFakeQueue(t, hooks{})
	ctx := testCtx(t)
	q.AddAfter("late", 2*time.Second)
	if err := clk.BlockUntilWaiters(ctx, 1); err != nil {
		t.Fatal(err)
	}
	q.AddAfter("early", time.Second) // re-arms the one timer
	clk.Step(time.Second)
	if k, err := q.Get(ctx); err != nil || k != "early" {
		t.Fatalf("Get = %q, %v; want early", k, err)
	}
	clk.Step(time.Second)
	if k, err := q.Get(ctx); err != nil || k != "late" {
		t.Fatalf("Get = %q, %v; want late", k, err)
	}
	if got := clk.Waiters(); got > 1 {
		t.Fatalf("Waiters = %d: the loop must use one timer", got)
	}
}

func TestAddAfterAfterShutDownIsDropped(t *testing.T) {
	q, clk := newFakeQueue(t, hooks{})
	q.AddAfter("before", time.Second)
	q.ShutDown()
	q.AddAfter("after", time.Second)
	q.AddAfter("after-now", 0)
	if q.delayed.len() != 1 {
		t.Fatalf("delay heap holds %d keys, want only the one added before ShutDown", q.delayed.len())
	}
	clk.Step(time.Hour)
	q.flushDue()
	if q.Len() != 0 {
		t.Fatalf("Len = %d after ShutDown, want 0: delayed keys are discarded", q.Len())
	}
	if _, err := q.Get(testCtx(t)); !errors.Is(err, ErrShutDown) {
		t.Fatalf("Get = %v, want ErrShutDown", err)
	}
}

func TestAddRateLimited(t *testing.T) {
	clk := clock.NewFake(t0)
	q := New(Config[string]{Clock: clk, RateLimiter: NewItemExponential[string](time.Second, time.Minute)})
	defer q.ShutDown()
	q.AddRateLimited("a") // 1s
	q.AddRateLimited("a") // 2s, but the earlier 1s deadline is kept
	if q.NumRequeues("a") != 2 {
		t.Fatalf("NumRequeues = %d, want 2", q.NumRequeues("a"))
	}
	clk.Step(999 * time.Millisecond)
	q.flushDue()
	if q.Len() != 0 {
		t.Fatal("rate-limited key ready before its delay")
	}
	clk.Step(time.Millisecond)
	q.flushDue()
	if k := mustGet(t, q); k != "a" {
		t.Fatalf("Get = %q", k)
	}
	q.Forget("a")
	q.Done("a")
	if q.NumRequeues("a") != 0 {
		t.Fatalf("NumRequeues after Forget = %d", q.NumRequeues("a"))
	}
}

func TestNoMetricsMeansNoTickerAndNoAllocations(t *testing.T) {
	q, clk := newFakeQueue(t, hooks{})
	if q.m != nil || clk.Waiters() != 0 {
		t.Fatalf("queue without metrics has m=%v and %d timers", q.m, clk.Waiters())
	}
	ctx := testCtx(t)
	q.Add("warm")
	k, _ := q.Get(ctx)
	q.Done(k)
	allocs := testing.AllocsPerRun(1000, func() {
		q.Add("k")
		k, _ := q.Get(ctx)
		q.Done(k)
	})
	if allocs != 0 {
		t.Fatalf("Add/Get/Done allocates %.2f per op, want 0", allocs)
	}
}

// Blocked workers are woken one at a time and pass the wake-up on: a burst
// of adds must still reach every one of them.
func TestBurstReachesEveryBlockedGetter(t *testing.T) {
	const n = 8
	blocked := make(chan struct{}, n)
	q, _ := newFakeQueue(t, hooks{blocked: func() { blocked <- struct{}{} }})
	got := make(chan string, n)
	release := make(chan struct{})
	for range n {
		go func() {
			k, err := q.Get(testCtx(t))
			if err != nil {
				k = err.Error()
			}
			got <- k
			<-release // hold the key: the others must be served by others
			q.Done(k)
		}()
	}
	for range n {
		<-blocked
	}
	for i := range n {
		q.Add(string(rune('a' + i)))
	}
	seen := map[string]bool{}
	for range n {
		seen[<-got] = true
	}
	close(release)
	for i := range n {
		if k := string(rune('a' + i)); !seen[k] {
			t.Fatalf("key %s never reached a blocked worker; workers got %v", k, seen)
		}
	}
}
