package ctrl

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/queue"
)

var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

const loopName = "test-controller"

// harness runs a Loop on a fake clock inside a synctest bubble and
// records every sync call with the fake time it started at.
type harness struct {
	clk    *clock.Fake
	reg    *prometheus.Registry
	m      *Metrics
	loop   *Loop
	cancel context.CancelFunc
	runErr chan error

	mu    sync.Mutex
	calls []call
}

type call struct {
	key string
	at  time.Duration // since t0
}

// start runs a loop with workers workers whose sync records the call and
// then runs fn. The rate limiter is per-key exponential from 1 s unless o
// sets one, so that backoffs are easy to read.
func start(t *testing.T, fn SyncFunc, o LoopOptions, workers int) *harness {
	t.Helper()
	h := &harness{clk: clock.NewFake(t0), reg: prometheus.NewRegistry(), runErr: make(chan error, 1)}
	m, err := NewMetrics(h.reg)
	if err != nil {
		t.Fatal(err)
	}
	h.m = m
	o.Clock, o.Metrics = h.clk, m
	if o.RateLimiter == nil {
		o.RateLimiter = queue.NewItemExponential[string](time.Second, time.Minute)
	}
	h.loop = NewLoop(loopName, func(ctx context.Context, key string) (Result, error) {
		h.mu.Lock()
		h.calls = append(h.calls, call{key, h.clk.Since(t0)})
		h.mu.Unlock()
		return fn(ctx, key)
	}, o)
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() { h.runErr <- h.loop.Run(ctx, workers) }()
	synctest.Wait()
	return h
}

func (h *harness) add(keys ...string) {
	for _, k := range keys {
		h.loop.Queue().Add(k)
	}
	synctest.Wait()
}

// step moves the fake clock and lets every goroutine settle.
func (h *harness) step(d time.Duration) {
	h.clk.Step(d)
	synctest.Wait()
}

func (h *harness) stop(t *testing.T) error {
	t.Helper()
	h.cancel()
	return <-h.runErr
}

func (h *harness) got() []call {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.calls)
}

func (h *harness) total(result string) float64 {
	return testutil.ToFloat64(h.m.total.WithLabelValues(loopName, result))
}

func wantCalls(t *testing.T, h *harness, want ...call) {
	t.Helper()
	if got := h.got(); !slices.Equal(got, want) {
		t.Fatalf("sync calls = %v, want %v", got, want)
	}
}

// TestErrorRequeuesWithBackoff: a failing key comes back after the rate
// limiter's delay — 1 s, 2 s, 4 s — and not before; success then Forgets
// the backoff, so the next failure waits 1 s again.
func TestErrorRequeuesWithBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fail atomic.Int32
		fail.Store(3)
		h := start(t, func(context.Context, string) (Result, error) {
			if fail.Add(-1) >= 0 {
				return Result{}, errors.New("apiserver says no")
			}
			return Result{}, nil
		}, LoopOptions{}, 1)
		h.add("ns/a")
		wantCalls(t, h, call{"ns/a", 0})
		if n := h.loop.Queue().NumRequeues("ns/a"); n != 1 {
			t.Fatalf("NumRequeues after one failure = %d", n)
		}
		h.step(999 * time.Millisecond)
		wantCalls(t, h, call{"ns/a", 0}) // not before the backoff
		h.step(time.Millisecond)
		h.step(2 * time.Second)
		h.step(4 * time.Second)
		wantCalls(t, h, call{"ns/a", 0}, call{"ns/a", time.Second}, call{"ns/a", 3 * time.Second}, call{"ns/a", 7 * time.Second})
		if n := h.loop.Queue().NumRequeues("ns/a"); n != 0 {
			t.Fatalf("success did not Forget: NumRequeues = %d", n)
		}
		if h.total(resultError) != 3 || h.total(resultSuccess) != 1 || testutil.ToFloat64(h.m.errors.WithLabelValues(loopName)) != 3 {
			t.Errorf("reconcile_total error=%v success=%v", h.total(resultError), h.total(resultSuccess))
		}
		if got := metricValue(t, h.reg, "workqueue_retries_total", "name", loopName); got != 3 {
			t.Errorf("workqueue_retries_total{name=%s} = %v, want 3", loopName, got)
		}
		// Forgotten: a new failure starts from the base delay again.
		fail.Store(1)
		h.add("ns/a")
		h.step(time.Second)
		if got := h.got(); len(got) != 6 || got[5].at-got[4].at != time.Second {
			t.Fatalf("after Forget the backoff did not restart: %v", got)
		}
		if err := h.stop(t); err != nil {
			t.Fatal(err)
		}
	})
}

// TestRequeueAfter: a Result.RequeueAfter syncs the key again after the
// delay, Forgets the backoff and counts as requeue_after.
func TestRequeueAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int32
		h := start(t, func(context.Context, string) (Result, error) {
			if n.Add(1) == 1 {
				return Result{}, errors.New("first attempt fails")
			}
			return Result{RequeueAfter: 30 * time.Second}, nil
		}, LoopOptions{}, 2)
		h.add("ns/a")
		h.step(time.Second) // the retry
		if got := h.loop.Queue().NumRequeues("ns/a"); got != 0 {
			t.Fatalf("RequeueAfter did not Forget the backoff: NumRequeues = %d", got)
		}
		h.step(30*time.Second - time.Nanosecond)
		if len(h.got()) != 2 {
			t.Fatalf("synced before RequeueAfter passed: %v", h.got())
		}
		h.step(time.Nanosecond)
		wantCalls(t, h, call{"ns/a", 0}, call{"ns/a", time.Second}, call{"ns/a", 31 * time.Second})
		if h.total(resultRequeueAfter) != 2 || h.total(resultError) != 1 || h.total(resultSuccess) != 0 {
			t.Errorf("reconcile_total requeue_after=%v error=%v success=%v", h.total(resultRequeueAfter), h.total(resultError), h.total(resultSuccess))
		}
		if err := h.stop(t); err != nil {
			t.Fatal(err)
		}
	})
}

// TestRequeue: Result.Requeue syncs the key again after the rate
// limiter's growing backoff — 1 s, then 2 s — without counting an error,
// and a later plain success Forgets the backoff.
func TestRequeue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int32
		h := start(t, func(context.Context, string) (Result, error) {
			return Result{Requeue: n.Add(1) <= 2}, nil
		}, LoopOptions{}, 1)
		h.add("ns/a")
		h.step(999 * time.Millisecond)
		wantCalls(t, h, call{"ns/a", 0})
		h.step(time.Millisecond)
		h.step(1999 * time.Millisecond)
		wantCalls(t, h, call{"ns/a", 0}, call{"ns/a", time.Second}) // the backoff grew to 2 s
		h.step(time.Millisecond)
		wantCalls(t, h, call{"ns/a", 0}, call{"ns/a", time.Second}, call{"ns/a", 3 * time.Second})
		if got := h.loop.Queue().NumRequeues("ns/a"); got != 0 {
			t.Fatalf("the final success did not Forget: NumRequeues = %d", got)
		}
		if h.total(resultRequeue) != 2 || h.total(resultError) != 0 || h.total(resultSuccess) != 1 {
			t.Errorf("reconcile_total requeue=%v error=%v success=%v", h.total(resultRequeue), h.total(resultError), h.total(resultSuccess))
		}
		if err := h.stop(t); err != nil {
			t.Fatal(err)
		}
	})
}

// TestPanicRecovered: a panicking sync is recovered, counted as a panic
// and an error, retried with backoff; the worker — the only one — goes on
// with other keys.
func TestPanicRecovered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var once atomic.Bool
		h := start(t, func(_ context.Context, key string) (Result, error) {
			if key == "ns/bad" && !once.Swap(true) {
				panic("nil map")
			}
			return Result{}, nil
		}, LoopOptions{}, 1)
		h.add("ns/bad", "ns/good")
		wantCalls(t, h, call{"ns/bad", 0}, call{"ns/good", 0})
		if p := testutil.ToFloat64(h.m.panics.WithLabelValues(loopName)); p != 1 {
			t.Errorf("reconcile_panics_total = %v, want 1", p)
		}
		if h.total(resultError) != 1 || h.total(resultSuccess) != 1 {
			t.Errorf("reconcile_total error=%v success=%v", h.total(resultError), h.total(resultSuccess))
		}
		h.step(time.Second)
		wantCalls(t, h, call{"ns/bad", 0}, call{"ns/good", 0}, call{"ns/bad", time.Second})
		if err := h.stop(t); err != nil {
			t.Fatal(err)
		}
	})
}

func TestCallWrapsPanic(t *testing.T) {
	l := NewLoop("p", func(context.Context, string) (Result, error) { panic(42) }, LoopOptions{})
	defer l.Queue().ShutDown()
	res, err := l.call(context.Background(), "k")
	if !errors.Is(err, ErrPanic) || err.Error() != "ctrl: sync panicked: 42" || res != (Result{}) {
		t.Fatalf("call = %v, %v", res, err)
	}
}

// TestKeyNeverSyncedConcurrently: with four workers, a key added again
// while a worker syncs it waits for that sync to end, then is synced once
// more; other keys proceed meanwhile.
func TestKeyNeverSyncedConcurrently(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var inA, maxA atomic.Int32
		release := make(chan struct{})
		h := start(t, func(_ context.Context, key string) (Result, error) {
			if key == "ns/a" {
				n := inA.Add(1)
				if n > maxA.Load() {
					maxA.Store(n)
				}
				<-release
				inA.Add(-1)
			}
			return Result{}, nil
		}, LoopOptions{}, 4)
		h.add("ns/a")
		h.add("ns/a", "ns/a", "ns/b")
		wantCalls(t, h, call{"ns/a", 0}, call{"ns/b", 0})
		release <- struct{}{}
		synctest.Wait()
		wantCalls(t, h, call{"ns/a", 0}, call{"ns/b", 0}, call{"ns/a", 0})
		close(release)
		synctest.Wait()
		if maxA.Load() != 1 {
			t.Fatalf("ns/a was synced by %d workers at once", maxA.Load())
		}
		if len(h.got()) != 3 {
			t.Fatalf("the adds during the sync should make exactly one more sync: %v", h.got())
		}
		if err := h.stop(t); err != nil {
			t.Fatal(err)
		}
	})
}

// TestDrainWaitsForInFlight: once Run's context ends no new key starts,
// but the sync in flight finishes — on a context that was not cancelled —
// before Run returns.
func TestDrainWaitsForInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var cancelledEarly atomic.Bool
		h := start(t, func(ctx context.Context, key string) (Result, error) {
			if key == "ns/slow" {
				<-release
				cancelledEarly.Store(ctx.Err() != nil)
			}
			return Result{}, nil
		}, LoopOptions{DrainTimeout: time.Minute}, 1)
		h.add("ns/slow", "ns/next")
		h.cancel()
		synctest.Wait()
		select {
		case err := <-h.runErr:
			t.Fatalf("Run returned %v with a sync in flight", err)
		default:
		}
		close(release)
		if err := <-h.runErr; err != nil {
			t.Fatalf("Run = %v, want nil after a drain in time", err)
		}
		wantCalls(t, h, call{"ns/slow", 0}) // ns/next was not started
		if cancelledEarly.Load() {
			t.Error("the in-flight sync's context was cancelled before the drain timeout")
		}
		h.loop.Queue().Add("ns/late") // the queue is shut down: dropped
		if h.loop.Queue().Len() != 0 {
			t.Error("the queue still takes keys after Run returned")
		}
	})
}

// TestDrainIsBounded: a sync that outlives the drain timeout has its
// context cancelled and Run returns ErrDrainTimeout at the timeout.
func TestDrainIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stuck := make(chan struct{})
		h := start(t, func(ctx context.Context, _ string) (Result, error) {
			<-ctx.Done()
			close(stuck)
			return Result{}, ctx.Err()
		}, LoopOptions{DrainTimeout: 10 * time.Second}, 2)
		h.add("ns/stuck")
		h.cancel()
		synctest.Wait()
		h.step(10*time.Second - time.Nanosecond)
		select {
		case err := <-h.runErr:
			t.Fatalf("Run returned %v before the drain timeout", err)
		default:
		}
		h.step(time.Nanosecond)
		if err := <-h.runErr; !errors.Is(err, ErrDrainTimeout) {
			t.Fatalf("Run = %v, want ErrDrainTimeout", err)
		}
		<-stuck // its context was cancelled
	})
}

// TestMaxRetriesDrops: past MaxRetries a failing key is forgotten and
// not re-added.
func TestMaxRetriesDrops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, func(context.Context, string) (Result, error) {
			return Result{}, errors.New("always")
		}, LoopOptions{MaxRetries: 2}, 1)
		h.add("ns/a")
		h.step(time.Second)
		h.step(2 * time.Second)
		h.step(time.Hour)
		wantCalls(t, h, call{"ns/a", 0}, call{"ns/a", time.Second}, call{"ns/a", 3 * time.Second})
		if n := h.loop.Queue().NumRequeues("ns/a"); n != 0 {
			t.Errorf("a dropped key keeps its backoff: NumRequeues = %d", n)
		}
		if h.total(resultError) != 3 {
			t.Errorf("reconcile_total{error} = %v, want 3", h.total(resultError))
		}
		if err := h.stop(t); err != nil {
			t.Fatal(err)
		}
	})
}

type fakeSynced struct {
	name string
	ok   atomic.Bool
}

func (f *fakeSynced) HasSynced() bool { return f.ok.Load() }
func (f *fakeSynced) Name() string    { return f.name }

// TestWaitsForCaches: no worker starts before the caches synced; a
// context that ends first makes Run return ErrCacheNotSynced.
func TestWaitsForCaches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pods := &fakeSynced{name: "pods"}
		h := start(t, func(context.Context, string) (Result, error) { return Result{}, nil },
			LoopOptions{Synced: []informer.Synced{pods}}, 1)
		h.add("ns/a")
		h.step(time.Second)
		if len(h.got()) != 0 {
			t.Fatal("a worker ran before the cache synced")
		}
		pods.ok.Store(true)
		h.step(100 * time.Millisecond)
		wantCalls(t, h, call{"ns/a", time.Second + 100*time.Millisecond})
		if err := h.stop(t); err != nil {
			t.Fatal(err)
		}

		never := &fakeSynced{name: "replicasets"}
		h = start(t, func(context.Context, string) (Result, error) { return Result{}, nil },
			LoopOptions{Synced: []informer.Synced{pods, never}}, 1)
		if err := h.stop(t); !errors.Is(err, ErrCacheNotSynced) || !strings.Contains(err.Error(), "replicasets") {
			t.Fatalf("Run = %v, want ErrCacheNotSynced naming replicasets", err)
		}
	})
}

func TestRunOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, func(context.Context, string) (Result, error) { return Result{}, nil }, LoopOptions{}, 3)
		if g := testutil.ToFloat64(h.m.maxConc.WithLabelValues(loopName)); g != 3 {
			t.Errorf("max_concurrent_reconciles = %v, want 3", g)
		}
		if err := h.loop.Run(context.Background(), 1); !errors.Is(err, ErrAlreadyRun) {
			t.Fatalf("second Run = %v, want ErrAlreadyRun", err)
		}
		if err := h.stop(t); err != nil {
			t.Fatal(err)
		}
		if h.loop.Name() != loopName {
			t.Errorf("Name = %q", h.loop.Name())
		}
	})
}

// TestLoopRunsEvents: the loop runs its controller's broadcaster while it
// runs, so an event recorded by a sync is written, and stops it after.
func TestLoopRunsEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := newMemSink()
		b, _, _ := newTestBroadcaster(t, sink, BroadcasterOptions{})
		rec := b.NewRecorder("test-controller")
		cc := ControllerContext{Clock: clock.NewFake(t0)}
		l := cc.NewLoop(loopName, func(_ context.Context, key string) (Result, error) {
			rec.Eventf(rsRef, api.EventTypeNormal, ReasonSuccessfulCreate, "synced %s", key)
			return Result{}, nil
		}, LoopOptions{Events: b})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- l.Run(ctx, 1) }()
		l.Queue().Add("ns/a")
		synctest.Wait()
		if calls := sink.got(); len(calls) != 1 || !strings.HasPrefix(calls[0], "create ns/web-5d4f.") {
			t.Fatalf("sink calls %q", calls)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		rec.Event(rsRef, api.EventTypeNormal, "After", "stop")
		synctest.Wait()
		if len(sink.got()) != 1 {
			t.Fatal("the broadcaster still writes after Run returned")
		}
	})
}
