package lease_test

import (
	"context"
	"fmt"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/lease"
)

// An elector campaigns on an in-memory lease, driven by a fake clock: it
// creates the lease, renews it one RetryPeriod later and, with
// ReleaseOnCancel, clears the holder when it is shut down.
func Example() {
	store := &lease.MemoryStore{}
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	leading := make(chan struct{})
	e, err := lease.NewWithStore(store, lease.Config{
		Name: "demo", Identity: "kcm-a", Clock: clk, ReleaseOnCancel: true,
		Callbacks: lease.Callbacks{
			OnStartedLeading: func(ctx context.Context) { close(leading); <-ctx.Done() },
			OnStoppedLeading: func() { fmt.Println("stopped leading") },
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- e.Run(ctx) }()

	<-leading
	rec, _ := store.Get(ctx)
	fmt.Println("holder:", rec.HolderIdentity, "leading:", e.IsLeader())

	_ = clk.BlockUntilWaiters(ctx, 2) // the retry timer and the renew deadline
	clk.Step(lease.DefaultRetryPeriod)
	_ = clk.BlockUntilWaiters(ctx, 2)
	rec, _ = store.Get(ctx)
	fmt.Println("renewed", rec.RenewTime.Sub(rec.AcquireTime), "after acquiring")

	cancel()
	fmt.Println("Run:", <-done)
	rec, _ = store.Get(context.Background())
	fmt.Printf("holder after release: %q, leaseDuration %v\n", rec.HolderIdentity, rec.LeaseDuration)
	// Output:
	// holder: kcm-a leading: true
	// renewed 2s after acquiring
	// stopped leading
	// Run: <nil>
	// holder after release: "", leaseDuration 1s
}

// The decision core on its own: a candidate observed a lease whose holder's
// clock runs an hour ahead. Only the time since the observation counts.
func ExampleDecide() {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	me := lease.Candidate{Identity: "b", LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second}
	held := lease.Record{HolderIdentity: "a", LeaseDuration: 15 * time.Second, RenewTime: now.Add(time.Hour), ResourceVersion: "7"}
	s := lease.Observe(lease.State{}, held, true, now)

	for _, after := range []time.Duration{0, 14 * time.Second, 15 * time.Second} {
		d := lease.Decide(s, now.Add(after), me)
		fmt.Printf("+%v: %v\n", after, d.Action)
	}
	d := lease.Decide(s, now.Add(15*time.Second), me)
	fmt.Printf("writes holder %s, transitions %d, at resourceVersion %s\n",
		d.Write.HolderIdentity, d.Write.LeaseTransitions, d.Write.ResourceVersion)
	// Output:
	// +0s: wait
	// +14s: wait
	// +15s: acquire
	// writes holder b, transitions 1, at resourceVersion 7
}
