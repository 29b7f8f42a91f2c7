package bench

import (
	"context"
	"time"

	"k8s.io/client-go/util/workqueue"

	"github.com/kcmlab/kcm/queue"
)

// Queue is what the queue benchmarks ask of a work queue of string keys.
type Queue interface {
	Add(k string)
	// Get blocks for a key; false once the queue is shut down and drained.
	Get() (string, bool)
	Done(k string)
	AddAfter(k string, d time.Duration)
	// AddRateLimited re-adds k after its rate limiter's delay (a retry).
	AddRateLimited(k string)
	// Forget resets k's retry backoff after a success.
	Forget(k string)
	ShutDown()
}

// kcmQueue is kcm's queue.Queue with its defaults (default controller
// rate limiter, no metrics).
type kcmQueue struct{ q *queue.Queue[string] }

// NewKCMQueue returns a kcm queue.
func NewKCMQueue() Queue { return kcmQueue{queue.New(queue.Config[string]{})} }

func (k kcmQueue) Add(key string) { k.q.Add(key) }
func (k kcmQueue) Get() (string, bool) {
	key, err := k.q.Get(context.Background())
	return key, err == nil
}
func (k kcmQueue) Done(key string)                      { k.q.Done(key) }
func (k kcmQueue) AddAfter(key string, d time.Duration) { k.q.AddAfter(key, d) }
func (k kcmQueue) ShutDown()                            { k.q.ShutDown() }
func (k kcmQueue) AddRateLimited(key string)            { k.q.AddRateLimited(key) }
func (k kcmQueue) Forget(key string)                    { k.q.Forget(key) }

// clientGoQueue is what a client-go controller builds: a
// TypedRateLimitingQueue (which is a TypedDelayingQueue over a Typed
// queue) with the default controller rate limiter, unnamed (no metrics).
type clientGoQueue struct {
	q workqueue.TypedRateLimitingInterface[string]
}

// NewClientGoQueue returns a client-go work queue.
func NewClientGoQueue() Queue {
	return clientGoQueue{workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{})}
}

func (c clientGoQueue) Add(key string) { c.q.Add(key) }
func (c clientGoQueue) Get() (string, bool) {
	key, shutdown := c.q.Get()
	return key, !shutdown
}
func (c clientGoQueue) Done(key string)                      { c.q.Done(key) }
func (c clientGoQueue) AddAfter(key string, d time.Duration) { c.q.AddAfter(key, d) }
func (c clientGoQueue) ShutDown()                            { c.q.ShutDown() }
func (c clientGoQueue) AddRateLimited(key string)            { c.q.AddRateLimited(key) }
func (c clientGoQueue) Forget(key string)                    { c.q.Forget(key) }

// Queues returns a constructor for each queue, by engine name.
func Queues() map[string]func() Queue {
	return map[string]func() Queue{KCM: NewKCMQueue, ClientGo: NewClientGoQueue}
}
