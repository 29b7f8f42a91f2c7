package processor

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/tap"
)

// Lister is the view of the informer's store that the processor needs: the
// current objects, for the snapshot a handler added later starts from.
type Lister[T any] interface {
	List() []T
}

// ListFunc adapts a function to Lister.
type ListFunc[T any] func() []T

// List calls f.
func (f ListFunc[T]) List() []T { return f() }

// Options configure a Processor. Every field is optional.
type Options[T api.Object] struct {
	// Name names the informer in logs and in the "informer" metric label
	// (for example "pods").
	Name string
	// Lister supplies the snapshot for handlers added while the store has
	// contents. Nil: handlers get no snapshot.
	Lister Lister[T]
	// HasSynced reports whether the informer's source has synced: every
	// object of its first list is in the store and its notification has
	// been distributed. It must not report true before that Distribute.
	// Nil: always synced.
	HasSynced func() bool
	// Clock drives resync schedules and the shutdown timeout. Nil: real time.
	Clock clock.Clock
	// Logger receives handler panics. The zero Logger discards.
	Logger zerolog.Logger
	// Registerer, when set, gets informer_handler_panics_total{informer,handler}.
	Registerer prometheus.Registerer
	// ShutdownTimeout bounds how long Run waits, after its context ends,
	// for handler calls in progress to return. 0: wait as long as it takes,
	// so that no handler is running once Run returns.
	ShutdownTimeout time.Duration
	// Tap, when set, gives each handler a tap.Handler point (the
	// pipeline view): its calls are reported, begin and end, while
	// someone watches, and its buffer is a gauge.
	Tap *tap.Tap
}

// HandlerOptions configure one registration.
type HandlerOptions struct {
	// Name identifies the handler in logs, metrics and kcm trace; unique per
	// processor. Empty: "handler-<n>".
	Name string
	// ResyncPeriod asks for a sync notification for every cached object
	// this often; 0 means never, and a positive period shorter than
	// MinResyncPeriod is raised to it.
	ResyncPeriod time.Duration
}

// Processor fans the informer's notifications out to its handlers
// (client-go: sharedProcessor). See the package documentation.
type Processor[T api.Object] struct {
	name            string
	lister          Lister[T]
	sourceSynced    func() bool
	clock           clock.Clock
	log             zerolog.Logger
	panics          *prometheus.CounterVec // nil without metrics
	shutdownTimeout time.Duration
	tap             *tap.Tap
	// emit is distributeLocked bound once, so Apply hands it out without
	// allocating.
	emit func(Notification[T])

	mu sync.Mutex
	// listeners are the registered handlers in registration order.
	// Guarded by mu. Every listener here is also started once runCtx is set,
	// unless stopped.
	listeners []*listener[T]
	// live holds the listeners whose goroutine is running (removed ones
	// included until they exit). Guarded by mu.
	live map[*listener[T]]struct{}
	// runCtx is Run's context, nil before Run. Guarded by mu.
	runCtx context.Context
	// stopped is set once Run's context has ended: Distribute drops,
	// AddHandler fails. Guarded by mu.
	stopped bool
	// seq numbers generated handler names. Guarded by mu.
	seq int
}

// New returns a processor with no handlers. It fails only when the panic
// counter cannot be registered with opts.Registerer.
func New[T api.Object](opts Options[T]) (*Processor[T], error) {
	panics, err := newPanicCounter(opts.Registerer)
	if err != nil {
		return nil, err
	}
	p := &Processor[T]{
		name:            opts.Name,
		lister:          opts.Lister,
		sourceSynced:    opts.HasSynced,
		clock:           opts.Clock,
		log:             opts.Logger.With().Str("informer", opts.Name).Logger(),
		panics:          panics,
		shutdownTimeout: opts.ShutdownTimeout,
		tap:             opts.Tap,
		live:            map[*listener[T]]struct{}{},
	}
	if p.sourceSynced == nil {
		p.sourceSynced = func() bool { return true }
	}
	if p.clock == nil {
		p.clock = clock.Real{}
	}
	p.emit = p.distributeLocked
	return p, nil
}

// AddHandler registers h. Unless the store is empty, h first receives every
// object the store holds now as OnAdd(obj, true), then every notification
// distributed after this call; the snapshot is taken under the lock that
// Distribute and Apply hold, so no change is both in the snapshot and
// delivered live, nor in neither. A handler added before Run starts with
// Run; one added while running starts at once.
func (p *Processor[T]) AddHandler(h Handler[T], opts HandlerOptions) (*Registration, error) {
	if h == nil {
		return nil, ErrNilHandler
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return nil, fmt.Errorf("adding handler %q: %w", opts.Name, ErrStopped)
	}
	name, err := p.nameLocked(opts.Name)
	if err != nil {
		return nil, err
	}
	var counter prometheus.Counter
	if p.panics != nil {
		counter = p.panics.WithLabelValues(p.name, name)
	}
	l := newListener(name, h, p.log, counter, p.sourceSynced)
	l.tap = p.tap.Point(tap.Handler, p.name, name)
	l.resource = tap.ResourceOf(p.name)
	l.tap.Gauge("pending", func() int64 { return int64(l.pending()) })
	l.resync = newResyncSchedule(opts.ResyncPeriod, p.clock.Now())
	if p.lister != nil {
		l.addSnapshotLocked(p.lister.List())
	}
	p.listeners = append(p.listeners, l)
	if p.runCtx != nil {
		p.startLocked(l)
	}
	return &Registration{owner: p, l: l}, nil
}

// nameLocked returns the name a new handler gets.
func (p *Processor[T]) nameLocked(requested string) (string, error) {
	if requested == "" {
		p.seq++
		return fmt.Sprintf("handler-%d", p.seq), nil
	}
	for _, l := range p.listeners {
		if l.name == requested {
			return "", fmt.Errorf("adding handler %q: %w", requested, ErrDuplicateName)
		}
	}
	return requested, nil
}

// RemoveHandler unregisters the handler behind reg and drops its buffered
// notifications. A call in progress finishes; none starts afterwards.
// RemoveHandler does not wait for that call (a handler may remove itself):
// wait on reg.Done() for that.
func (p *Processor[T]) RemoveHandler(reg *Registration) error {
	if reg == nil || reg.owner != p {
		return ErrUnknownRegistration
	}
	l := reg.l.(*listener[T])
	p.mu.Lock()
	defer p.mu.Unlock()
	i := slices.Index(p.listeners, l)
	if i < 0 {
		return fmt.Errorf("removing handler %q: %w", l.name, ErrUnknownRegistration)
	}
	p.listeners = slices.Delete(p.listeners, i, i+1)
	l.remove()
	if l.started {
		l.cancel()
	} else {
		close(l.done)
	}
	return nil
}

// Distribute passes n to every handler's buffer — a Sync only to the
// handlers whose resync is due (see ShouldResync) — and returns without
// waiting for any handler. The informer calls it from its single apply
// goroutine after writing n's change to the store; use Apply instead to make
// the write and the Distribute one step for a concurrent AddHandler.
// After Run has ended, Distribute drops n.
func (p *Processor[T]) Distribute(n Notification[T]) {
	p.mu.Lock()
	p.distributeLocked(n)
	p.mu.Unlock()
}

// Apply runs update while holding the lock that AddHandler takes its
// snapshot under. update writes the store and calls emit for each
// notification its writes produce; a handler added concurrently then either
// sees a write in its snapshot or receives its notification, never both and
// never neither. emit must not be used after update returns, and update must
// not call back into the processor (nor may Options.Lister): the lock order
// is processor, then store.
func (p *Processor[T]) Apply(update func(emit func(Notification[T]))) {
	p.mu.Lock()
	defer p.mu.Unlock()
	update(p.emit)
}

func (p *Processor[T]) distributeLocked(n Notification[T]) {
	if p.stopped {
		return
	}
	sync := n.Kind == Sync
	for _, l := range p.listeners {
		if sync && !l.resync.due {
			continue
		}
		l.add(n)
	}
}

// ResyncCheckPeriod returns how often the informer should call ShouldResync:
// the shortest resync period among the registered handlers, or 0 when none
// wants resyncs. It can change as handlers come and go, so the informer
// should read it again whenever it re-arms its resync timer.
func (p *Processor[T]) ResyncCheckPeriod() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	var d time.Duration
	for _, l := range p.listeners {
		if pd := l.resync.period; pd > 0 && (d == 0 || pd < d) {
			d = pd
		}
	}
	return d
}

// ShouldResync decides, at the clock's now, which handlers take part in a
// resync: those whose period has elapsed since their last one. It reports
// whether any did; if so the informer re-queues every cached object, and the
// Sync notifications that result reach exactly those handlers (until the
// next ShouldResync).
func (p *Processor[T]) ShouldResync() bool {
	now := p.clock.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	due := false
	for _, l := range p.listeners {
		if l.resync.check(now) {
			due = true
		}
	}
	return due
}

// Registrations returns the current registrations in registration order.
func (p *Processor[T]) Registrations() []*Registration {
	p.mu.Lock()
	defer p.mu.Unlock()
	regs := make([]*Registration, len(p.listeners))
	for i, l := range p.listeners {
		regs[i] = &Registration{owner: p, l: l}
	}
	return regs
}

// Run starts the handler goroutines and blocks until ctx ends. It then
// stops every goroutine after its current handler call, drops whatever is
// still buffered, and returns once all have exited — or, with a
// ShutdownTimeout, returns ErrShutdownTimeout naming the handlers still
// inside a call when it expires (their goroutines exit when those calls
// return; a handler that never returns is a bug in the handler).
func (p *Processor[T]) Run(ctx context.Context) error {
	p.mu.Lock()
	if p.runCtx != nil || p.stopped {
		p.mu.Unlock()
		return ErrAlreadyRunning
	}
	p.runCtx = ctx
	for _, l := range p.listeners {
		p.startLocked(l)
	}
	p.mu.Unlock()

	<-ctx.Done()

	p.mu.Lock()
	p.stopped = true
	for _, l := range p.listeners {
		l.mu.Lock()
		l.buf.Reset()
		l.mu.Unlock()
	}
	p.mu.Unlock()
	return p.awaitListeners()
}

// startLocked launches l's goroutine under a context of its own, so that
// RemoveHandler can stop one listener and Run's context stops all.
func (p *Processor[T]) startLocked(l *listener[T]) {
	ctx, cancel := context.WithCancel(p.runCtx)
	l.started, l.cancel = true, cancel
	p.live[l] = struct{}{}
	go l.run(ctx, func() { p.exited(l) })
}

// exited is called by l's goroutine on its way out.
func (p *Processor[T]) exited(l *listener[T]) {
	p.mu.Lock()
	delete(p.live, l)
	l.cancel()
	p.mu.Unlock()
}

// awaitListeners waits until no listener goroutine is left, or the shutdown
// timeout expires.
func (p *Processor[T]) awaitListeners() error {
	var expired <-chan time.Time
	if p.shutdownTimeout > 0 {
		t := p.clock.NewTimer(p.shutdownTimeout)
		defer t.Stop()
		expired = t.C()
	}
	for {
		l := p.anyLive()
		if l == nil {
			return nil
		}
		select {
		case <-l.done:
		case <-expired:
			err := fmt.Errorf("%w: %s", ErrShutdownTimeout, strings.Join(p.liveNames(), ", "))
			p.log.Error().Err(err).Msg("processor shutdown gave up on handlers")
			return err
		}
	}
}

// anyLive returns some listener whose goroutine is running, or nil.
func (p *Processor[T]) anyLive() *listener[T] {
	p.mu.Lock()
	defer p.mu.Unlock()
	for l := range p.live {
		return l
	}
	return nil
}

// liveNames returns the sorted names of the listeners still running.
func (p *Processor[T]) liveNames() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	names := make([]string, 0, len(p.live))
	for l := range p.live {
		names = append(names, l.name)
	}
	sort.Strings(names)
	return names
}
