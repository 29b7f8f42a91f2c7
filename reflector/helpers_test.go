package reflector_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/internal/testing/fakelw"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
)

// The shell's tests run a Reflector against fakelw (every LIST and WATCH
// answered by the test, in lockstep) and a recording sink, with a
// clock.Fake for its waits: no sleeps, no timing luck.

var start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

type obj = *api.RawObject

func pod(name, rv string) obj {
	return &api.RawObject{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// bookmark is a BOOKMARK at rv; initialEnd annotates it as the end of a
// WatchList's initial events.
func bookmark(rv string, initialEnd bool) rest.WatchEvent[obj] {
	o := &api.RawObject{ObjectMeta: api.ObjectMeta{ResourceVersion: rv}}
	if initialEnd {
		o.Annotations = map[string]string{rest.InitialEventsEndAnnotation: "true"}
	}
	return rest.WatchEvent[obj]{Type: rest.Bookmark, Object: o}
}

// sink records what the reflector hands it, as lines like "add p@101",
// "start", "replace p@90", "finish 100", "abort". refuse, when set, is
// asked first and may refuse the operation (which is then not recorded).
type sink struct {
	mu     sync.Mutex
	ops    []string
	refuse func(op string) error
}

func (s *sink) do(op string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refuse != nil {
		if err := s.refuse(op); err != nil {
			return err
		}
	}
	s.ops = append(s.ops, op)
	return nil
}

func (s *sink) Ops() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ops...)
}

func (s *sink) Add(o obj) error          { return s.do("add " + o.Name + "@" + o.ResourceVersion) }
func (s *sink) Update(o obj) error       { return s.do("update " + o.Name + "@" + o.ResourceVersion) }
func (s *sink) Delete(o obj) error       { return s.do("delete " + o.Name + "@" + o.ResourceVersion) }
func (s *sink) Bookmark(rv string) error { return s.do("bookmark " + rv) }
func (s *sink) StartReplace() reflector.Replacer[obj] {
	_ = s.do("start")
	return replacer{s}
}

type replacer struct{ s *sink }

func (r replacer) Add(o obj) error        { return r.s.do("replace " + o.Name + "@" + o.ResourceVersion) }
func (r replacer) Finish(rv string) error { return r.s.do("finish " + rv) }
func (r replacer) Abort()                 { _ = r.s.do("abort") }

// refuseOnce refuses the first operation equal to op with err.
func refuseOnce(op string, err error) func(string) error {
	done := false
	return func(got string) error {
		if got == op && !done {
			done = true
			return err
		}
		return nil
	}
}

// observer records what a reflector reports.
type observer struct {
	mu    sync.Mutex
	lines []string
	errs  []error // the causes of phase changes
}

func (o *observer) add(format string, a ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lines = append(o.lines, fmt.Sprintf(format, a...))
}

func (o *observer) ListPage(items int, rv string, more bool) {
	o.add("page %d rv=%s more=%v", items, rv, more)
}
func (o *observer) WatchEvent(t rest.EventType, rv string, bytes int) {
	o.add("event %s rv=%s bytes=%d", t, rv, bytes)
}
func (o *observer) PhaseChange(from, to reflector.Phase, err error) {
	o.add("phase %s→%s (%v)", from, to, err)
	if err != nil {
		o.mu.Lock()
		o.errs = append(o.errs, err)
		o.mu.Unlock()
	}
}

// firstErr returns the cause of the first phase change that had one.
func (o *observer) firstErr() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.errs) == 0 {
		return nil
	}
	return o.errs[0]
}

func (o *observer) Lines() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.lines...)
}

// harness runs one Reflector until the test ends.
type harness struct {
	t    *testing.T
	lw   *fakelw.LW[obj]
	sink *sink
	clk  *clock.Fake
	obs  *observer
	log  *strings.Builder
	r    *reflector.Reflector[obj]

	cancel context.CancelFunc
	done   chan error
	logMu  sync.Mutex
}

// noJitter is the default backoff without its random part, so that waits
// are exact.
func noJitter() *reflector.Backoff {
	b := reflector.DefaultBackoff()
	b.Jitter = 0
	return &b
}

// defaultBackoff asks run for a reflector with its default backoff.
var defaultBackoff = &reflector.Backoff{}

// run starts a reflector with o; a nil o.Backoff becomes noJitter()
// (defaultBackoff: nil), a nil
// Clock a clock.Fake, a nil Observer the harness's observer.
func run(t *testing.T, o reflector.Options) *harness {
	return runWith(t, o, &sink{})
}

func runWith(t *testing.T, o reflector.Options, s *sink) *harness {
	t.Helper()
	h := &harness{t: t, lw: fakelw.New[obj](t), sink: s, clk: clock.NewFake(start), obs: &observer{},
		log: &strings.Builder{}, done: make(chan error, 1)}
	if o.Clock == nil {
		o.Clock = h.clk
	}
	switch o.Backoff {
	case nil:
		o.Backoff = noJitter()
	case defaultBackoff:
		o.Backoff = nil
	}
	if o.Observer == nil {
		o.Observer = h.obs
	}
	o.Logger = zerolog.New(lockedWriter{h}).Level(zerolog.DebugLevel)
	h.r = reflector.New[obj](h.lw, s, o)
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() { h.done <- h.r.Run(ctx) }()
	t.Cleanup(func() { h.stop() })
	return h
}

type lockedWriter struct{ h *harness }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.h.logMu.Lock()
	defer w.h.logMu.Unlock()
	return w.h.log.Write(p)
}

// Log returns what the reflector logged so far, one JSON object a line.
func (h *harness) Log() string {
	h.logMu.Lock()
	defer h.logMu.Unlock()
	return h.log.String()
}

// stop cancels Run and returns its result.
func (h *harness) stop() error {
	h.t.Helper()
	h.cancel()
	select {
	case err := <-h.done:
		h.done <- err // stop may be called again (t.Cleanup)
		return err
	case <-time.After(fakelw.Patience):
		h.t.Fatal("Run did not return after its context was cancelled")
		return nil
	}
}

// expectWait checks that the reflector waits exactly d on its clock, then
// lets the wait end.
func (h *harness) expectWait(d time.Duration) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), fakelw.Patience)
	defer cancel()
	if err := h.clk.BlockUntilWaiters(ctx, 1); err != nil {
		h.t.Fatalf("the reflector did not wait: %v", err)
	}
	h.clk.Step(d - time.Nanosecond)
	if h.clk.Waiters() != 1 {
		h.t.Fatalf("the wait ended before %v", d)
	}
	h.clk.Step(time.Nanosecond)
	if n := h.clk.Waiters(); n != 0 {
		h.t.Fatalf("the wait did not end at %v (%d waiters)", d, n)
	}
}

// awaitRV waits until the reflector has published resourceVersion rv, which
// it does once the event that brought rv is applied and its metrics are
// recorded: the test may then move the clock without racing that work.
func (h *harness) awaitRV(rv string) {
	h.t.Helper()
	deadline := time.Now().Add(fakelw.Patience)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for h.r.LastSyncResourceVersion() != rv {
		if time.Now().After(deadline) {
			h.t.Fatalf("resourceVersion %q never published (have %q)", rv, h.r.LastSyncResourceVersion())
		}
		<-tick.C
	}
}

// listAt answers the next request, which must be a LIST, with items at rv
// in one page.
func (h *harness) listAt(rv string, items ...obj) *fakelw.Call[obj] {
	h.t.Helper()
	c := h.lw.ExpectList()
	c.List(rest.ListMeta{ResourceVersion: rv}, items...)
	return c
}

// watchFrom expects a WATCH from resourceVersion rv and opens it.
func (h *harness) watchFrom(rv string) *fakelw.Stream[obj] {
	h.t.Helper()
	c := h.lw.ExpectWatch()
	if c.Options.ResourceVersion != rv || c.Options.SendInitialEvents != nil {
		h.t.Fatalf("WATCH %+v, want a plain watch from resourceVersion %q", c.Options, rv)
	}
	return c.Open()
}

func statusErr(code int, reason string) error {
	return &rest.StatusError{Status: rest.Status{Code: int32(code), Reason: reason}}
}

func equal(a, b []string) bool {
	return strings.Join(a, "\n") == strings.Join(b, "\n")
}
