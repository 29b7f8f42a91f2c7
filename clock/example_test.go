package clock_test

import (
	"context"
	"fmt"
	"time"

	"github.com/kcmlab/kcm/clock"
)

// A goroutine waits on a timer; the test moves the fake clock past the
// deadline once it knows the timer is armed. No sleeping anywhere.
func ExampleFake() {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := clock.NewFake(t0)
	fired := make(chan time.Duration)

	go func() {
		t := clk.NewTimer(30 * time.Second)
		at := <-t.C()
		fired <- at.Sub(t0)
	}()

	_ = clk.BlockUntilWaiters(context.Background(), 1)
	clk.Step(29 * time.Second)
	fmt.Println("waiters after 29s:", clk.Waiters())
	clk.Step(time.Second)
	fmt.Println("fired at:", <-fired)
	fmt.Println("waiters after firing:", clk.Waiters())
	// Output:
	// waiters after 29s: 1
	// fired at: 30s
	// waiters after firing: 0
}
