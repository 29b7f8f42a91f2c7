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
	"github.com/kcmlab/kcm/kube"
)

// Options configure a Reflector. Zero values mean the defaults noted.
type Options struct {
	Name     string // for logs, e.g. "pods"
	PageSize int64  // LIST page size; default 500, negative = unpaginated
	// WatchList: try the streaming initial list first (default true via
	// DefaultOptions), falling back to LIST+WATCH when the server refuses.
	WatchList bool
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
}

// Observer sees what a reflector does; kcm trace prints it.
type Observer interface {
	ListPage(items int, rv string, more bool)
	WatchEvent(t kube.EventType, rv string, bytes int)
	PhaseChange(from, to Phase, err error)
}

// Reflector keeps a Sink in step with the server: it lists, then watches,
// and recovers from every failure by resuming the watch or, when the
// server's history has moved on (410 Gone), by listing again.
//
// Run is the thin goroutine shell around Machine, which holds all
// decisions.
type Reflector[T kube.Object] struct {
	lw   ListerWatcher[T]
	sink Sink[T]
	m    *Machine
	o    Options
	// rv mirrors m.LastRV() for readers on other goroutines; the machine
	// itself is only touched by Run's goroutine.
	rv atomic.Pointer[string]
	// reported is the phase last reported to the logger and observer.
	reported Phase
}

// New returns a reflector from lw into sink.
func New[T kube.Object](lw ListerWatcher[T], sink Sink[T], o Options) *Reflector[T] {
	if o.PageSize == 0 {
		o.PageSize = 500
	} else if o.PageSize < 0 {
		o.PageSize = 0
	}
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
	m := NewMachine(Settings{
		PageSize: o.PageSize, WatchList: o.WatchList, Backoff: b,
		LabelSelector: o.LabelSelector, FieldSelector: o.FieldSelector,
		WatchTimeout: func() int64 { return minT + rand.Int64N(max(minT, 1)) },
	})
	return &Reflector[T]{lw: lw, sink: sink, m: m, o: o}
}

// LastSyncResourceVersion returns the resourceVersion of the newest state
// handed to the sink.
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
	lvl := r.o.Logger.Debug()
	if err != nil && !Stopped(err) && !errors.Is(err, io.EOF) {
		lvl = r.o.Logger.Warn()
	}
	lvl.Str("reflector", r.o.Name).Str("from", from.String()).Str("to", to.String()).
		Str("rv", r.m.LastRV()).AnErr("cause", err).Msg("reflector phase change")
}

func (r *Reflector[T]) waitFor(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := r.o.Clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C():
	}
}

// list runs one paginated LIST, streaming each page's items into a replace.
func (r *Reflector[T]) list(ctx context.Context, opts kube.ListOptions) error {
	rep := r.sink.StartReplace()
	rv := ""
	for {
		n := 0
		meta, err := r.lw.ListEach(ctx, opts, func(obj T) error { n++; return rep.Add(obj) })
		if err != nil {
			rep.Abort()
			switch {
			case Stopped(err):
			case opts.Continue != "" && kube.IsGone(err):
				r.m.ContinueExpired()
			default:
				r.m.ListFailed(err, r.o.Clock.Now())
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
	if err := rep.Finish(rv); err != nil {
		// The sink refused (closed: the informer is stopping). Back off
		// rather than list again at once, should the context live on.
		r.m.ListFailed(err, r.o.Clock.Now())
		return err
	}
	r.m.ListDone(rv)
	return nil
}

// watch runs one WATCH until it ends, routing events into the sink.
func (r *Reflector[T]) watch(ctx context.Context, opts kube.ListOptions) error {
	w, err := r.lw.Watch(ctx, kube.WatchOptions{ListOptions: opts, IdleTimeout: r.o.IdleTimeout})
	if err != nil {
		if !Stopped(err) {
			r.m.WatchEnded(err, r.o.Clock.Now())
		}
		return err
	}
	defer w.Close()
	var rep Replacer[T]
	if r.m.Phase() == WatchListing {
		rep = r.sink.StartReplace()
	}
	err = r.stream(w, rep)
	if rep != nil && r.m.Phase() == WatchListing {
		rep.Abort()
	}
	if !Stopped(err) && ctx.Err() == nil {
		r.m.WatchEnded(err, r.o.Clock.Now())
	}
	return err
}

// stream applies events until the watch ends, returning why it ended.
func (r *Reflector[T]) stream(w Watch[T], rep Replacer[T]) error {
	for {
		ev, err := w.Next()
		if err != nil {
			return err
		}
		var obj kube.Object
		rv := ""
		if ev.Type != kube.Error {
			obj = ev.Object
			rv = ev.Object.GetObjectMeta().ResourceVersion
		}
		if r.o.Observer != nil {
			r.o.Observer.WatchEvent(ev.Type, rv, ev.Size)
		}
		if err := r.apply(r.m.Event(ev.Type, obj, ev.Type == kube.Bookmark && ev.IsInitialEventsEnd()), ev, rep); err != nil {
			return err
		}
		r.publishRV()
		r.notePhase(nil) // the end of a WatchList's initial events moves to watching mid-stream
	}
}

func (r *Reflector[T]) apply(route Route, ev kube.WatchEvent[T], rep Replacer[T]) error {
	switch route {
	case ToAdd:
		return r.sink.Add(ev.Object)
	case ToUpdate:
		return r.sink.Update(ev.Object)
	case ToDelete:
		return r.sink.Delete(ev.Object)
	case ToReplace:
		return rep.Add(ev.Object)
	case ToReplaceFinish:
		return rep.Finish(r.m.LastRV())
	case ToError:
		return ev.Err
	}
	return nil
}
