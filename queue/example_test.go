package queue_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/queue"
)

// The usual controller loop: handlers Add keys, a worker Gets, reconciles,
// and either Forgets (success) or AddRateLimited (retry with backoff).
func Example() {
	q := queue.New(queue.Config[string]{Name: "example"})
	ctx := context.Background()

	// Three events for two objects: "default/web" is processed once.
	q.Add("default/web")
	q.Add("default/db")
	q.Add("default/web")
	fmt.Println("ready:", q.Len())

	q.ShutDown() // no more adds; the worker drains what is ready
	for {
		key, err := q.Get(ctx)
		if errors.Is(err, queue.ErrShutDown) {
			break
		}
		fmt.Println("reconcile", key)
		q.Forget(key)
		q.Done(key)
	}
	// Output:
	// ready: 2
	// reconcile default/web
	// reconcile default/db
}

// A key that fails is retried after its backoff; with a fake clock the test
// decides when the backoff is over.
func ExampleQueue_AddRateLimited() {
	clk := clock.NewFake(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	q := queue.New(queue.Config[string]{Clock: clk})
	defer q.ShutDown()
	ctx := context.Background()

	for range 3 {
		q.AddRateLimited("ns/flaky")
		fmt.Println("requeues:", q.NumRequeues("ns/flaky"))
	}
	_ = clk.BlockUntilWaiters(ctx, 1) // the queue armed its one timer
	clk.Step(5 * time.Millisecond)    // the earliest of the backoffs
	key, _ := q.Get(ctx)
	fmt.Println("retry", key)
	q.Forget(key)
	q.Done(key)
	fmt.Println("requeues after Forget:", q.NumRequeues(key))
	// Output:
	// requeues: 1
	// requeues: 2
	// requeues: 3
	// retry ns/flaky
	// requeues after Forget: 0
}

// Initial-list keys wait in the low lane; a fresh event overtakes them.
func ExampleQueue_AddWithPriority() {
	q := queue.New(queue.Config[string]{})
	defer q.ShutDown()
	for _, k := range []string{"ns/a", "ns/b", "ns/c"} {
		q.AddWithPriority(k, queue.PriorityLow)
	}
	q.Add("ns/new")
	for range 4 {
		k, _ := q.Get(context.Background())
		fmt.Println(k)
		q.Done(k)
	}
	// Output:
	// ns/new
	// ns/a
	// ns/b
	// ns/c
}

// Metrics are registered on the caller's registry, once, and shared by the
// named queues given them.
func ExampleNewMetrics() {
	reg := prometheus.NewRegistry()
	m, err := queue.NewMetrics(reg)
	if err != nil {
		fmt.Println(err)
		return
	}
	q := queue.New(queue.Config[string]{Name: "replicaset", Metrics: m})
	q.Add("ns/rs-1")
	q.ShutDown()

	fams, _ := reg.Gather()
	for _, f := range fams {
		if f.GetName() == "workqueue_adds_total" {
			s := f.GetMetric()[0]
			fmt.Println(f.GetName(), s.GetLabel()[0].GetValue(), s.GetCounter().GetValue())
		}
	}
	// Output:
	// workqueue_adds_total replicaset 1
}
