package ctrl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// memSink is an in-memory event store with injectable failures.
type memSink struct {
	mu     sync.Mutex
	events map[string]*api.CoreEvent
	rv     int
	calls  []string
	// fail, when set, answers the n-th call (from 1) instead of the store.
	fail func(n int) error
}

func newMemSink() *memSink { return &memSink{events: map[string]*api.CoreEvent{}} }

func (s *memSink) do(verb string, e *api.CoreEvent, patch []byte) (*api.CoreEvent, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := e.Namespace + "/" + e.Name
	s.calls = append(s.calls, fmt.Sprintf("%s %s %s", verb, key, patch))
	if s.fail != nil {
		if err := s.fail(len(s.calls)); err != nil {
			return nil, err
		}
	}
	stored, ok := s.events[key]
	switch {
	case verb == "create" && ok:
		return nil, rest.StatusErrorFrom("POST", key, rest.Status{Code: 409, Reason: "AlreadyExists"})
	case verb == "patch" && !ok:
		return nil, rest.StatusErrorFrom("PATCH", key, rest.Status{Code: 404, Reason: "NotFound"})
	case verb == "patch":
		cp := *stored
		cp.Count, cp.LastTimestamp, cp.Message = e.Count, e.LastTimestamp, e.Message
		stored = &cp
	default:
		cp := *e
		stored = &cp
	}
	s.rv++
	stored.ResourceVersion = fmt.Sprint(s.rv)
	s.events[key] = stored
	out := *stored
	return &out, nil
}

func (s *memSink) Create(_ context.Context, e *api.CoreEvent) (*api.CoreEvent, error) {
	return s.do("create", e, nil)
}

func (s *memSink) Patch(_ context.Context, e *api.CoreEvent, patch []byte) (*api.CoreEvent, error) {
	return s.do("patch", e, patch)
}

func (s *memSink) got() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

func (s *memSink) only() *api.CoreEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.events {
		return e
	}
	return nil
}

// runBroadcaster starts b.Run in the bubble and returns its stop.
func runBroadcaster(b *Broadcaster) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); b.Run(ctx) }()
	return func() { cancel(); <-done }
}

func eventsMetric(t *testing.T, reg *prometheus.Registry, outcome string) float64 {
	t.Helper()
	return metricValue(t, reg, "kcm_events_total", "outcome", outcome)
}

func newTestBroadcaster(t *testing.T, sink EventSink, o BroadcasterOptions) (*Broadcaster, *clock.Fake, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(t0)
	o.Clock, o.Metrics, o.Logger = clk, m, zerolog.Nop()
	if o.jitter == nil {
		o.jitter = func() float64 { return 0.5 }
	}
	return NewBroadcaster(sink, o), clk, reg
}

// TestBroadcasterCreatesThenPatches: the first event is created, its
// repeat patched by name (count 2), a different event created.
func TestBroadcasterCreatesThenPatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := newMemSink()
		b, clk, reg := newTestBroadcaster(t, sink, BroadcasterOptions{})
		stop := runBroadcaster(b)
		rec := b.NewRecorder("replicaset-controller")
		rec.Eventf(rsRef, api.EventTypeNormal, ReasonSuccessfulCreate, "Created pod: %s", "web-1")
		synctest.Wait()
		clk.Step(time.Second)
		rec.Event(rsRef, api.EventTypeNormal, ReasonSuccessfulCreate, "Created pod: web-1")
		rec.Event(rsRef, api.EventTypeWarning, ReasonFailedCreate, "quota")
		synctest.Wait()
		stop()
		name := "ns/" + eventName("web-5d4f", t0)
		want := []string{
			"create " + name + " ",
			"patch " + name + ` {"count":2,"lastTimestamp":"2025-01-02T03:04:06Z","message":"Created pod: web-1"}`,
			"create ns/" + eventName("web-5d4f", t0.Add(time.Second)) + " ",
		}
		if got := sink.got(); !slices.Equal(got, want) {
			t.Fatalf("sink calls\n got %q\nwant %q", got, want)
		}
		if eventsMetric(t, reg, eventCreated) != 2 || eventsMetric(t, reg, eventPatched) != 1 {
			t.Errorf("kcm_events_total created=%v patched=%v", eventsMetric(t, reg, eventCreated), eventsMetric(t, reg, eventPatched))
		}
	})
}

// TestBroadcasterRecreatesDeletedEvent: a repeat whose event is gone from
// the server is created again under the same name, count kept, without a
// resourceVersion (client-go's recordEvent).
func TestBroadcasterRecreatesDeletedEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := newMemSink()
		b, _, _ := newTestBroadcaster(t, sink, BroadcasterOptions{})
		stop := runBroadcaster(b)
		defer stop()
		rec := b.NewRecorder("c")
		rec.Event(rsRef, api.EventTypeNormal, "R", "m")
		synctest.Wait()
		sink.mu.Lock()
		clear(sink.events)
		sink.mu.Unlock()
		rec.Event(rsRef, api.EventTypeNormal, "R", "m")
		synctest.Wait()
		calls := sink.got()
		if len(calls) != 3 || calls[2] != "create ns/"+eventName("web-5d4f", t0)+" " {
			t.Fatalf("calls %q", calls)
		}
		if e := sink.only(); e.Count != 2 || e.ResourceVersion != "2" {
			t.Fatalf("recreated event count %d rv %q", e.Count, e.ResourceVersion)
		}
	})
}

// TestBroadcasterRetries: a write that did not reach the server is retried
// after a jittered first pause, then every RetryInterval, MaxTries times
// in all.
func TestBroadcasterRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := newMemSink()
		sink.fail = func(n int) error {
			if n <= 2 {
				return errors.New("connection refused")
			}
			return nil
		}
		b, clk, reg := newTestBroadcaster(t, sink, BroadcasterOptions{})
		stop := runBroadcaster(b)
		defer stop()
		b.NewRecorder("c").Event(rsRef, api.EventTypeNormal, "R", "m")
		synctest.Wait()
		if len(sink.got()) != 1 {
			t.Fatalf("calls %q", sink.got())
		}
		clk.Step(5*time.Second - time.Nanosecond) // half of 10 s: the jitter
		synctest.Wait()
		if len(sink.got()) != 1 {
			t.Fatal("retried before the jittered pause")
		}
		clk.Step(time.Nanosecond)
		synctest.Wait()
		clk.Step(10*time.Second - time.Nanosecond)
		synctest.Wait()
		if len(sink.got()) != 2 {
			t.Fatalf("second retry too early: %q", sink.got())
		}
		clk.Step(time.Nanosecond)
		synctest.Wait()
		if len(sink.got()) != 3 || sink.only() == nil || eventsMetric(t, reg, eventCreated) != 1 {
			t.Fatalf("calls %q", sink.got())
		}
	})
}

func TestBroadcasterGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := newMemSink()
		sink.fail = func(int) error { return errors.New("connection refused") }
		b, clk, reg := newTestBroadcaster(t, sink, BroadcasterOptions{MaxTries: 3, RetryInterval: time.Second})
		stop := runBroadcaster(b)
		defer stop()
		b.NewRecorder("c").Event(rsRef, api.EventTypeNormal, "R", "m")
		for range 10 {
			synctest.Wait()
			clk.Step(time.Second)
		}
		synctest.Wait()
		if n := len(sink.got()); n != 3 || eventsMetric(t, reg, eventFailed) != 1 {
			t.Fatalf("%d tries, failed=%v; want 3 tries then give up", n, eventsMetric(t, reg, eventFailed))
		}
	})
}

// TestBroadcasterServerRejection: an answer from the server is final: no
// retry (client-go gives up on any StatusError).
func TestBroadcasterServerRejection(t *testing.T) {
	for _, status := range []rest.Status{
		{Code: 403, Reason: "Forbidden"},
		{Code: 409, Reason: "AlreadyExists"},
		{Code: 403, Reason: "Forbidden", Details: &rest.StatusDetails{Causes: []rest.StatusCause{{Type: rest.CauseNamespaceTerminating}}}},
		{Code: 500, Reason: "InternalError"},
	} {
		synctest.Test(t, func(t *testing.T) {
			sink := newMemSink()
			sink.fail = func(int) error { return rest.StatusErrorFrom("POST", "/x", status) }
			b, clk, reg := newTestBroadcaster(t, sink, BroadcasterOptions{})
			stop := runBroadcaster(b)
			defer stop()
			b.NewRecorder("c").Event(rsRef, api.EventTypeNormal, "R", "m")
			synctest.Wait()
			clk.Step(time.Hour)
			synctest.Wait()
			if n := len(sink.got()); n != 1 || eventsMetric(t, reg, eventRejected) != 1 {
				t.Fatalf("%s: %d calls, rejected=%v", status.Reason, n, eventsMetric(t, reg, eventRejected))
			}
		})
	}
}

// TestRecorderNeverBlocks: with the writer not running, events beyond the
// queue's size are dropped and counted; Event returns at once.
func TestRecorderNeverBlocks(t *testing.T) {
	// In a bubble, an Event that blocked would be reported as a deadlock.
	synctest.Test(t, func(t *testing.T) {
		sink := newMemSink()
		b, _, reg := newTestBroadcaster(t, sink, BroadcasterOptions{QueueSize: 2})
		rec := b.NewRecorder("c")
		for i := range 5 {
			rec.Eventf(rsRef, api.EventTypeNormal, "R", "m%d", i)
		}
		if got := eventsMetric(t, reg, eventDropped); got != 3 {
			t.Fatalf("dropped = %v, want 3", got)
		}
		rec.Event(rsRef, "Bogus", "R", "m") // not Normal or Warning: not queued at all
		if got := eventsMetric(t, reg, eventDropped); got != 3 || len(b.queue) != 2 {
			t.Fatalf("an event of an unsupported type was queued or counted: dropped=%v queued=%d", got, len(b.queue))
		}
	})
}

// TestBroadcasterStopsDuringRetry: cancelling Run while it waits to retry
// returns at once.
func TestBroadcasterStopsDuringRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := newMemSink()
		sink.fail = func(int) error { return errors.New("connection refused") }
		b, _, reg := newTestBroadcaster(t, sink, BroadcasterOptions{})
		stop := runBroadcaster(b)
		b.NewRecorder("c").Event(rsRef, api.EventTypeNormal, "R", "m")
		synctest.Wait()
		stop()
		if eventsMetric(t, reg, eventFailed) != 1 {
			t.Fatal("an event abandoned at shutdown was not counted as failed")
		}
	})
}

// TestSpamFilteredCounted: past the burst, events are filtered and counted.
func TestSpamFilteredCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sink := newMemSink()
		b, _, reg := newTestBroadcaster(t, sink, BroadcasterOptions{})
		stop := runBroadcaster(b)
		defer stop()
		rec := b.NewRecorder("c")
		for range spamBurst + 2 {
			rec.Event(rsRef, api.EventTypeNormal, "R", "m")
			synctest.Wait()
		}
		if eventsMetric(t, reg, eventSpam) != 2 || len(sink.got()) != spamBurst {
			t.Fatalf("spam_filtered=%v calls=%d", eventsMetric(t, reg, eventSpam), len(sink.got()))
		}
	})
}
