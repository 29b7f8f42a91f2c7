package ctrl

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// Defaults of BroadcasterOptions, client-go's (tools/record/event.go).
const (
	// DefaultEventQueueSize is how many events may wait for the writer
	// before new ones are dropped (maxQueuedEvents).
	DefaultEventQueueSize = 1000
	// DefaultEventRetryInterval is the pause between attempts to write an
	// event the apiserver could not be reached for; the first pause is a
	// random fraction of it, so that clients do not retry in step.
	DefaultEventRetryInterval = 10 * time.Second
	// DefaultEventMaxTries bounds the attempts per event (maxTriesPerEvent).
	DefaultEventMaxTries = 12
)

// Outcomes of an event, the values of kcm_events_total's outcome label.
const (
	eventCreated  = "created"
	eventPatched  = "patched"
	eventRejected = "rejected"
	eventSpam     = "spam_filtered"
	eventDropped  = "dropped"
	eventFailed   = "failed"
)

// BroadcasterOptions configure a Broadcaster; the zero value gives
// client-go's behaviour on the real clock without metrics.
type BroadcasterOptions struct {
	Clock   clock.Clock
	Logger  zerolog.Logger
	Metrics *Metrics
	// QueueSize: DefaultEventQueueSize when 0.
	QueueSize int
	// RetryInterval: DefaultEventRetryInterval when 0.
	RetryInterval time.Duration
	// MaxTries: DefaultEventMaxTries when 0.
	MaxTries int
	// jitter returns the fraction of RetryInterval of the first pause;
	// rand.Float64 unless a test sets it.
	jitter func() float64
}

// Broadcaster takes the events its recorders emit and writes them to the
// apiserver (client-go's EventBroadcaster with StartRecordingToSink):
//
//	Recorder.Event ──▶ [bounded queue] ──▶ Run: correlate ──▶ create or patch ──▶ sink
//	(never blocks;      (full: drop,          (aggregate,        (retry while the
//	 any goroutine)      count, log)           count, filter)     server is unreachable)
//
// One goroutine, Run, does all the writing, so a worker that records an
// event never waits for the apiserver. kube-controller-manager gives every
// controller a broadcaster of its own; so does kcm (LoopOptions.Events
// runs it for as long as the controller runs).
type Broadcaster struct {
	sink  EventSink
	clock clock.Clock
	log   zerolog.Logger
	m     *Metrics
	o     BroadcasterOptions
	corr  *correlator
	queue chan *api.CoreEvent
}

// NewBroadcaster returns a broadcaster writing to sink. Events are queued
// from the start; they are written once Run runs.
func NewBroadcaster(sink EventSink, o BroadcasterOptions) *Broadcaster {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.QueueSize <= 0 {
		o.QueueSize = DefaultEventQueueSize
	}
	if o.RetryInterval <= 0 {
		o.RetryInterval = DefaultEventRetryInterval
	}
	if o.MaxTries <= 0 {
		o.MaxTries = DefaultEventMaxTries
	}
	if o.jitter == nil {
		o.jitter = rand.Float64
	}
	return &Broadcaster{
		sink: sink, clock: o.Clock, log: o.Logger, m: o.Metrics, o: o,
		corr: newCorrelator(o.Clock), queue: make(chan *api.CoreEvent, o.QueueSize),
	}
}

// NewBroadcaster returns a broadcaster writing through client (the
// controller's own) with the context's clock, logger and metrics.
func (cc ControllerContext) NewBroadcaster(client *rest.Client) *Broadcaster {
	return NewBroadcaster(NewClientSink(client), BroadcasterOptions{Clock: cc.Clock, Logger: cc.Logger, Metrics: cc.Metrics})
}

// NewRecorder returns a recorder whose events name component as their
// source (kube-controller-manager's controllers use names such as
// "replicaset-controller" and "deployment-controller").
func (b *Broadcaster) NewRecorder(component string) *Recorder {
	return &Recorder{b: b, source: api.EventSource{Component: component}}
}

// enqueue hands e to the writer, or drops it when the queue is full.
func (b *Broadcaster) enqueue(e *api.CoreEvent) {
	select {
	case b.queue <- e:
	default:
		b.count(e, eventDropped)
		b.log.Error().Str("reason", e.Reason).Str("namespace", e.InvolvedObject.Namespace).
			Str("name", e.InvolvedObject.Name).Msg("too many queued events; event dropped")
	}
}

// Run writes queued events until ctx ends; events still queued then are
// not written (client-go's Shutdown drops them too).
func (b *Broadcaster) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case e := <-b.queue:
			b.record(ctx, e)
		}
	}
}

// record correlates e and writes the result, retrying while the apiserver
// cannot be reached.
func (b *Broadcaster) record(ctx context.Context, e *api.CoreEvent) {
	c := b.corr.correlate(e)
	if c.Skip {
		b.count(e, eventSpam)
		return
	}
	for try := 1; ; try++ {
		outcome, done := b.write(ctx, c.Event, c.Patch)
		if done {
			b.count(c.Event, outcome)
			return
		}
		if try >= b.o.MaxTries {
			b.count(c.Event, eventFailed)
			b.log.Error().Str("event", c.Event.Name).Int("tries", try).Msg("unable to write event; giving up")
			return
		}
		delay := b.o.RetryInterval
		if try == 1 {
			delay = time.Duration(float64(delay) * b.o.jitter())
		}
		t := b.clock.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			b.count(c.Event, eventFailed)
			return
		case <-t.C():
		}
	}
}

// write creates e, or patches it when it repeats one already written
// (creating it after all if it is gone). It reports done unless the
// failure may pass (the server was not reached); a server's refusal is
// final, as in client-go.
func (b *Broadcaster) write(ctx context.Context, e *api.CoreEvent, patch []byte) (outcome string, done bool) {
	var got *api.CoreEvent
	var err error
	outcome = eventPatched
	update := e.Count > 1
	if update {
		got, err = b.sink.Patch(ctx, e, patch)
	}
	if !update || rest.IsNotFound(err) {
		e.ResourceVersion = ""
		got, err = b.sink.Create(ctx, e)
		outcome = eventCreated
	}
	if err == nil {
		b.corr.written(got)
		return outcome, true
	}
	var se *rest.StatusError
	if errors.As(err, &se) {
		lvl := zerolog.ErrorLevel
		if rest.IsAlreadyExists(err) || rest.IsNamespaceTerminating(err) {
			lvl = zerolog.DebugLevel
		}
		b.log.WithLevel(lvl).Err(err).Str("event", e.Name).Msg("server rejected event; not retrying")
		return eventRejected, true
	}
	b.log.Error().Err(err).Str("event", e.Name).Msg("unable to write event; may retry")
	return "", false
}

func (b *Broadcaster) count(e *api.CoreEvent, outcome string) {
	if b.m != nil {
		b.m.events.WithLabelValues(e.Source.Component, outcome).Inc()
	}
}
