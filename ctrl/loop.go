package ctrl

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/queue"
	"github.com/kcmlab/kcm/tap"
)

// SyncFunc reconciles the object a key names ("namespace/name", or "name"
// for a cluster-scoped object): it reads the object from listers, compares
// it with the world and writes what differs. It must be idempotent — the
// same key may be synced any number of times — and should return promptly
// when ctx ends.
type SyncFunc func(ctx context.Context, key string) (Result, error)

// DefaultDrainTimeout bounds how long Run waits for in-flight syncs after
// its context ends.
const DefaultDrainTimeout = 30 * time.Second

// Errors of Run.
var (
	// ErrPanic wraps the value a sync panicked with.
	ErrPanic = errors.New("ctrl: sync panicked")
	// ErrDrainTimeout: in-flight syncs were still running when the drain
	// timeout passed; their context was cancelled and Run returned.
	ErrDrainTimeout = errors.New("ctrl: in-flight syncs outlived the drain timeout")
	// ErrCacheNotSynced: Run's context ended before the caches synced.
	ErrCacheNotSynced = errors.New("ctrl: caches did not sync")
	// ErrAlreadyRun: Run was called twice; a Loop runs once.
	ErrAlreadyRun = errors.New("ctrl: loop already ran")
)

// LoopOptions configure a Loop. The zero value works: real clock, no
// metrics, client-go's default rate limiter, unlimited retries.
type LoopOptions struct {
	// Clock drives the queue, the drain timeout and the sync timings.
	Clock clock.Clock
	// Logger gets every failed and panicking sync.
	Logger zerolog.Logger
	// Metrics records the reconcile and workqueue series; nil none.
	Metrics *Metrics
	// RateLimiter paces retries; nil means queue.DefaultControllerRateLimiter.
	RateLimiter queue.RateLimiter[string]
	// MaxRetries > 0 gives up on a key after that many consecutive
	// rate-limited retries (it comes back with the object's next event).
	MaxRetries int
	// DrainTimeout bounds the wait for in-flight syncs once Run's context
	// ends; 0 means DefaultDrainTimeout.
	DrainTimeout time.Duration
	// Synced are the informers (or handler registrations) whose caches
	// Run waits for before starting workers. A Wiring adds the
	// registrations of its handlers.
	Synced []informer.Synced
	// Events is the controller's event broadcaster, run for as long as
	// Run runs; nil if the controller records no events.
	Events *Broadcaster
	// Tap, when set, reports the loop's queue (tap.Enqueue) and every
	// sync, begin and end (tap.Sync), to the pipeline view while someone
	// watches; a reported sync's context carries its tap.SyncRef, so the
	// REST client can name the sync behind each write.
	Tap *tap.Tap
}

// Loop is the work loop every controller shares (controller-runtime's
// reconcile handler; the processNextWorkItem of every
// kube-controller-manager controller): handlers Add keys to its Queue,
// workers Get them, call the sync and act on its result.
//
//	Get(key) ──▶ sync(ctx, key) ──▶ TerminalError?   ──▶ Forget(key)          (not retried; counted)
//	                               error?             ──▶ AddRateLimited(key)  (backoff)
//	                               RequeueAfter d?    ──▶ Forget, AddAfter(key, d)
//	                               Requeue?           ──▶ AddRateLimited(key)  (backoff, no failure)
//	                               else               ──▶ Forget(key)
//	         ──▶ Done(key)
//
// A panicking sync is recovered, logged with its stack, counted and
// treated as an error; the worker goes on. A key is never synced by two
// workers at once (the queue's guarantee), so a sync needs no locking of
// its own per object.
type Loop struct {
	name    string
	sync    SyncFunc
	q       *queue.Queue[string]
	clock   clock.Clock
	log     zerolog.Logger
	m       loopMetrics
	o       LoopOptions
	started bool
	mu      sync.Mutex
	// tap reports syncs (nil without a Tap); active counts the syncs in
	// flight and workers the workers running, for its gauges.
	tap     *tap.Point
	active  atomic.Int64
	workers atomic.Int64
}

// NewLoop returns a loop named after its controller (the name labels its
// metrics and logs). Nothing runs until Run.
func NewLoop(name string, sync SyncFunc, o LoopOptions) *Loop {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = DefaultDrainTimeout
	}
	qc := queue.Config[string]{Name: name, Clock: o.Clock, RateLimiter: o.RateLimiter, Tap: o.Tap}
	if o.Metrics != nil {
		qc.Metrics = o.Metrics.Queue
	}
	l := &Loop{
		name: name, sync: sync, q: queue.New(qc), clock: o.Clock,
		log: o.Logger.With().Str("controller", name).Logger(),
		m:   newLoopMetrics(o.Metrics, name), o: o,
		tap: o.Tap.Point(tap.Sync, name, ""),
	}
	l.tap.Gauge("in flight", l.active.Load)
	l.tap.Gauge("workers", l.workers.Load)
	return l
}

// NewLoop is NewLoop with the context's clock, logger and metrics.
func (cc ControllerContext) NewLoop(name string, sync SyncFunc, o LoopOptions) *Loop {
	o.Clock, o.Logger, o.Metrics, o.Tap = cc.Clock, cc.Logger, cc.Metrics, cc.Tap
	return NewLoop(name, sync, o)
}

// Name returns the controller's name.
func (l *Loop) Name() string { return l.name }

// WaitsFor names what Run waits for before it starts its workers, in
// order: the informers of LoopOptions.Synced by their names, the
// registrations a Wiring added as "<informer>/<controller>".
func (l *Loop) WaitsFor() []string {
	names := make([]string, len(l.o.Synced))
	for i, s := range l.o.Synced {
		names[i] = s.Name()
	}
	return names
}

// HasSynced reports whether everything Run waits for before it starts its
// workers has synced: LoopOptions.Synced and, for a loop built by a
// Wiring, the registration of each handler it registered. A *Loop is an
// informer.Synced.
func (l *Loop) HasSynced() bool {
	for _, s := range l.o.Synced {
		if !s.HasSynced() {
			return false
		}
	}
	return true
}

// Queue is where the controller's handlers add keys.
func (l *Loop) Queue() *queue.Queue[string] { return l.q }

// Run waits for the caches in LoopOptions.Synced (and the registrations a
// Wiring added: HasSynced), starts workers workers
// and blocks until ctx ends. Then it stops taking keys, shuts the queue
// down, and waits for the syncs in flight — which keep a context of their
// own, so that a write under way is not cut in the middle — for at most
// the drain timeout; at the timeout it cancels their context and returns
// ErrDrainTimeout. A Loop runs once; its queue is shut down when Run
// returns. When ctx carries an abort context (WithAbort) that ends, the
// syncs in flight are cancelled at once instead.
func (l *Loop) Run(ctx context.Context, workers int) error {
	l.mu.Lock()
	again := l.started
	l.started = true
	l.mu.Unlock()
	if again {
		return ErrAlreadyRun
	}
	defer l.q.ShutDown()
	if ev := l.o.Events; ev != nil {
		evCtx, stopEvents := context.WithCancel(context.WithoutCancel(ctx))
		done := make(chan struct{})
		go func() { defer close(done); ev.Run(evCtx) }()
		defer func() { stopEvents(); <-done }()
	}
	for name, ok := range informer.WaitForCacheSync(ctx, l.clock, l.o.Synced...) {
		if !ok {
			return fmt.Errorf("%s: waiting for %s: %w", l.name, name, ErrCacheNotSynced)
		}
	}
	l.log.Info().Int("workers", workers).Msg("starting workers")
	if l.m.on {
		l.m.maxConc.Set(float64(workers))
	}
	work, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	if abort := abortOf(ctx); abort != nil {
		defer context.AfterFunc(abort, cancelWork)()
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		l.workers.Add(1)
		go func() {
			defer wg.Done()
			defer l.workers.Add(-1)
			l.worker(ctx, work)
		}()
	}
	<-ctx.Done()
	l.q.ShutDown()
	drained := make(chan struct{})
	go func() { wg.Wait(); close(drained) }()
	t := l.clock.NewTimer(l.o.DrainTimeout)
	defer t.Stop()
	select {
	case <-drained:
		l.log.Info().Msg("workers stopped")
		return nil
	case <-t.C():
		l.log.Error().Dur("timeout", l.o.DrainTimeout).Msg("in-flight syncs outlived the drain timeout; cancelling them")
		return fmt.Errorf("%s: %w (%s)", l.name, ErrDrainTimeout, l.o.DrainTimeout)
	}
}

// worker takes keys until stop ends. A key handed out after stop ended is
// given back unprocessed: no new work starts once Run is stopping.
func (l *Loop) worker(stop, work context.Context) {
	for {
		key, err := l.q.Get(stop)
		if err != nil {
			return
		}
		if stop.Err() != nil {
			l.q.Done(key)
			return
		}
		l.process(work, key)
	}
}

// process syncs one key and acts on the outcome.
func (l *Loop) process(ctx context.Context, key string) {
	defer l.q.Done(key)
	if l.m.on {
		l.m.workers.Inc()
		defer l.m.workers.Dec()
	}
	l.active.Add(1)
	defer l.active.Add(-1)
	var e tap.Event
	reported := l.tap.On() && l.tap.Want("", key)
	if reported {
		ctx, e = l.reportBegin(ctx, key)
	}
	start := l.clock.Now()
	res, err := l.call(ctx, key)
	if l.m.on {
		l.m.time.Observe(l.clock.Since(start).Seconds())
	}
	act := decide(res, err, l.q.NumRequeues(key), l.o.MaxRetries)
	if reported {
		l.reportEnd(e, act, res, err)
	}
	switch act {
	case retry:
		l.failed(key, err)
		l.log.Error().Err(err).Str("key", key).Msg("sync failed; retrying with backoff")
		l.q.AddRateLimited(key)
	case drop:
		l.failed(key, err)
		l.log.Error().Err(err).Str("key", key).Int("retries", l.o.MaxRetries).Msg("sync failed too often; dropping the key")
		l.q.Forget(key)
	case terminal:
		l.failed(key, err)
		l.count(l.m.terminal)
		l.log.Error().Err(err).Str("key", key).Msg("sync failed with a terminal error; not retrying")
		l.q.Forget(key)
	case requeueAfter:
		l.count(l.m.requeueAfter)
		l.q.Forget(key)
		l.q.AddAfter(key, res.RequeueAfter)
	case requeue:
		l.count(l.m.requeue)
		l.q.AddRateLimited(key)
	default:
		l.count(l.m.success)
		l.q.Forget(key)
	}
}

// reportBegin reports the start of a sync of key and returns ctx carrying
// its tap.SyncRef, and the Event that reportEnd completes.
func (l *Loop) reportBegin(ctx context.Context, key string) (context.Context, tap.Event) {
	ref := tap.SyncRef{Controller: l.name, Key: key, Seq: l.tap.Tap().NextSeq()}
	e := tap.Event{Op: tap.OpBegin, Key: key, Sync: ref, Retries: l.q.NumRequeues(key), At: l.tap.Now()}
	l.tap.Emit(e)
	return tap.WithSync(ctx, ref), e
}

// reportEnd reports how the sync begun with e ended and what the loop
// does next.
func (l *Loop) reportEnd(e tap.Event, act action, res Result, err error) {
	start := e.At
	e.At = l.tap.Now()
	e.Took = e.At.Sub(start)
	switch act {
	case retry:
		e.Op = "error: retry with backoff"
	case drop:
		e.Op = fmt.Sprintf("error: dropped after %d retries", l.o.MaxRetries)
	case terminal:
		e.Op = "error: terminal, not retried"
	case requeueAfter:
		e.Op, e.Delay = "success: requeue after", res.RequeueAfter
	case requeue:
		// Not a success: the work waits for something (a cache to show
		// the controller's own write); the view follows the key on to
		// its next sync, as after an error.
		e.Op = "requeue with backoff"
	default:
		e.Op = "success"
	}
	if err != nil {
		e.Err = err.Error()
	}
	l.tap.Emit(e)
}

func (l *Loop) failed(string, error) {
	l.count(l.m.failure)
	l.count(l.m.errors)
}

func (l *Loop) count(c interface{ Inc() }) {
	if l.m.on {
		c.Inc()
	}
}

// call runs the sync, turning a panic into an ErrPanic error.
func (l *Loop) call(ctx context.Context, key string) (res Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			l.count(l.m.panics)
			l.log.Error().Str("key", key).Interface("panic", r).Bytes("stack", debug.Stack()).Msg("sync panicked")
			res, err = Result{}, fmt.Errorf("%w: %v", ErrPanic, r)
		}
	}()
	return l.sync(ctx, key)
}
