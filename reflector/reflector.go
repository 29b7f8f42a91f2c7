package reflector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/tap"
)

// Options configure a Reflector. Zero values mean the defaults noted.
type Options struct {
	Name     string // for logs, e.g. "pods"
	PageSize int64  // LIST page size; default 500, negative = unpaginated
	// InitialList is how the state the reflector starts from is read:
	// ListFromCache, ListConsistent or ListStream; zero means
	// DefaultInitialList.
	InitialList InitialList
	// DisableWatchList turns off WatchList: an InitialList that resolves
	// to ListStream is read with ListConsistent instead, and the other
	// choices are unchanged.
	DisableWatchList bool
	// MinWatchTimeout: each watch asks the server to end it after a random
	// time in [Min, 2×Min); default 5 minutes (client-go's choice).
	MinWatchTimeout time.Duration
	// IdleTimeout closes a watch that received no bytes for this long;
	// default 5 minutes (bookmarks normally arrive every minute).
	IdleTimeout   time.Duration
	LabelSelector string
	FieldSelector string
	Backoff       *Backoff // default DefaultBackoff()
	Clock         clock.Clock
	Logger        zerolog.Logger
	Observer      Observer // optional: sees every step (kcm trace)
	// Metrics, when set (NewMetrics), records lists, watches and their
	// failures on /metrics.
	Metrics *Metrics
	// Tap, when set, receives a tap.Socket event for every watch event
	// and listed item while someone watches the pipeline view.
	Tap *tap.Tap
}

// Observer sees what a reflector does; kcm trace prints it.
type Observer interface {
	ListPage(items int, rv string, more bool)
	WatchEvent(t rest.EventType, rv string, bytes int)
	PhaseChange(from, to Phase, err error)
}

// Reflector keeps a Sink in step with the server: it lists, then watches,
// and recovers from every failure by resuming the watch or, when the
// server's history has moved on (410 Gone), by listing again.
//
// Run is the thin goroutine shell around Machine, which holds all
// decisions.
type Reflector[T api.Object] struct {
	lw   ListerWatcher[T]
	sink Sink[T]
	m    *Machine
	o    Options
	// rv mirrors m.LastRV() for readers on other goroutines; the machine
	// itself is only touched by Run's goroutine.
	rv atomic.Pointer[string]
	// reported is the phase last reported to the logger and observer.
	reported Phase
	// listed and listEnd: how many events of the current stream were a
	// WatchList's initial events, and when they ended (for the metrics:
	// the stream is a list up to there and a watch after it).
	listed  int
	listEnd time.Time
	// socket reports what is read from the apiserver (nil without a Tap).
	socket   *tap.Point
	resource string
}

// New returns a reflector from lw into sink.
func New[T api.Object](lw ListerWatcher[T], sink Sink[T], o Options) *Reflector[T] {
	if o.PageSize == 0 {
		o.PageSize = 500
	}
	o.PageSize = max(o.PageSize, 0) // negative: unpaginated
	if o.MinWatchTimeout <= 0 {
		o.MinWatchTimeout = 5 * time.Minute
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = 5 * time.Minute
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	b := DefaultBackoff()
	if o.Backoff != nil {
		b = *o.Backoff
	}
	minT := int64(o.MinWatchTimeout / time.Second)
	initial := o.Initial()
	m := NewMachine(Settings{
		PageSize: o.PageSize, WatchList: initial == ListStream, FromCache: initial == ListFromCache, Backoff: b,
		LabelSelector: o.LabelSelector, FieldSelector: o.FieldSelector,
		WatchTimeout: func() int64 { return minT + rand.Int64N(max(minT, 1)) },
	})
	return &Reflector[T]{lw: lw, sink: sink, m: m, o: o,
		socket: o.Tap.Point(tap.Socket, o.Name, ""), resource: tap.ResourceOf(o.Name)}
}

// LastSyncResourceVersion returns the resourceVersion of the newest state
// the sink accepted.
func (r *Reflector[T]) LastSyncResourceVersion() string {
	if p := r.rv.Load(); p != nil {
		return *p
	}
	return ""
}

// publishRV makes the machine's resourceVersion visible to other goroutines.
func (r *Reflector[T]) publishRV() {
	if rv := r.m.LastRV(); r.LastSyncResourceVersion() != rv {
		r.rv.Store(&rv)
	}
}

// Run lists and watches until ctx is done, then returns ctx's error.
// Failures never end Run: they are logged and retried.
func (r *Reflector[T]) Run(ctx context.Context) error {
	r.reported = r.m.Phase()
	for ctx.Err() == nil {
		act := r.m.Next()
		var err error
		switch act.Kind {
		case DoList:
			err = r.list(ctx, act.Options)
		case DoWatch:
			err = r.watch(ctx, act.Options)
		case DoWait:
			r.waitFor(ctx, act.Wait)
			r.m.WaitDone()
		}
		r.publishRV()
		r.notePhase(err)
	}
	return ctx.Err()
}

// notePhase reports a phase change, if there was one since the last report.
func (r *Reflector[T]) notePhase(err error) {
	from, to := r.reported, r.m.Phase()
	if from == to {
		return
	}
	r.reported = to
	if r.o.Observer != nil {
		r.o.Observer.PhaseChange(from, to, err)
	}
	// Phases change for failures only while Run goes on (a stop changes
	// none), so every error but a normal end is worth a warning.
	lvl := r.o.Logger.Debug()
	if err != nil && !errors.Is(err, io.EOF) {
		lvl = r.o.Logger.Warn()
	}
	lvl.Str("reflector", r.o.Name).Str("from", from.String()).Str("to", to.String()).
		Str("rv", r.m.LastRV()).AnErr("cause", err).Msg("reflector phase change")
}

func (r *Reflector[T]) waitFor(ctx context.Context, d time.Duration) {
	t := r.o.Clock.NewTimer(d) // d ≤ 0 fires at once
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C():
	}
}

// list runs one paginated LIST, streaming each page's items into a replace.
func (r *Reflector[T]) list(ctx context.Context, opts rest.ListOptions) error {
	rep := r.sink.StartReplace()
	rv := ""
	start, total := r.o.Clock.Now(), 0
	r.o.Metrics.listStarted()
	for {
		n := 0
		meta, err := r.lw.ListEach(ctx, opts, func(obj T) error {
			n++
			if r.socket.On() {
				if m := obj.GetObjectMeta(); r.socket.Want(m.Namespace, m.Name) {
					r.report("LIST", m, 0)
				}
			}
			if err := rep.Add(obj); err != nil {
				return refused(err)
			}
			r.m.Listed(obj.GetObjectMeta().ResourceVersion)
			return nil
		})
		total += n
		if err != nil {
			rep.Abort()
			if ctx.Err() == nil { // else Run is stopping: nothing to decide
				r.o.Metrics.failed("list", err)
				r.listFailed(err, opts.Continue != "")
			}
			return fmt.Errorf("list %s: %w", r.o.Name, err)
		}
		if rv == "" {
			rv = meta.ResourceVersion
		}
		if r.o.Observer != nil {
			r.o.Observer.ListPage(n, meta.ResourceVersion, meta.Continue != "")
		}
		if meta.Continue == "" {
			break
		}
		opts.Continue = meta.Continue
		opts.ResourceVersion, opts.ResourceVersionMatch = "", ""
	}
	if err := refused(rep.Finish(rv)); err != nil {
		rep.Abort()
		r.o.Metrics.failed("list", err)
		r.m.ListFailed(err, r.o.Clock.Now())
		return fmt.Errorf("list %s: %w", r.o.Name, err)
	}
	r.m.ListDone(rv)
	r.o.Metrics.listFinished(total, r.o.Clock.Since(start), rv)
	return nil
}

// listFailed tells the machine why a LIST failed; continued: on a page
// after the first.
func (r *Reflector[T]) listFailed(err error, continued bool) {
	if continued && rest.IsGone(err) && !errors.Is(err, ErrRefused) {
		r.m.ContinueExpired()
		return
	}
	r.m.ListFailed(err, r.o.Clock.Now())
}

// refused marks an error of the sink as a refusal (ErrRefused).
func refused(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrRefused, err)
}

// watch runs one WATCH until it ends, routing events into the sink.
func (r *Reflector[T]) watch(ctx context.Context, opts rest.ListOptions) error {
	start := r.o.Clock.Now()
	r.m.WatchStarting(start) // before the request: a proxy may hold the headers back
	op, listing := "watch", r.m.Phase() == WatchListing
	if listing {
		op = "watchlist"
		r.o.Metrics.listStarted()
	} else {
		r.o.Metrics.watchStarted()
	}
	w, err := r.lw.Watch(ctx, rest.WatchOptions{ListOptions: opts, IdleTimeout: r.o.IdleTimeout})
	if err != nil {
		if ctx.Err() == nil {
			r.o.Metrics.failed(op, err)
			err = r.m.WatchEnded(err, r.o.Clock.Now())
		}
		return err
	}
	defer w.Close()
	var rep Replacer[T]
	if listing {
		rep = r.sink.StartReplace()
	}
	r.listed, r.listEnd = 0, start
	events, err := r.stream(w, rep, start)
	if rep != nil && r.m.Phase() == WatchListing {
		rep.Abort()
	}
	if listing && r.m.Phase() != WatchListing {
		op = "watch" // the initial events ended; the stream went on as a watch
	}
	if ctx.Err() == nil {
		r.watchMetrics(op, err, events)
		err = r.m.WatchEnded(err, r.o.Clock.Now())
		if errors.Is(err, ErrVeryShortWatch) {
			r.o.Metrics.shortWatch()
		}
	}
	return err
}

// watchMetrics records how a watch ended: its length and events (those
// after a WatchList's initial events), and its error unless it was a normal end (the server closing it, or no bytes for
// IdleTimeout, both of which resume at once).
func (r *Reflector[T]) watchMetrics(op string, err error, events int) {
	if op == "watch" {
		r.o.Metrics.watchFinished(events-r.listed, r.o.Clock.Since(r.listEnd))
	}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, rest.ErrIdleTimeout) {
		r.o.Metrics.failed(op, err)
	}
}

// stream hands events to the sink until the watch ends, returning how
// many events it applied and why it ended. The machine counts an event as
// applied only once the sink accepted it. start is when the watch began
// (a WatchList's initial events count as one list from it).
func (r *Reflector[T]) stream(w Watch[T], rep Replacer[T], start time.Time) (int, error) {
	for n := 0; ; n++ {
		ev, err := w.Next()
		if err != nil {
			return n, err
		}
		rv := ""
		if ev.Type != rest.Error {
			rv = ev.Object.GetObjectMeta().ResourceVersion
		}
		if r.o.Observer != nil {
			r.o.Observer.WatchEvent(ev.Type, rv, ev.Size)
		}
		if r.socket.On() {
			r.reportEvent(ev)
		}
		route := r.m.Route(ev.Type, rv, ev.IsInitialEventsEnd())
		switch route {
		case ToError:
			return n, ev.Err
		case ToOutOfOrder:
			return n, fmt.Errorf("%w: %s %s at resourceVersion %s, after %s", ErrOutOfOrder, ev.Type,
				ev.Object.GetObjectMeta().Key(), rv, r.m.LastRV())
		}
		if err := r.apply(route, ev.Type, ev.Object, rv, rep); err != nil {
			return n, fmt.Errorf("%s event at resourceVersion %s: %w", ev.Type, rv, refused(err))
		}
		r.m.Accepted(route, rv)
		if route != ToReplace {
			r.o.Metrics.synced(r.m.LastRV())
		}
		if route == ToReplaceFinish {
			r.listed, r.listEnd = n+1, r.o.Clock.Now()
			r.o.Metrics.listFinished(n, r.listEnd.Sub(start), rv)
			r.o.Metrics.watchStarted()
		}
		r.publishRV()
		r.notePhase(nil) // the end of a WatchList's initial events moves to watching mid-stream
	}
}

// apply hands obj, of an event of type t routed to route, to the sink; a
// bookmark routed ToNothing goes to Sink.Bookmark when it advances.
func (r *Reflector[T]) apply(route Route, t rest.EventType, obj T, rv string, rep Replacer[T]) error {
	switch route {
	case ToAdd:
		return r.sink.Add(obj)
	case ToUpdate:
		return r.sink.Update(obj)
	case ToDelete:
		return r.sink.Delete(obj)
	case ToReplace:
		return rep.Add(obj)
	case ToReplaceFinish:
		return rep.Finish(rv)
	case ToNothing:
		if t == rest.Bookmark && r.bookmarkAdvances(rv) {
			return r.sink.Bookmark(rv)
		}
	}
	return nil
}

// bookmarkAdvances reports whether a bookmark at rv, routed ToNothing,
// tells the sink something: the watch is past the initial events, and rv
// is set and not older than the last resourceVersion applied (an older
// one is a server's mistake the machine ignores too).
func (r *Reflector[T]) bookmarkAdvances(rv string) bool {
	return r.m.Phase() == Watching && rv != "" && !olderRV(rv, r.m.LastRV())
}

// reportEvent reports a watch event to the tap, if the view wants it: its
// type, the object's metadata and its size (a bookmark has no key; an
// error, always reported, neither).
func (r *Reflector[T]) reportEvent(ev rest.WatchEvent[T]) {
	if ev.Type == rest.Error {
		e := tap.Event{Op: string(ev.Type), Resource: r.resource, Bytes: ev.Size}
		if ev.Err != nil {
			e.Err = ev.Err.Error()
		}
		r.socket.Emit(e)
		return
	}
	if m := ev.Object.GetObjectMeta(); r.socket.Want(m.Namespace, m.Name) {
		r.report(string(ev.Type), m, ev.Size)
	}
}

// report reports one object read from the apiserver.
func (r *Reflector[T]) report(op string, m *api.ObjectMeta, size int) {
	e := tap.Event{Op: op, Resource: r.resource, RV: m.ResourceVersion, UID: m.UID, Bytes: size}
	if op != string(rest.Bookmark) {
		e.Key = m.Key()
	}
	r.socket.Emit(e)
}
