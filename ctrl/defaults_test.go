package ctrl

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestDefaults: the zero options give client-go's and
// kube-controller-manager's numbers.
func TestDefaults(t *testing.T) {
	l := NewLoop("d", nil, LoopOptions{})
	defer l.Queue().ShutDown()
	if l.o.DrainTimeout != DefaultDrainTimeout || l.clock != (clock.Real{}) || DefaultDrainTimeout != 30*time.Second {
		t.Errorf("loop defaults: drain %v clock %v", l.o.DrainTimeout, l.clock)
	}
	l2 := NewLoop("d2", nil, LoopOptions{DrainTimeout: time.Second})
	defer l2.Queue().ShutDown()
	if l2.o.DrainTimeout != time.Second {
		t.Errorf("a configured drain timeout was replaced: %v", l2.o.DrainTimeout)
	}
	b := NewBroadcaster(nil, BroadcasterOptions{})
	if cap(b.queue) != 1000 || b.o.RetryInterval != 10*time.Second || b.o.MaxTries != 12 || b.clock != (clock.Real{}) || b.o.jitter == nil {
		t.Errorf("broadcaster defaults: queue %d interval %v tries %d clock %v", cap(b.queue), b.o.RetryInterval, b.o.MaxTries, b.clock)
	}
	if j := b.o.jitter(); j < 0 || j >= 1 {
		t.Errorf("jitter %v outside [0, 1)", j)
	}
	b = NewBroadcaster(nil, BroadcasterOptions{QueueSize: 1, RetryInterval: time.Second, MaxTries: 1})
	if cap(b.queue) != 1 || b.o.RetryInterval != time.Second || b.o.MaxTries != 1 {
		t.Errorf("configured broadcaster options replaced: %+v", b.o)
	}
	if ExpectationsTimeout != 5*time.Minute || aggregateMaxEvents != 10 || aggregateInterval != 10*time.Minute || spamBurst != 25 || spamRefill != 5*time.Minute {
		t.Error("a client-go constant changed")
	}
	if e := NewControllerExpectations(nil, zerolog.Nop()); e.clock != (clock.Real{}) {
		t.Errorf("expectations clock %v", e.clock)
	}
}

// TestRejectionLogLevel: refusals that are expected (the event exists, the
// namespace is going away) are logged at debug level, others as errors,
// as client-go does.
func TestRejectionLogLevel(t *testing.T) {
	for _, tc := range []struct {
		status rest.Status
		level  string
	}{
		{rest.Status{Code: 409, Reason: "AlreadyExists"}, "debug"},
		{rest.Status{Code: 403, Reason: "Forbidden", Details: &rest.StatusDetails{Causes: []rest.StatusCause{{Type: "Other"}, {Type: rest.CauseNamespaceTerminating}}}}, "debug"},
		{rest.Status{Code: 403, Reason: "Forbidden", Details: &rest.StatusDetails{Causes: []rest.StatusCause{{Type: "Other"}}}}, "error"},
		{rest.Status{Code: 403, Reason: "Forbidden"}, "error"},
	} {
		synctest.Test(t, func(t *testing.T) {
			var buf bytes.Buffer
			sink := newMemSink()
			sink.fail = func(int) error { return rest.StatusErrorFrom("POST", "/x", tc.status) }
			b := NewBroadcaster(sink, BroadcasterOptions{Clock: clock.NewFake(t0), Logger: zerolog.New(&buf)})
			stop := runBroadcaster(b)
			b.NewRecorder("c").Event(rsRef, api.EventTypeNormal, "R", "m")
			synctest.Wait()
			stop()
			if want := `"level":"` + tc.level + `"`; !strings.Contains(buf.String(), want) || !strings.Contains(buf.String(), "not retrying") {
				t.Errorf("%s: log %s, want %s", tc.status.Reason, buf.String(), want)
			}
		})
	}
}
