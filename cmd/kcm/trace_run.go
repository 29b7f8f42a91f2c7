package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/reflector"
)

// traceOptions say what a tracer watches and how.
type traceOptions struct {
	Resource    rest.Resource
	Namespace   string // "" = all namespaces; ignored for cluster-scoped resources
	Transport   rest.WatchTransport
	ShowInitial bool
	// Reflector are the reflector's settings (InitialList: a LIST from the
	// watch cache by default, WatchList with ListStream); tests shorten the
	// backoff.
	// The tracer's recorder is its Observer.
	Reflector reflector.Options
	Clock     clock.Clock
	Logger    zerolog.Logger
	// Anonymous: the kubeconfig gives no credentials (for the message of a
	// 401).
	Anonymous bool
}

// tracer runs one informer over RawObjects whose every stage is recorded
// and printed.
type tracer struct {
	o   traceOptions
	rec *recorder
	// stop ends the trace on a failure no retry can fix (trace_stop.go).
	stop *stopper
	inf  *informer.Informer[*api.RawObject]
	// start is the header event, printed when Run begins.
	start traceStart
	// synced is closed once the "synced" line has been printed.
	synced chan struct{}
}

// newTracer builds the informer; Run starts it. Lines go to w, which must
// accept whole-line writes from several goroutines one at a time (the
// recorder serialises its own writes; share w with others through a
// lineWriter).
func newTracer(c *rest.Client, o traceOptions, w io.Writer) (*tracer, error) {
	ns := o.Namespace
	if !o.Resource.Namespaced {
		ns = ""
	}
	// Wire: the trace reads metadata only, so it reads protobuf where the
	// client asks for it (--kube-api-content-type).
	r := rest.NewResources(c, o.Resource, decode.StrippingManagedFields(decode.Wire())).InNamespace(ns)
	start := traceStart{Resource: o.Resource, Namespace: ns, Server: c.Host(), Transport: transportName(o.Transport),
		WatchList: o.Reflector.Initial() == reflector.ListStream, Encoding: encodingName(c, o.Resource)}
	return newTracerFrom(reflector.FromResources(r, o.Transport), start, o, w)
}

// newTracerFrom builds a tracer reading from lw; start describes it.
func newTracerFrom(lw reflector.ListerWatcher[*api.RawObject], start traceStart, o traceOptions, w io.Writer) (*tracer, error) {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	rec := newRecorder(o.Clock, w, printerOptions{ShowInitial: o.ShowInitial})
	ro := o.Reflector
	name := o.Resource.Resource
	if o.Resource.Group != "" {
		name += "." + o.Resource.Group
	}
	stop := &stopper{recorder: rec, anonymous: o.Anonymous}
	inf, err := informer.New[*api.RawObject](tracedLW{inner: lw, rec: rec},
		informer.Options[*api.RawObject]{Name: name, Reflector: ro, Observer: stop, Clock: o.Clock, Logger: o.Logger})
	if err != nil {
		return nil, fmt.Errorf("trace %s: %w", name, err)
	}
	reg, err := inf.AddEventHandler(rec, processor.HandlerOptions{Name: "trace"})
	if err != nil {
		return nil, fmt.Errorf("trace %s: %w", name, err)
	}
	rec.reg.Store(reg)
	return &tracer{o: o, rec: rec, stop: stop, inf: inf, start: start, synced: make(chan struct{})}, nil
}

// Run prints the header, runs the informer until ctx ends or a failure
// that retrying cannot fix (returned), and prints the closing line. It
// returns once every goroutine it started has stopped.
func (t *tracer) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t.stop.start(cancel)
	t.rec.record(func(at time.Time) traceEvent { s := t.start; s.At = at; return s })
	done := make(chan struct{})
	go func() {
		defer close(done)
		if informer.WaitForCacheSync(ctx, t.o.Clock, t.inf)[t.inf.Name()] {
			t.rec.record(func(at time.Time) traceEvent { return synced{At: at, Objects: t.inf.Store().Len()} })
			close(t.synced)
		}
	}()
	err := t.inf.Run(ctx)
	<-done
	t.rec.record(func(at time.Time) traceEvent { return traceStopped{At: at} })
	if failed := t.stop.failure(); failed != nil {
		return failed
	}
	return err
}

// Synced is closed once the informer holds the initial state and the
// trace has said so.
func (t *tracer) Synced() <-chan struct{} { return t.synced }

// encodingName is what the tracer's reads ask for: protobuf when the
// client asks for it and the resource has a protobuf form (a built-in
// kind), else JSON. The server's answer decides in the end.
func encodingName(c *rest.Client, res rest.Resource) string {
	if c.ContentType() == rest.ContentTypeProtobuf && res.HasProtobuf() {
		return "protobuf"
	}
	return "JSON"
}

func transportName(t rest.WatchTransport) string {
	if t == rest.WebSocket {
		return "websocket"
	}
	return "chunked"
}
