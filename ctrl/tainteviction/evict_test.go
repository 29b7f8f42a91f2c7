package tainteviction

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/internal/testing/resttest"
)

// startEviction decides node n1 (tainted, pod p untolerating) and runs
// p's eviction in a goroutine; the result arrives on the channel.
func startEviction(t *testing.T, f *fixture, ctx context.Context) <-chan error {
	t.Helper()
	f.setPod(newPod("p", "n1"))
	f.setNode(newNode("n1", unreachable))
	if _, err := f.c.Sync(ctx, nodeKey("n1")); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := f.c.Sync(ctx, evictKey("ns/p"))
		done <- err
	}()
	return done
}

// stepRetries waits for the eviction to wait for its retry interval and
// steps the clock by it, n times; an eviction that ends before is a
// failure (its error comes back on a fresh channel for the caller).
func stepRetries(t *testing.T, f *fixture, ctx context.Context, done <-chan error, n int) <-chan error {
	t.Helper()
	for i := range n {
		waiting, stop := context.WithCancel(ctx)
		w := make(chan error, 1)
		go func() { w <- f.clock.BlockUntilWaiters(waiting, 1) }()
		select {
		case err := <-done:
			stop()
			<-w
			t.Fatalf("the eviction ended after %d attempts, want %d retries first: %v", i+1, n, err)
		case err := <-w:
			stop()
			if err != nil {
				t.Fatal(err)
			}
		}
		f.clock.Step(RetryInterval)
	}
	return done
}

// TestEvictionRetries: a failed attempt is retried 10 ms later (on the
// clock), up to 5 attempts in all (upstream deletePodHandler's retries);
// the condition, once written, is not patched again.
func TestEvictionRetries(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only turns a hang into a failure
	defer cancel()
	f.api.Fail(resttest.On("delete", "pods").Times(2), resttest.Failure(500, "InternalError", "etcd is slow"))
	done := startEviction(t, f, ctx)
	if err := <-stepRetries(t, f, ctx, done, 2); err != nil {
		t.Fatalf("eviction: %v", err)
	}
	f.expectActions("get pods ns/p", "patch pods/status ns/p", "delete pods ns/p",
		"get pods ns/p", "delete pods ns/p",
		"get pods ns/p", "delete pods ns/p")
	f.expectEvents(marking("p"))
	if got := testutil.ToFloat64(f.c.metrics.deletions); got != 1 {
		t.Errorf("pod_deletions_total = %v, want 1", got)
	}
}

// TestEvictionGivesUpAfterRetries: after the 5th failed attempt the
// eviction is dropped — a terminal error, not retried by the loop, the
// work forgotten — until a node or pod update schedules it again.
func TestEvictionGivesUpAfterRetries(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f.api.Fail(resttest.On("delete", "pods"), resttest.Failure(500, "InternalError", "etcd is down"))
	done := startEviction(t, f, ctx)
	err := <-stepRetries(t, f, ctx, done, Retries-1)
	if !ctrl.IsTerminal(err) {
		t.Fatalf("eviction error %v, want a terminal one", err)
	}
	if got := len(resttest.Select(f.api.Take(), "delete pods ns/p")); got != Retries {
		t.Errorf("%d delete attempts, want %d", got, Retries)
	}
	if n := f.c.evictions.len(); n != 0 {
		t.Errorf("%d evictions left, want the failed one forgotten", n)
	}
	if got := testutil.ToFloat64(f.c.metrics.deletions); got != 0 {
		t.Errorf("pod_deletions_total = %v, want 0", got)
	}
	f.expectEvents(marking("p"))
}

// TestEvictionStopsWithItsContext: a context that ends while the
// eviction waits to retry ends it, with the context's error.
func TestEvictionStopsWithItsContext(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	f.api.Fail(resttest.On("delete", "pods"), resttest.Failure(500, "InternalError", "etcd is down"))
	done := startEviction(t, f, ctx)
	wait, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	if err := f.clock.BlockUntilWaiters(wait, 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || ctrl.IsTerminal(err) {
		t.Errorf("eviction error %v, want context.Canceled", err)
	}
}

// TestCancelledEvictionKeyDoesNothing and TestEvictionDueLaterRequeues:
// the key of an eviction comes out of the queue for a cancelled eviction
// (nothing happens) or for one rescheduled later (it comes back then).
func TestEvictionKeyOutcomes(t *testing.T) {
	f := newFixture(t)
	if res, err := f.c.Sync(t.Context(), evictKey("ns/p")); err != nil || res != (ctrl.Result{}) {
		t.Errorf("no eviction: Sync = %+v, %v; want nothing", res, err)
	}
	f.c.evictions.add("ns/p", t0, t0.Add(time.Minute))
	if res, err := f.c.Sync(t.Context(), evictKey("ns/p")); err != nil || res.RequeueAfter != time.Minute {
		t.Errorf("eviction due in a minute: Sync = %+v, %v; want RequeueAfter 1m", res, err)
	}
	f.expectActions()
	f.expectEvents()
}
