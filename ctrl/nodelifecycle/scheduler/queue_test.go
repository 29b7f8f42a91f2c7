package scheduler_test

import (
	"slices"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl/nodelifecycle/scheduler"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)

// drain runs one Try and returns the values fn took.
func drain(q *scheduler.RateLimitedTimedQueue) []string {
	var got []string
	q.Try(func(v scheduler.TimedValue) (bool, time.Duration) {
		got = append(got, v.Value)
		return true, 0
	})
	return got
}

// TestAddIsUnique: upstream's UniqueQueue.Add refuses a value already
// queued, and (RemoveFromQueue keeps the set entry) a value already
// handled, until Remove forgets it: a node is tainted once per outage.
func TestAddIsUnique(t *testing.T) {
	clk := clock.NewFake(t0)
	q := scheduler.NewRateLimitedTimedQueue(clk, 1000)
	if !q.Add("a", "u") || q.Add("a", "u") {
		t.Fatal("second Add of a queued value accepted")
	}
	if got := drain(q); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("Try took %v", got)
	}
	if q.Add("a", "u") {
		t.Fatal("Add of a handled, not removed value accepted (upstream keeps it in the set)")
	}
	if !q.Remove("a") || !q.Add("a", "u") {
		t.Fatal("after Remove, Add refused")
	}
	if q.Remove("b") {
		t.Fatal("Remove of an unknown value answered true")
	}
}

// TestTryOrderAndRetry: values come out in ProcessAt order; one fn
// declines comes back after its wait plus 1ns (upstream's
// val.ProcessAt = now.Add(wait + 1)).
func TestTryOrderAndRetry(t *testing.T) {
	clk := clock.NewFake(t0)
	q := scheduler.NewRateLimitedTimedQueue(clk, 1e9) // a token every nanosecond
	q.Add("a", "1")
	clk.Step(time.Millisecond)
	q.Add("b", "2")
	var got []string
	q.Try(func(v scheduler.TimedValue) (bool, time.Duration) {
		got = append(got, v.Value)
		return false, 50 * time.Millisecond
	})
	if !slices.Equal(got, []string{"a"}) || q.Len() != 2 {
		t.Fatalf("first pass took %v, %d left; want [a] (burst 1), 2 left", got, q.Len())
	}
	clk.Step(time.Microsecond) // a token again: b is due, a is not
	if got := drain(q); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("second pass took %v, want [b]", got)
	}
	clk.Step(50*time.Millisecond - time.Microsecond)
	if got := drain(q); len(got) != 0 {
		t.Fatalf("a retried before its wait+1ns: %v", got)
	}
	clk.Step(time.Nanosecond)
	if got := drain(q); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("a not retried after its wait: %v", got)
	}
}

// TestRateLimit: the zone's bucket (burst 1, --node-eviction-rate 0.1 by
// default) lets one node through, then one every 1/qps seconds, and never
// more than one at once however long it was idle.
func TestRateLimit(t *testing.T) {
	clk := clock.NewFake(t0)
	q := scheduler.NewRateLimitedTimedQueue(clk, 0.1)
	for _, n := range []string{"a", "b", "c"} {
		q.Add(n, n)
	}
	if got := drain(q); len(got) != 1 {
		t.Fatalf("first pass took %v, want one (burst 1)", got)
	}
	clk.Step(9 * time.Second)
	if got := drain(q); len(got) != 0 {
		t.Fatalf("after 9s took %v, want none at 0.1/s", got)
	}
	clk.Step(time.Second)
	if got := drain(q); len(got) != 1 {
		t.Fatalf("after 10s took %v, want one", got)
	}
	// An idle hour saves no more than the burst: one token.
	q.Add("d", "d")
	q.Add("e", "e")
	clk.Step(time.Hour)
	if got := drain(q); len(got) != 1 {
		t.Fatalf("after an idle hour took %v, want one (burst 1)", got)
	}
}

// TestSwapLimiter: SwapLimiter(0) stops the zone (NewFakeNeverRateLimiter);
// a swap to a positive rate when the old bucket was empty starts the new
// one empty too; the same rate keeps the bucket.
func TestSwapLimiter(t *testing.T) {
	clk := clock.NewFake(t0)
	q := scheduler.NewRateLimitedTimedQueue(clk, 0.1)
	q.Add("a", "a")
	q.Add("b", "b")
	q.Add("c", "c")
	drain(q) // spends the token
	q.SwapLimiter(0)
	clk.Step(time.Hour)
	if got := drain(q); len(got) != 0 || q.QPS() != 0 {
		t.Fatalf("rate 0 took %v (qps %v)", got, q.QPS())
	}
	q.SwapLimiter(0.01) // old (never) bucket refuses: the new one starts spent
	if got := drain(q); len(got) != 0 {
		t.Fatalf("a swap granted a token: %v", got)
	}
	clk.Step(101 * time.Second) // 1/qps, and float32(0.01) is a hair under 0.01
	q.SwapLimiter(0.01)         // same rate: nothing changes
	if got := drain(q); len(got) != 1 {
		t.Fatalf("after 1/qps took %v, want one", got)
	}
	q.Clear()
	if q.Len() != 0 || !q.Add("a", "a") {
		t.Fatal("Clear kept values")
	}
}
