// Package scheduler is the node lifecycle controller's rate-limited timed
// queue: the nodes waiting for a NoExecute taint in one zone, taken in the
// order they were added and no faster than the zone's token bucket allows.
//
// # Place in the pipeline
//
//	monitor pass ──Add(node)──▶ RateLimitedTimedQueue (one per zone) ──Try(fn)──▶ fn taints the node
//	     recovery ──Remove(node)─┘        ▲ SwapLimiter(qps): the zone's state sets its rate
//
// # Guarantees (kube-controller-manager's, kept)
//
//   - A value is in the queue at most once (Add answers false for a value
//     already there).
//   - A value that fn handled stays "seen" after it leaves the heap: Add
//     refuses it again until Remove forgets it (upstream's
//     RemoveFromQueue keeps the set entry), so a node is tainted once per
//     outage; the controller calls Remove when the node is Ready again.
//   - Try takes one token per value it looks at, including a head that is
//     not due yet; a value fn declines comes back after the wait fn gives
//     plus one nanosecond.
//   - SwapLimiter to a rate <= 0 stops everything (a never-accepting
//     limiter); to a new positive rate a fresh bucket of burst 1, whose
//     token is spent at once when the old bucket had none (so a swap never
//     grants an extra eviction).
//
// Time comes from an injected clock (package clock), never from time.Now,
// so every rule is tested with clock.Fake.
//
// # Kubernetes counterpart
//
// k8s.io/kubernetes/pkg/controller/nodelifecycle/scheduler
// (rate_limited_queue.go: RateLimitedTimedQueue, UniqueQueue, TimedValue,
// NodeEvictionPeriod, EvictionRateLimiterBurst), with client-go's
// flowcontrol token bucket (NewTokenBucketRateLimiter,
// NewFakeNeverRateLimiter) as TokenBucket.
package scheduler
