package scheduler_test

import (
	"fmt"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl/nodelifecycle/scheduler"
)

// ExampleRateLimitedTimedQueue: three silent nodes of one zone at the
// default --node-eviction-rate of 0.1 a second: one at once, the next
// ten seconds later. (Values due at the same instant come out in no
// set order, as from upstream's heap.)
func ExampleRateLimitedTimedQueue() {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	q := scheduler.NewRateLimitedTimedQueue(clk, 0.1)
	for _, n := range []string{"n1", "n2", "n3"} { // in ProcessAt order: one ms apart
		q.Add(n, "uid-"+n)
		clk.Step(time.Millisecond)
	}
	taint := func(v scheduler.TimedValue) (bool, time.Duration) {
		fmt.Println(clk.Since(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)).Truncate(time.Second), "taint", v.Value)
		return true, 0
	}
	for range 21 {
		q.Try(taint)
		clk.Step(time.Second)
	}
	// Output:
	// 0s taint n1
	// 10s taint n2
	// 20s taint n3
}
