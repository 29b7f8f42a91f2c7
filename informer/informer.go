package informer

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/deltafifo"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/reflector"
	"github.com/kcmlab/kcm/store"
	"github.com/kcmlab/kcm/tap"
)

// Options configure an Informer. Zero values mean the defaults noted.
type Options[T api.Object] struct {
	Name string // for logs and metrics, e.g. "pods"
	// Resource labels the informer_* FIFO and store series (group,
	// version, resource), as client-go labels them; the Factory sets it.
	Resource rest.Resource
	// Indexers are the store's indexes; default: namespace, label, owner.
	Indexers store.Indexers[T]
	// Transform rewrites each object before it is queued and cached (client-go's
	// TransformFunc). Stripping managedFields needs no transform: the
	// Factory's codecs cut it from the bytes before decoding. The objects
	// of a Factory's typed informers share their maps, slices and pointed-
	// to values with other cached objects (decode.Compact): assign new values
	// to fields rather than change those in place.
	//
	// An error refuses the object: the reflector backs off and asks the
	// server for it again (the whole list, or the watch from before that
	// event), and informer_transform_errors_total counts it. A Transform that
	// always fails for some object therefore stalls the informer (retried
	// with backoff up to 30 s, and logged) rather than silently dropping
	// the object; a Transform that cannot improve an object should return
	// it unchanged.
	Transform func(T) (T, error)
	// Reflector settings (page size, InitialList, timeouts, selectors,
	// backoff). Its Name, Clock, Logger and Observer, when left zero, are
	// filled from this informer's Name, Clock, Logger and Observer; set,
	// they are kept.
	Reflector reflector.Options
	// BatchSize is the most deltas applied per FIFO pop; default 256.
	BatchSize int
	// ShutdownTimeout bounds how long Run waits, once ctx has ended, for
	// handler calls in progress; Run then returns an error wrapping
	// processor.ErrShutdownTimeout. 0: wait as long as they take.
	ShutdownTimeout time.Duration

	Clock  clock.Clock
	Logger zerolog.Logger
	// Registerer receives the informer's series: informer_handler_panics_total,
	// informer_transform_errors_total, informer_queued_items,
	// informer_processing_latency_seconds, informer_store_resource_version
	// (fifometrics.go) and its reflector's reflector_* series (unless
	// Reflector.Metrics is set), labelled with Name. Nil: none.
	Registerer prometheus.Registerer
	// Observer, when set, sees every stage (kcm trace).
	Observer Observer[T]
	// Tap, when set, feeds the pipeline view: this informer's Socket (its
	// reflector, unless Reflector.Tap is set), FIFO, Store and Handler
	// stages report while someone watches.
	Tap *tap.Tap
}

// Observer sees deltas being applied: what the store did and what the
// processor was given. kcm trace prints it.
type Observer[T api.Object] interface {
	reflector.Observer
	Applied(d deltafifo.Delta[T], existed bool, queueDepth int)
}

// Informer keeps a local, indexed copy of one resource and tells handlers
// what changed (client-go's SharedIndexInformer):
//
//	reflector ──▶ deltafifo ──Pop──▶ apply: store write + processor notification
type Informer[T api.Object] struct {
	name  string
	fifo  *deltafifo.FIFO[T]
	store *store.Store[T]
	proc  *processor.Processor[T]
	refl  *reflector.Reflector[T]
	clk   clock.Clock
	log   zerolog.Logger
	batch int
	obs   Observer[T]
	// ops and removed are applyBatch's reusable buffers (apply goroutine
	// only).
	ops, removed []store.Op[T]
	// indexers are the store's indexes, for the Store stage's index
	// changes; stored reports applied deltas (nil without a Tap).
	indexers store.Indexers[T]
	stored   *tap.Point
	// series are the informer_* FIFO and store series; nil without metrics.
	series *fifoSeries

	started atomic.Bool
	// synced latches once the FIFO reported HasSynced.
	synced atomic.Bool
	// syncLogged latches once noteSync logged the initial sync. It is apart
	// from synced: a HasSynced poll may latch synced first, and the line
	// must still be written once.
	syncLogged atomic.Bool
	// startedAt is when Run began, for the sync progress log.
	startedAt time.Time
	done      chan struct{}
}

// New builds an informer reading from lw. Run starts it.
func New[T api.Object](lw reflector.ListerWatcher[T], o Options[T]) (*Informer[T], error) {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 256
	}
	if o.Indexers == nil {
		o.Indexers = store.BuiltinIndexers[T]()
	}
	log := o.Logger.With().Str("informer", o.Name).Logger()
	inf := &Informer[T]{name: o.Name, clk: o.Clock, log: log, batch: o.BatchSize, obs: o.Observer, done: make(chan struct{}),
		indexers: o.Indexers, stored: o.Tap.Point(tap.Store, o.Name, "")}
	inf.store = store.New(store.Options[T]{Indexers: o.Indexers})
	// A LIST is applied in full batches (GatherReplaces): one index publish
	// per BatchSize items instead of one per few items as the apply loop
	// catches up with the decoder. The FIFO carries the list's and the
	// bookmarks' resourceVersions in order with the objects (Bookmarks),
	// and hands over a relist as one swap of the whole content
	// (AtomicReplaces).
	inf.fifo = deltafifo.New(deltafifo.Options[T]{Known: knownObjects[T]{inf.store.View()}, Logger: log,
		GatherReplaces: true, Bookmarks: true, AtomicReplaces: true})
	inf.stored.Gauge("objects", func() int64 { return int64(inf.store.Len()) })
	labels := [4]string{o.Name, o.Resource.Group, o.Resource.Version, o.Resource.Resource}
	series, err := newFIFOSeries(o.Registerer, labels, inf.fifo.Queued)
	if err != nil {
		return nil, fmt.Errorf("informer %s: %w", o.Name, err)
	}
	inf.series = series
	proc, err := processor.New(processor.Options[T]{Name: o.Name, Lister: inf.store.View(), HasSynced: inf.HasSynced,
		Clock: o.Clock, Logger: log, Registerer: o.Registerer, ShutdownTimeout: o.ShutdownTimeout, Tap: o.Tap})
	if err != nil {
		return nil, fmt.Errorf("informer %s: %w", o.Name, err)
	}
	inf.proc = proc
	failures, err := newTransformErrors(o.Registerer)
	if err != nil {
		return nil, fmt.Errorf("informer %s: %w", o.Name, err)
	}
	sink := fifoSink[T]{f: inf.fifo, transform: o.Transform, queued: o.Tap.Point(tap.FIFO, o.Name, ""),
		resource: tap.ResourceOf(o.Name)}
	sink.queued.Gauge("depth", func() int64 { return int64(inf.fifo.Len()) })
	if failures != nil {
		sink.failures = failures.WithLabelValues(o.Name)
	}
	ro := reflectorOptions(o, log)
	if ro.Metrics == nil {
		if ro.Metrics, err = reflector.NewMetrics(o.Registerer, ro.Name); err != nil {
			return nil, fmt.Errorf("informer %s: %w", o.Name, err)
		}
	}
	inf.refl = reflector.New(lw, reflector.Sink[T](sink), ro)
	return inf, nil
}

// reflectorOptions returns o.Reflector with the fields the caller left
// zero filled from the informer's: Name, Clock, Logger (log, which names
// the informer) and Observer.
func reflectorOptions[T api.Object](o Options[T], log zerolog.Logger) reflector.Options {
	ro := o.Reflector
	if ro.Name == "" {
		ro.Name = o.Name
	}
	if ro.Clock == nil {
		ro.Clock = o.Clock
	}
	if reflect.ValueOf(ro.Logger).IsZero() {
		ro.Logger = log
	}
	if ro.Observer == nil && o.Observer != nil {
		ro.Observer = o.Observer
	}
	if ro.Tap == nil {
		ro.Tap = o.Tap
	}
	return ro
}

// Name returns the informer's name.
func (i *Informer[T]) Name() string { return i.name }

// Store returns a read-only view of the cache (client-go's GetIndexer,
// without its writes): only the informer's apply loop writes the cache.
func (i *Informer[T]) Store() store.View[T] { return i.store.View() }

// cached returns the cached object named name in namespace, as the
// default key function keys it ("namespace/name", or "name"), without
// allocating the key.
func (i *Informer[T]) cached(namespace, name string) (T, bool) {
	if namespace == "" {
		return i.store.Get(name)
	}
	var buf [128]byte
	k := append(append(append(buf[:0], namespace...), '/'), name...)
	return i.store.Get(unsafe.String(unsafe.SliceData(k), len(k)))
}

// Lister returns a lister over the cache.
func (i *Informer[T]) Lister() Lister[T] { return NewLister(i.store.View(), i.name) }

// HasSynced reports whether the initial list has been applied to the
// store and distributed to the handlers.
func (i *Informer[T]) HasSynced() bool {
	if i.synced.Load() {
		return true
	}
	if i.fifo.HasSynced() {
		i.synced.Store(true)
		return true
	}
	return false
}

// LastSyncResourceVersion is the resourceVersion of the newest state seen
// by the reflector, which may not be in the store yet (client-go's
// SharedIndexInformer.LastSyncResourceVersion).
func (i *Informer[T]) LastSyncResourceVersion() string { return i.refl.LastSyncResourceVersion() }

// LastStoreSyncResourceVersion is the resourceVersion the store's content
// is current at: the list's once it is applied, then each watch event's
// and bookmark's as it is applied, never ahead of the objects (client-go's
// Store.LastStoreSyncResourceVersion with the AtomicFIFO gate). "" until
// the first list is applied. A controller compares it with the
// resourceVersion of its own last write (ctrl.Consistency).
func (i *Informer[T]) LastStoreSyncResourceVersion() string {
	return i.store.LastStoreSyncResourceVersion()
}

// AddEventHandler registers h; see processor.Processor.AddHandler.
func (i *Informer[T]) AddEventHandler(h processor.Handler[T], o processor.HandlerOptions) (*processor.Registration, error) {
	return i.proc.AddHandler(h, o)
}

// RemoveEventHandler unregisters a handler.
func (i *Informer[T]) RemoveEventHandler(r *processor.Registration) error {
	return i.proc.RemoveHandler(r)
}

// ErrAlreadyStarted is returned by a second Run.
var ErrAlreadyStarted = errors.New("informer already started")

// Run lists, watches and applies until ctx ends, then stops every goroutine
// it started and returns. It may be called once.
//
// The end of ctx is not an error. Run returns, joined with errors.Join and
// wrapped with the informer's name, the failures it met on the way: the
// processor's (processor.ErrShutdownTimeout when handlers outlived
// Options.ShutdownTimeout), the reflector's and the resync loop's when
// they ended for another reason than the stop, and the apply loop's failed
// batches (each logged when it happened; the loop pops on after one).
func (i *Informer[T]) Run(ctx context.Context) error {
	if !i.started.CompareAndSwap(false, true) {
		return ErrAlreadyStarted
	}
	defer close(i.done)
	i.startedAt = i.clk.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	// Each goroutine writes only its own slot; wg.Wait orders the writes
	// before the reads.
	errs := make([]error, 4)
	run := func(slot int, what string, f func(context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[slot] = failure(ctx, what, f(ctx))
		}()
	}
	run(0, "", i.proc.Run) // its errors say "processor: " already
	run(1, "reflector", i.refl.Run)
	run(2, "resync", i.resyncLoop)
	wg.Add(1)
	go func() { defer wg.Done(); <-ctx.Done(); i.fifo.Close() }()
	errs[3] = failure(ctx, "apply loop", i.applyLoop(ctx, func(ctx context.Context) error {
		return i.fifo.Pop(ctx, i.batch, i.applyBatch)
	}))
	cancel()
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("informer %s: %w", i.name, err)
	}
	return nil
}

// failure is err as one of Run's failures, prefixed with the part that
// met it (what; "" for none), or nil when err only reports the stop: ctx's
// end, or the FIFO closed because of it.
func failure(ctx context.Context, what string, err error) error {
	if err == nil || reflector.Stopped(ctx, err) || errors.Is(err, deltafifo.ErrClosed) {
		return nil
	}
	if what == "" {
		return err
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Done is closed when Run has returned.
func (i *Informer[T]) Done() <-chan struct{} { return i.done }

// applyLoop pops batches of deltas (pop is one FIFO Pop applying one
// batch) and applies them in arrival order until ctx ends or the FIFO
// closes. A failed batch is logged and the loop pops on: the FIFO has
// consumed it, and the next batch does not depend on it. It returns the
// first failure and how many batches failed, or nil.
func (i *Informer[T]) applyLoop(ctx context.Context, pop func(context.Context) error) error {
	var first error
	failed := 0
	for ctx.Err() == nil {
		err := pop(ctx)
		if err != nil {
			if errors.Is(err, deltafifo.ErrClosed) || ctx.Err() != nil {
				break
			}
			i.log.Error().Err(err).Msg("applying deltas")
			if failed == 0 {
				first = err
			}
			failed++
		}
		i.noteSync()
	}
	if failed == 0 {
		return nil
	}
	return fmt.Errorf("batches failed: %d; the first: %w", failed, first)
}

// noteSync logs the initial sync once, with its rate.
func (i *Informer[T]) noteSync() {
	if i.syncLogged.Load() || !i.fifo.HasSynced() {
		return
	}
	if !i.syncLogged.CompareAndSwap(false, true) {
		return
	}
	i.synced.Store(true)
	took := i.clk.Since(i.startedAt)
	n := i.store.Len()
	rate := 0.0
	if took > 0 {
		rate = float64(n) / took.Seconds()
	}
	i.log.Info().Int("objects", n).Dur("took", took).Float64("objects_per_s", rate).
		Str("rv", i.refl.LastSyncResourceVersion()).Msg("informer synced")
}

// resyncLoop periodically asks the FIFO to resync when a handler's resync
// period is due, until ctx ends (nil) or a resync fails (its error;
// deltafifo.ErrClosed when the FIFO closed for the stop).
func (i *Informer[T]) resyncLoop(ctx context.Context) error {
	for {
		period := i.proc.ResyncCheckPeriod()
		if period <= 0 {
			period = time.Minute // re-check later: handlers with resync may be added
		}
		t := i.clk.NewTimer(period)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C():
		}
		if i.proc.ResyncCheckPeriod() > 0 && i.proc.ShouldResync() {
			if err := i.fifo.Resync(); err != nil {
				return err
			}
		}
	}
}
