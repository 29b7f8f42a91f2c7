package queue

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/tap"
)

// ErrShutDown is returned by Get once the queue is shut down and no key is
// left to hand out: the worker should return.
var ErrShutDown = errors.New("queue: shut down")

// Priority selects the lane an added key waits in.
type Priority uint8

const (
	// PriorityNormal is the lane of Add, AddAfter and AddRateLimited.
	PriorityNormal Priority = iota
	// PriorityLow is served only when the normal lane is empty. Handlers
	// use it for the informer's initial list, so that the thousands of
	// "reconcile everything" keys of a start-up do not delay fresh events.
	PriorityLow
)

// Config configures a Queue. The zero value is a working unnamed queue on
// the real clock with the default controller rate limiter and no metrics.
type Config[K comparable] struct {
	// Name labels the queue's metrics (label "name"). An unnamed queue
	// records no metrics, as in client-go.
	Name string
	// Clock drives delays, rate limiting and metrics; nil means clock.Real.
	Clock clock.Clock
	// RateLimiter paces AddRateLimited; nil means
	// DefaultControllerRateLimiter on Clock.
	RateLimiter RateLimiter[K]
	// Metrics receives the queue's metrics; nil records none.
	Metrics *Metrics
	// Tap, when set, reports every add at the tap.Enqueue stage of the
	// pipeline view (source Name) while someone watches; the ready,
	// in-flight and waiting keys are its gauges.
	Tap *tap.Tap
}

// Queue is a work queue of keys for controller workers. See the package
// documentation for its guarantees. All methods are safe for concurrent use.
// A Queue owns one goroutine (delays and metrics) until ShutDown.
type Queue[K comparable] struct {
	name    string
	clock   clock.Clock
	limiter RateLimiter[K]

	// mu guards the fields below; take it with lock and release it with
	// unlock, which apply the operations posted to ops (combine.go).
	mu sync.Mutex
	// ops holds the Adds and Dones posted while mu was busy.
	ops *opRing[K]
	// s is the lanes, dirty set and processing set.
	s sets[K]
	// delayed holds AddAfter keys until their deadlines.
	delayed delayHeap[K]
	// m is nil when the queue records no metrics.
	m *queueMetrics[K]
	// getters is the number of Get calls blocked waiting for a key.
	getters int
	// sinceYield counts the adds in a row that made a new key ready;
	// yieldDue is set when the next Add should yield the processor
	// (yield.go).
	sinceYield int
	yieldDue   bool
	// yieldRun is the run of new keys that makes an add yield: yieldAlone
	// with GOMAXPROCS 1 when the queue was made, yieldShared otherwise.
	yieldRun int
	// waking is set while a wake-up token is in ready or in the hands of a
	// Get that has not yet re-locked. Only one Get is woken at a time; it
	// passes the token on if keys remain, so a burst of adds does not wake
	// every worker at once only for most of them to find nothing.
	waking bool
	// spinning is set while one Get, finding nothing ready, polls hint
	// instead of parking (see spinForKey). Adds do not wake a parked Get
	// while it is set: the spinner takes the key and passes the wake-up on.
	spinning bool
	// spin is whether Gets may spin: GOMAXPROCS > 1 when the queue was made.
	spin bool
	// combining is whether Add and Done post to ops when the lock is busy
	// (combine.go): GOMAXPROCS > 1 when the queue was made. A constant
	// once the queue is made: unlock reads it after releasing mu. On one
	// processor a busy lock means its holder was descheduled, and parking
	// hands it the processor at once; posting would only add work.
	combining bool
	// hint is set to 1, under mu, when a key becomes ready while a Get
	// spins; the spinner reads it without the lock.
	hint atomic.Uint32
	// shuttingDown is set once by ShutDown; adds are then dropped.
	shuttingDown bool
	// drained, while a ShutDownWithDrain waits, is closed when the last
	// processing key is Done; nil otherwise.
	drained chan struct{}

	// ready carries the wake-up token to one blocked Get. Invariant: while
	// getters > 0 and s.ready > 0, waking or spinning is set.
	ready chan struct{}
	// stop is closed by ShutDown: blocked Gets and the loop return.
	stop chan struct{}
	// wake nudges the loop when the earliest delay deadline moves earlier.
	wake chan struct{}
	// loopDone is closed when the loop goroutine has returned.
	loopDone chan struct{}

	// hooks lets tests observe the goroutines; zero in production.
	hooks hooks
	// tap reports adds (nil without a Tap).
	tap *tap.Point
}

// New returns a running Queue. Call ShutDown (or ShutDownWithDrain) when done
// with it, to stop its goroutine.
func New[K comparable](cfg Config[K]) *Queue[K] { return newWithHooks(cfg, hooks{}) }

func newWithHooks[K comparable](cfg Config[K], h hooks) *Queue[K] {
	clk := cfg.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	limiter := cfg.RateLimiter
	if limiter == nil {
		limiter = DefaultControllerRateLimiter[K](clk)
	}
	multi := runtime.GOMAXPROCS(0) > 1
	q := &Queue[K]{
		name:      cfg.Name,
		clock:     clk,
		limiter:   limiter,
		s:         newSets[K](),
		ops:       newOpRing[K](),
		delayed:   newDelayHeap[K](),
		ready:     make(chan struct{}, 1),
		stop:      make(chan struct{}),
		wake:      make(chan struct{}, 1),
		loopDone:  make(chan struct{}),
		hooks:     h,
		tap:       cfg.Tap.Point(tap.Enqueue, cfg.Name, ""),
		spin:      h.spin.decide(multi),
		combining: h.combine.decide(multi),
		yieldRun:  yieldAlone,
	}
	if multi {
		q.yieldRun = yieldShared
	}
	if h.yieldRun > 0 {
		q.yieldRun = h.yieldRun
	}
	q.tap.Gauge("ready", func() int64 { return int64(q.Len()) })
	q.tap.Gauge("in flight", func() int64 { q.lock(); defer q.unlock(); return int64(q.s.inFlight) })
	q.tap.Gauge("waiting", func() int64 { q.lock(); defer q.unlock(); return int64(q.delayed.len()) })
	var tick clock.Ticker
	if cfg.Metrics != nil && cfg.Name != "" {
		q.m = newQueueMetrics[K](cfg.Metrics, cfg.Name, clk)
		tick = clk.NewTicker(metricsPeriod)
	}
	go q.loop(tick)
	return q
}

// Add marks k as needing processing in the normal lane. Adding a key that is
// already pending does nothing; adding a key a worker holds makes it pending
// again after Done. After ShutDown, Add does nothing.
func (q *Queue[K]) Add(k K) { q.AddWithPriority(k, PriorityNormal) }

// AddWithPriority is Add into the given lane. A normal add of a key pending
// in the low lane moves it to the normal lane; a low add never demotes.
func (q *Queue[K]) AddWithPriority(k K, p Priority) {
	h := q.s.hash(k) // outside the lock: the lock is held for less
	if q.s.fast.pending(k, h, p == PriorityLow) && !q.tap.On() {
		return // already waiting in its lane: a no-op, without the lock
	}
	if !q.tap.On() {
		kind := opAdd
		if p == PriorityLow {
			kind = opAddLow
		}
		if !q.lockOrPost(k, h, kind) {
			return // posted: the lock's holder applies it
		}
	} else {
		q.lock() // the view must see the add under the lock
	}
	if q.shuttingDown {
		q.unlock()
		return
	}
	counted := q.addHashedLocked(k, h, p == PriorityLow)
	if !q.tap.On() || !q.tap.Want("", keyString(k)) {
		yield := q.yieldDue
		q.yieldDue = false
		q.unlock()
		if yield {
			q.yield()
		}
		return
	}
	op := q.addedOpLocked(k, counted, "Add")
	if p == PriorityLow {
		op += " (low priority)"
	}
	// Reported under the lock, so that the view sees the add before a
	// worker's sync of k (the view takes no lock of the queue's).
	q.tap.Emit(tap.Event{Op: op, Key: keyString(k), Depth: q.s.ready})
	q.unlock()
}

// addLocked adds k and reports whether it became pending (see sets.add).
func (q *Queue[K]) addLocked(k K, lowPriority bool) bool {
	return q.addHashedLocked(k, q.s.hash(k), lowPriority)
}

// addHashedLocked is addLocked with k's hash already computed.
func (q *Queue[K]) addHashedLocked(k K, h uint32, lowPriority bool) bool {
	before := q.s.ready
	counted := q.s.addHashed(k, h, lowPriority)
	q.noteAddLocked(q.s.ready > before)
	if counted && q.m != nil {
		q.m.addedLocked(k)
	}
	q.signalLocked()
	return counted
}

// addedOpLocked names what an add of k did, for the view: op, or op with
// "(deduplicated)" when k was pending already, or with "(held: ready
// after Done)" when a worker holds it.
func (q *Queue[K]) addedOpLocked(k K, counted bool, op string) string {
	switch {
	case !counted:
		return op + " (deduplicated)"
	case q.s.flagsOf(k)&processing != 0:
		return op + " (held: ready after Done)"
	}
	return op
}

// keyString renders a key for the view.
func keyString[K comparable](k K) string {
	if s, ok := any(k).(string); ok {
		return s
	}
	return fmt.Sprint(k)
}

// signalLocked wakes one blocked Get if keys are ready and no wake-up is
// already under way.
func (q *Queue[K]) signalLocked() {
	if q.s.ready == 0 {
		return
	}
	if q.spinning {
		q.hint.Store(1)
		return
	}
	if q.waking || q.getters == 0 {
		return
	}
	q.waking = true
	q.ready <- struct{}{} // never blocks: at most one token exists
}

// Get blocks until a key is ready and hands it to the caller, who must call
// Done(k) when finished with it. Until then no other Get returns k.
//
// Get returns ErrShutDown once the queue is shut down and has no ready key
// left (ready keys are still handed out after ShutDown), and ctx's error,
// wrapped, if ctx ends first. A ready key is returned even if ctx is already
// done; check ctx between keys to stop a worker early.
func (q *Queue[K]) Get(ctx context.Context) (K, error) {
	q.lock()
	spun := false
	for {
		if k, ok := q.s.get(); ok {
			if q.m != nil {
				q.m.gotLocked(k)
			}
			q.signalLocked() // pass the wake-up on if more keys are ready
			q.unlock()
			return k, nil
		}
		if q.shuttingDown {
			q.unlock()
			var zero K
			return zero, ErrShutDown
		}
		if q.spin && !q.spinning && !spun {
			spun = true
			q.spinning = true
			q.hint.Store(0)
			q.unlock()
			q.spinForKey()
			q.lock()
			q.spinning = false
			continue // look again, under the lock, before parking
		}
		q.getters++
		q.unlock()
		if q.hooks.blocked != nil {
			q.hooks.blocked()
		}
		var err error
		woken := false
		select {
		case <-q.ready:
			woken = true
		case <-q.stop:
		case <-ctx.Done():
			err = ctx.Err()
		}
		q.lock()
		q.getters--
		if woken {
			q.waking = false
		}
		if err != nil {
			q.unlock()
			var zero K
			return zero, fmt.Errorf("queue: get: %w", err)
		}
	}
}

// spinIters bounds how long a Get polls for a key before it parks: about
// a microsecond or two of polling, with a yield every spinYield polls so
// that a producer sharing the processor can run.
const (
	spinIters = 128
	spinYield = 32
)

// spinForKey polls hint until a key is ready, the queue shuts down or the
// budget is spent. Parking a goroutine and waking it again costs a futex
// round trip on each side (microseconds); a worker that finished one key
// usually finds the next within a few hundred nanoseconds while a producer
// is adding. Only one Get spins at a time, and only with GOMAXPROCS > 1.
func (q *Queue[K]) spinForKey() {
	for i := 1; i <= spinIters; i++ {
		if q.hint.Load() != 0 {
			return
		}
		if i%spinYield == 0 {
			select {
			case <-q.stop:
				return
			default:
			}
			runtime.Gosched()
		}
	}
}

// Done tells the queue the worker has finished with k. If k was added while
// it was held, it is ready again now. Done of a key not held does nothing.
func (q *Queue[K]) Done(k K) {
	h := q.s.hash(k)
	if !q.lockOrPost(k, h, opDone) {
		return // posted: the lock's holder applies it
	}
	q.doneHashedLocked(k, h)
	q.unlock()
}

// doneHashedLocked is Done's work under the lock, k's hash computed.
func (q *Queue[K]) doneHashedLocked(k K, h uint32) {
	held, _ := q.s.doneHashed(k, h)
	if !held {
		return
	}
	if q.m != nil {
		q.m.doneLocked(k)
	}
	q.signalLocked()
	if q.drained != nil && q.s.inFlight == 0 {
		close(q.drained)
		q.drained = nil
	}
}

// Len returns the number of keys ready to be handed out. Keys held by
// workers, pending again after their Done, or waiting in AddAfter are not
// counted.
func (q *Queue[K]) Len() int {
	q.lock()
	defer q.unlock()
	return q.s.ready
}

// ShuttingDown reports whether ShutDown has been called.
func (q *Queue[K]) ShuttingDown() bool {
	q.lock()
	defer q.unlock()
	return q.shuttingDown
}

// ShutDown stops the queue: later adds are dropped, keys waiting in AddAfter
// are discarded, the goroutine exits before ShutDown returns, and Get hands
// out the keys still ready and then returns ErrShutDown. It does not wait
// for workers; see ShutDownWithDrain. Calling it again is harmless.
func (q *Queue[K]) ShutDown() {
	q.lock()
	q.shutDownLocked()
	q.unlock()
	<-q.loopDone
}

func (q *Queue[K]) shutDownLocked() {
	if q.shuttingDown {
		return
	}
	q.shuttingDown = true
	close(q.stop)
}

// ShutDownWithDrain is ShutDown that then waits until no key is held by a
// worker (every Get has had its Done). It returns nil once drained, or ctx's
// error, wrapped, if ctx ends first; the queue is shut down either way.
func (q *Queue[K]) ShutDownWithDrain(ctx context.Context) error {
	q.lock()
	q.shutDownLocked()
	var drained chan struct{}
	if q.s.inFlight > 0 {
		if q.drained == nil {
			q.drained = make(chan struct{})
		}
		drained = q.drained
	}
	q.unlock()
	<-q.loopDone
	if drained == nil {
		return nil
	}
	select {
	case <-drained:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("queue %q: drain: %w", q.name, ctx.Err())
	}
}

// AddRateLimited adds k after the delay its rate limiter asks for: the
// usual way to retry a key whose processing failed.
func (q *Queue[K]) AddRateLimited(k K) {
	d := q.limiter.When(k)
	if q.m != nil {
		q.m.retries.Inc()
	}
	q.addAfter(k, d, "AddRateLimited")
}

// Forget tells the rate limiter that k succeeded, resetting its backoff. It
// does not remove k from the queue.
func (q *Queue[K]) Forget(k K) { q.limiter.Forget(k) }

// NumRequeues returns how many rate-limited retries of k are on record.
func (q *Queue[K]) NumRequeues(k K) int { return q.limiter.NumRequeues(k) }
