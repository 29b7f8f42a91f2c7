package ctrl

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/queue"
)

// ErrNoSync: Build was given no sync function.
var ErrNoSync = errors.New("ctrl: a controller's loop needs a sync function")

// Wiring builds one controller's loop from the resources it reads: each
// Watch takes a shared typed informer, returns its lister and registers
// the controller's handler on it, and Build makes the loop wait for those
// registrations — not merely for the informers — before its workers start.
// A constructor reads, in a few typed lines:
//
//	w := cc.Wire(name, ctrl.LoopOptions{})
//	h := handlers{q: w.Queue()}
//	namespaces := ctrl.Watch(w, rest.Namespaces, processor.HandlerFuncs[*api.Namespace]{AddFunc: h.namespaceAdded})
//	accounts := ctrl.Watch(w, rest.ServiceAccounts, processor.HandlerFuncs[*api.ServiceAccount]{DeleteFunc: h.accountDeleted})
//	c := NewController(namespaces, accounts, cc.ClientFor(name))
//	return w.Build(c.Sync)
//
// The loop and its queue exist from Wire on, so handlers can be made
// before the controller; the handlers are registered by Build, after the
// controller exists, so a handler may use what was built from the listers
// (expectations, the owners' lister) without racing with its construction.
// A Watch that fails (a Go type of another kind than the resource's)
// fails Build, which then shuts the queue down and registers nothing:
// a wrong pairing fails at construction, not at the first event.
//
// A Wiring is used by one goroutine, the constructor's, and builds one
// loop: Watch after Build panics.
type Wiring struct {
	cc   ControllerContext
	name string
	loop *Loop
	// pending are the registrations Build makes, in Watch order.
	pending []pendingWatch
	err     error
	built   bool
}

// Wire starts wiring the controller called name: its loop (cc.NewLoop
// with o) exists at once, without its sync function, which Build gives it.
func (cc ControllerContext) Wire(name string, o LoopOptions) *Wiring {
	o.Synced = slices.Clip(o.Synced) // Build appends: never into the caller's array
	return &Wiring{cc: cc, name: name, loop: cc.NewLoop(name, nil, o)}
}

// Queue is the loop's queue, where the controller's handlers add keys.
func (w *Wiring) Queue() *queue.Queue[string] { return w.loop.Queue() }

// Watch takes the shared informer of res decoding into S from the
// context's factory and returns its lister. Build registers h on it under
// the controller's name, and the loop waits for that registration to sync
// (processor.Registration.HasSynced: the informer has listed and h has
// returned from every initial OnAdd). A nil h registers nothing: the loop
// then waits for the informer itself.
//
// S must be res's kind (informer.CheckKind): Watch[api.Pod](w,
// rest.Deployments, …) makes Build fail with an informer.ErrKindMismatch
// error, and returns an empty Lister that must not be used.
func Watch[S any, P api.TypedPtr[S]](w *Wiring, res rest.Resource, h processor.Handler[P]) informer.Lister[P] {
	return watch[S](w, res, h, 0)
}

// WatchWithResync is Watch with a resync period for h: every cached object
// is handed to it again, as an update with old == new, that often
// (processor.HandlerOptions.ResyncPeriod; client-go's
// AddEventHandlerWithResyncPeriod).
func WatchWithResync[S any, P api.TypedPtr[S]](w *Wiring, res rest.Resource, h processor.Handler[P], resync time.Duration) informer.Lister[P] {
	return watch[S](w, res, h, resync)
}

func watch[S any, P api.TypedPtr[S]](w *Wiring, res rest.Resource, h processor.Handler[P], resync time.Duration) informer.Lister[P] {
	if w.built {
		panic(fmt.Sprintf("ctrl: %s: Watch(%s) after Build", w.name, res))
	}
	if err := informer.CheckKind[S](res); err != nil {
		w.err = errors.Join(w.err, fmt.Errorf("%s: %w", w.name, err))
		return informer.Lister[P]{}
	}
	inf := informer.For[S, P](w.cc.InformerFactory, res)
	if h == nil {
		w.pending = append(w.pending, pendingWatch{register: func(processor.HandlerOptions) (informer.Synced, func(), error) {
			return inf, func() {}, nil
		}})
		return inf.Lister()
	}
	opts := processor.HandlerOptions{Name: w.name, ResyncPeriod: resync}
	w.pending = append(w.pending, pendingWatch{opts: opts, register: func(opts processor.HandlerOptions) (informer.Synced, func(), error) {
		reg, err := inf.AddEventHandler(h, opts)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %s handler: %w", w.name, res.Resource, err)
		}
		undo := func() { _ = inf.RemoveEventHandler(reg) }
		return registration{name: inf.Name() + "/" + w.name, reg: reg}, undo, nil
	}})
	return inf.Lister()
}

// pendingWatch is a registration Build makes: register adds the handler
// with opts and returns what the loop waits for and how to remove it.
type pendingWatch struct {
	opts     processor.HandlerOptions
	register func(processor.HandlerOptions) (informer.Synced, func(), error)
}

// Build registers the handlers of every Watch, in order, adds their
// registrations to what the loop waits for (after LoopOptions.Synced) and
// returns the loop, a *Loop, running sync: what a ControllerConstructor
// returns. When a Watch failed, or a registration does, Build removes the
// registrations it made, shuts the queue down and returns a nil Controller
// and the error. Build builds once; a second call returns ErrAlreadyRun.
func (w *Wiring) Build(sync SyncFunc) (Controller, error) {
	if w.built {
		return nil, fmt.Errorf("%s: Build called twice: %w", w.name, ErrAlreadyRun)
	}
	w.built = true
	if sync == nil {
		w.err = errors.Join(w.err, fmt.Errorf("%s: %w", w.name, ErrNoSync))
	}
	if w.err != nil {
		w.loop.Queue().ShutDown()
		return nil, w.err
	}
	var undo []func()
	for _, p := range w.pending {
		s, u, err := p.register(p.opts)
		if err != nil {
			for _, u := range undo {
				u()
			}
			w.loop.Queue().ShutDown()
			return nil, err
		}
		undo = append(undo, u)
		w.loop.o.Synced = append(w.loop.o.Synced, s)
	}
	w.loop.sync = sync
	return w.loop, nil
}

// registration names a handler's registration after its informer and its
// handler ("pods/replicaset-controller"), for the loop's wait and its
// ErrCacheNotSynced (every registration of a controller carries the
// controller's name).
type registration struct {
	name string
	reg  *processor.Registration
}

func (r registration) HasSynced() bool { return r.reg.HasSynced() }
func (r registration) Name() string    { return r.name }
