package tainteviction

import (
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
)

// TestTimedEvictions follows upstream's timed_workers_test.go: work added
// runs at its time and not before, added twice runs once, cancelled does
// not run; plus the cancel report (only a timed eviction) and done
// forgetting only the eviction it ran.
func TestTimedEvictions(t *testing.T) {
	c := clock.NewFake(t0)
	q := &fakeQueue{clock: c, due: map[string]time.Time{}}
	e := newTimedEvictions(q)

	if !e.add("ns/now", t0, t0) || !e.add("ns/later", t0, t0.Add(time.Minute)) {
		t.Fatal("add refused a new eviction")
	}
	if e.add("ns/later", t0, t0.Add(time.Second)) {
		t.Error("a second add replaced the scheduled eviction (upstream's AddWork skips it)")
	}
	if got := q.pop(); !slices.Equal(got, []string{"evict/ns/now"}) {
		t.Errorf("due at once: %q, want only the immediate eviction", got)
	}
	if s, wait := e.take("ns/later", t0); s != nil || wait != time.Minute {
		t.Errorf("take before its time = %v, %v; want a wait of 1m", s, wait)
	}
	c.Step(time.Minute)
	if got := q.pop(); !slices.Equal(got, []string{"evict/ns/later"}) {
		t.Errorf("due after a minute: %q", got)
	}
	s, _ := e.take("ns/later", c.Now())
	if s == nil || !s.running {
		t.Fatalf("take at its time = %+v, want it running", s)
	}
	if again, _ := e.take("ns/later", c.Now()); again != nil {
		t.Error("a running eviction was taken twice")
	}
	if !e.cancel("ns/later") {
		t.Error("cancelling a running timed eviction is reported by upstream; got false")
	}
	e.add("ns/later", c.Now(), c.Now().Add(time.Hour)) // scheduled anew while the old one ran
	e.done("ns/later", s)
	if _, ok := e.get("ns/later"); !ok {
		t.Error("done forgot the eviction scheduled anew")
	}
	if e.cancel("ns/now") {
		t.Error("cancelling an immediate eviction was reported (upstream: a nil TimedWorker, not reported)")
	}
	if e.cancel("ns/missing") {
		t.Error("cancelling nothing was reported")
	}
	if n := e.len(); n != 1 {
		t.Errorf("%d evictions, want 1", n)
	}
}
