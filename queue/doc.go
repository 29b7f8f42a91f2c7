// Package queue is the work queue between informer event handlers and a
// controller's workers.
//
// Handlers do not reconcile; they turn an event into a key ("ns/name") and
// Add it. Workers Get keys, reconcile the object the key names from the
// informer's cache, and call Done. Because only the key travels, ten updates
// of one object that arrive while the workers are busy cost one reconcile.
//
//	apiserver → reflector → deltafifo → store → processor → handler ──Add(key)──┐
//	                                                                            ▼
//	                         ctrl reconciler ◀── workers ◀──Get/Done── [ queue ]
//	                                                │                      ▲
//	                                                └── AddRateLimited ────┘
//	                                                    (on error)
//
// # The three sets
//
// A key is tracked by three sets. The lanes (queue order) hold keys ready
// for a worker, first in first out. The dirty set holds every key that needs
// processing. The processing set holds the keys workers hold right now.
//
//	 Add(k)                 Get() → k                  Done(k)
//	   │                       │                          │
//	   ▼                       ▼                          ▼
//	┌─────────────────────┐  pop front  ┌────────────┐  dirty again?
//	│ lanes: normal, low  │────────────▶│ processing │──── yes ──▶ back of its lane
//	│  (FIFO, ready keys) │             │ (held by a │
//	└─────────────────────┘             │  worker)   │──── no ───▶ forgotten
//	   ▲  k enters a lane only           └────────────┘
//	   │  if not processing               ▲
//	┌──┴──────────────────┐               │ Add(k) while held: k is
//	│ dirty (needs work)  │◀──────────────┘ marked dirty, waits for Done
//	└─────────────────────┘
//
// Step by step:
//
//   - Add(k): if k is dirty, nothing happens (it is already waiting). Else k
//     becomes dirty and, unless a worker holds it, joins the back of a lane.
//   - Get: takes the front key of the normal lane (the low lane only when
//     the normal one is empty), clears dirty, sets processing.
//   - Done(k): clears processing; if k became dirty meanwhile it joins the
//     back of its lane now.
//
// # Layout: nodes, an index, lanes of node numbers
//
// The three sets are flags on one node per key. The nodes live in one
// slice and never move; the lanes are ring buffers (internal/ring) of node
// numbers, not keys. A key's node is found three ways, one per operation,
// so that each key costs two hashes (one in Add, one in Done) and the hot
// path touches few cache lines:
//
//	Add(k) ─hash─▶ keyIndex ──▶ node{key, flags, …}  ◀── lanes: [n3 n7 n1 …]
//	                 (open addressing,   ▲                    Get pops a number:
//	                  8-byte cells)      │                    no hashing
//	Done(k) ─hash─▶ held list ───────────┘ (the keys workers hold now:
//	                                        a few entries, scanned)
//
// In detail:
//
//   - keyIndex is an open-addressing table with linear probing and
//     backward-shift deletion: no tombstones. A Go map was measured first:
//     the queue inserts and deletes distinct keys in FIFO order, a swiss
//     table keeps a tombstone per delete until it rehashes, and a large
//     share of the CPU of the Add/Get/Done benchmark went to scanning
//     control words.
//   - Done of a key not added again deletes it from the index while the
//     index is small (up to 4096 cells: in cache, deleting is cheap). In a
//     larger index the node stays, idle, so Done pays no cache miss and a
//     key added again finds its node and pays no insert; idle nodes leave
//     when the index is half full (removed in place) or when the queue
//     drains with more than 1024 of them. Measured both ways, idle nodes
//     speed up a flood of distinct keys and slow down a small, fast queue,
//     hence the size rule.
//   - Done finds the node in the held list (hash, then key); past 32 held
//     keys it uses the index.
//   - Memory a flood left (nodes, index, lanes) is given back: the lanes
//     by internal/ring's rule, the nodes and index after eight drains in a
//     row that peaked under a quarter of the capacity, so a controller
//     that refills to the same size keeps them.
//
// All of this is pure state (sets, keyIndex, delayHeap: no locks, no
// goroutines) and is tested step by step and against naive models.
//
// # Locking and wake-ups
//
// One mutex guards the state. Four things keep it short and rare:
//
//   - Keys are hashed before the lock is taken.
//   - With GOMAXPROCS > 1, Add and Done never wait for a busy lock (flat
//     combining, combine.go): they post their operation to a small lock-free ring and
//     return, and the lock's holder applies what was posted before its own
//     work and again after it lets go. Every lock acquisition applies the
//     ring first, so a caller never sees the queue without an Add or Done
//     that returned before its call began. Without it, a producer and
//     workers on different cores spent much of their CPU handing the mutex
//     back and forth (parking and waking goroutines); only Get waits now.
//   - Adds of a key that already waits in its lane — most adds under load,
//     when handlers deliver update after update — do not take the lock.
//     The first such duplicate (under the lock) publishes a small box
//     holding the key and an atomic state; later adds find the box in a
//     lock-free table, compare the key and read the state. The state is
//     changed under the lock, in the same critical section that hands the
//     key to a worker, so an add that reads "waiting" is an add of a key
//     that was waiting at that instant: a no-op by the dedup rule. A miss
//     only means the locked path. Adds of keys a worker holds always take
//     the lock (they must make Done requeue the key).
//   - A Get that finds nothing spins briefly (one Get at a time, only with
//     GOMAXPROCS > 1) before parking: parking and waking a goroutine costs
//     a futex call on each side, while a busy producer has the next key
//     ready sooner than that. Adds do not wake a parked
//     Get while one spins; the spinner takes the key and passes the wake-up
//     on, and it looks again under the lock before it parks, so no wake-up
//     is lost.
//
// One more rule keeps a flood from outgrowing the caches (yield.go): after
// a run of adds of new keys (16 384 on one processor, 1024 on more), with
// no repeated key in between and as many keys ready, the adder yields its
// processor, so that a worker woken long ago runs before the backlog
// grows to all the keys a producer adds between two preemptions. A
// repeated key (something to merge) restarts the run, so a
// backlog that merges adds is kept.
//
// # Delays and rate limiting
//
// AddAfter puts a key into a binary heap ordered by deadline, with an index
// from key to heap slot: a key added twice keeps the earlier deadline, in
// place. The heap's slots are 24 bytes (deadline as nanoseconds after a
// base time, arrival number, waiter number; TestDelayHeapGrowsByDoubling
// in delay_test.go checks the size); each waiter records its slot,
// so a sift updates slice elements, and only AddAfter's lookup hashes (the
// same keyIndex as the sets). One goroutine per queue sleeps on one timer
// for the earliest deadline and moves due keys into the queue with Add.
// There is no goroutine per delayed key, and a steady population of
// delayed keys allocates nothing (TestDelayHeapSteadyStateAllocatesNothing);
// a growing one (a storm of new delays) doubles the heap's arrays
// (TestDelayHeapGrowsByDoubling), so the bytes allocated per key on the way
// are a constant, not a copy of the heap.
//
//	AddAfter(k, d) ──▶ delay heap (min on deadline; key → waiter → slot)
//	                       │ one timer, armed for the top deadline
//	                       ▼
//	                  loop goroutine ──due──▶ Add(k)
//
// AddRateLimited(k) asks the RateLimiter how long k should wait and calls
// AddAfter. The default, DefaultControllerRateLimiter, is the larger of a
// per-key exponential backoff (5 ms, 10 ms, 20 ms, … capped at 1000 s) and a
// token bucket shared by all keys (10 per second, bursts of 100). Forget(k)
// after a success resets k's backoff.
//
// # Priority lanes
//
// At start-up an informer delivers every existing object as an add; a
// controller that enqueues them all at once makes a fresh event (a user's
// new Deployment) wait behind thousands of no-op reconciles. Keys added with
// AddWithPriority(k, PriorityLow) — handlers use it for the initial list —
// wait in a second lane served only when the normal lane is empty. A normal
// Add of a key waiting in the low lane promotes it. Low-lane keys can starve
// while normal traffic never stops; that is the intended trade.
//
// # Guarantees
//
//   - A key added any number of times before a worker takes it is handed out
//     once.
//   - A key is never held by two workers at once. Added while held, it is
//     handed out again after Done, so no add is lost.
//   - Within a lane, keys are handed out in the order they became ready.
//   - Get blocks until a key is ready, the queue shuts down (ErrShutDown) or
//     the caller's context ends.
//   - ShutDown drops later adds and the delay heap, stops the goroutine
//     before returning, and lets Get hand out what is still ready.
//     ShutDownWithDrain also waits, bounded by its context, until every key
//     handed out has had its Done.
//   - Every wait and every measurement uses the injected clock.Clock.
//
// # Metrics
//
// With Config.Metrics (from NewMetrics on a caller's prometheus.Registerer)
// and a Config.Name, a queue records client-go's series under the label
// name: workqueue_depth, workqueue_adds_total,
// workqueue_queue_duration_seconds, workqueue_work_duration_seconds,
// workqueue_unfinished_work_seconds,
// workqueue_longest_running_processor_seconds and workqueue_retries_total.
// The two in-flight gauges are refreshed every 500 ms by the queue's
// goroutine. Nothing is registered at import time; without Metrics the queue
// does no metric work.
//
// # Kubernetes counterpart
//
// client-go's k8s.io/client-go/util/workqueue: Queue is
// TypedRateLimitingInterface (which embeds TypedDelayingInterface and
// TypedInterface) in one type; Get takes a context and returns ErrShutDown
// instead of a shutdown bool. ItemExponential, Bucket, MaxOf and
// DefaultControllerRateLimiter are TypedItemExponentialFailureRateLimiter,
// TypedBucketRateLimiter, TypedMaxOfRateLimiter and
// DefaultTypedControllerRateLimiter. Metrics replaces the process-global
// workqueue.SetProvider. The low-priority lane corresponds to
// controller-runtime's priority queue, where initial-list events get a low
// priority.
package queue
