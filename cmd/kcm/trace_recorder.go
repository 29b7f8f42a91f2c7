package main

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/deltafifo"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/reflector"
)

// recorder is the thin, concurrent shell around a printer: it is told
// about the pipeline from several goroutines (the reflector's, the
// informer's apply loop, the listener's), stamps each observation with the
// time, and prints it. One mutex orders everything, so the lines come out
// in the order things happened.
//
// It plays three parts: the informer's Observer (list pages, phase
// changes, applied deltas), the handler on the informer (deliveries), and,
// through tracedLW, the reader of the watch stream (events with their keys).
type recorder struct {
	clk clock.Clock
	// reg is the handler's registration, set once AddEventHandler returns.
	reg atomic.Pointer[processor.Registration]

	mu sync.Mutex
	p  *printer  // guarded by mu
	w  io.Writer // guarded by mu
}

var (
	_ informer.Observer[*api.RawObject] = (*recorder)(nil)
	_ processor.Handler[*api.RawObject] = (*recorder)(nil)
)

func newRecorder(clk clock.Clock, w io.Writer, o printerOptions) *recorder {
	return &recorder{clk: clk, p: newPrinter(o), w: w}
}

// record stamps the event made by mk and prints it. Write errors (a closed
// pipe) are ignored: tracing must never stop the informer.
func (r *recorder) record(mk func(at time.Time) traceEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range r.p.lines(mk(r.clk.Now())) {
		_, _ = io.WriteString(r.w, l+"\n")
	}
}

// ListPage is part of reflector.Observer.
func (r *recorder) ListPage(items int, rv string, more bool) {
	r.record(func(at time.Time) traceEvent { return listPage{At: at, Items: items, RV: rv, More: more} })
}

// WatchEvent is part of reflector.Observer. It records nothing: tracedLW
// sees the same events with their objects, and so can name them.
func (r *recorder) WatchEvent(rest.EventType, string, int) {}

// PhaseChange is part of reflector.Observer.
func (r *recorder) PhaseChange(from, to reflector.Phase, err error) {
	r.record(func(at time.Time) traceEvent { return phaseChange{At: at, From: from, To: to, Err: err} })
}

// Applied is part of informer.Observer: the informer's apply loop calls it
// after writing d to the store.
func (r *recorder) Applied(d deltafifo.Delta[*api.RawObject], existed bool, depth int) {
	if d.Type == deltafifo.Bookmark {
		return // no object: the store's resourceVersion moved, nothing the trace shows
	}
	e := applied{Type: d.Type, Key: d.Key, InitialList: d.InitialList, FinalStateUnknown: d.FinalStateUnknown,
		Existed: existed, Depth: depth}
	if d.Object != nil {
		m := d.Object.GetObjectMeta()
		e.RV, e.Deleting = m.ResourceVersion, m.DeletionTimestamp != nil
		e.Index = indexEntriesOf(d.Object)
	}
	r.record(func(at time.Time) traceEvent { e.At = at; return e })
}

// OnAdd is part of processor.Handler.
func (r *recorder) OnAdd(obj *api.RawObject, isInitialList bool) {
	r.delivered("OnAdd", obj, isInitialList, false)
}

// OnUpdate is part of processor.Handler.
func (r *recorder) OnUpdate(oldObj, newObj *api.RawObject) {
	r.delivered("OnUpdate", newObj, false, oldObj.ResourceVersion == newObj.ResourceVersion)
}

// OnDelete is part of processor.Handler.
func (r *recorder) OnDelete(obj *api.RawObject, _ bool) {
	r.delivered("OnDelete", obj, false, false)
}

func (r *recorder) delivered(call string, obj *api.RawObject, initial, unchanged bool) {
	pending := 0
	if reg := r.reg.Load(); reg != nil {
		pending = reg.Pending()
	}
	m := obj.GetObjectMeta()
	// Listeners is 1: the trace's informer is private and this recorder is
	// its only handler.
	r.record(func(at time.Time) traceEvent {
		return delivered{At: at, Call: call, Key: m.Key(), RV: m.ResourceVersion, Initial: initial,
			Unchanged: unchanged, Pending: pending, Listeners: 1}
	})
}

// tracedLW passes a ListerWatcher through, recording each watch it opens
// and each event read from it: what the reflector reads, as it reads it.
type tracedLW struct {
	inner reflector.ListerWatcher[*api.RawObject]
	rec   *recorder
}

func (t tracedLW) ListEach(ctx context.Context, opts rest.ListOptions, fn func(*api.RawObject) error) (rest.ListMeta, error) {
	return t.inner.ListEach(ctx, opts, fn)
}

func (t tracedLW) Watch(ctx context.Context, opts rest.WatchOptions) (reflector.Watch[*api.RawObject], error) {
	w, err := t.inner.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	initial := opts.SendInitialEvents != nil && *opts.SendInitialEvents
	t.rec.record(func(at time.Time) traceEvent {
		return watchOpened{At: at, RV: opts.ResourceVersion, InitialEvents: initial, TimeoutSeconds: opts.TimeoutSeconds}
	})
	return &tracedWatch{inner: w, rec: t.rec, ctx: ctx}, nil
}

// tracedWatch records what Next returns.
type tracedWatch struct {
	inner reflector.Watch[*api.RawObject]
	rec   *recorder
	ctx   context.Context
}

func (w *tracedWatch) Next() (rest.WatchEvent[*api.RawObject], error) {
	ev, err := w.inner.Next()
	if err != nil {
		if w.ctx.Err() == nil { // the trace runs: a timeout is a failure, not the stop
			w.rec.record(func(at time.Time) traceEvent { return watchClosed{At: at, Err: err} })
		}
		return ev, err
	}
	e := watchEvent{Type: ev.Type, Bytes: ev.Size}
	switch {
	case ev.Type == rest.Error:
		if ev.Err != nil {
			e.Err = ev.Err.Error()
		}
	case ev.Object != nil:
		m := ev.Object.GetObjectMeta()
		e.RV, e.InitialEnd = m.ResourceVersion, ev.IsInitialEventsEnd()
		if ev.Type != rest.Bookmark {
			e.Key = m.Key()
		}
	}
	w.rec.record(func(at time.Time) traceEvent { e.At = at; return e })
	return ev, nil
}

func (w *tracedWatch) Close() error { return w.inner.Close() }
