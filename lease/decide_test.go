package lease_test

import (
	"errors"
	"testing"
	"time"

	"github.com/kcmlab/kcm/lease"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

var me = lease.Candidate{Identity: "me", LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second}

// held returns a State that observed a record held by holder at observedAt.
func held(holder string, observedAt time.Time, mod ...func(*lease.Record)) lease.State {
	r := lease.Record{
		HolderIdentity: holder, LeaseDuration: 15 * time.Second,
		AcquireTime: t0.Add(-time.Hour), RenewTime: observedAt, LeaseTransitions: 4, ResourceVersion: "41",
	}
	for _, m := range mod {
		m(&r)
	}
	return lease.State{Exists: true, Observed: r, ObservedAt: observedAt}
}

func leading(s lease.State, lastRenew time.Time) lease.State {
	s.Leading, s.LastRenew = true, lastRenew
	return s
}

// TestDecide steps the pure core through the cases of the election. The
// rule under test is the one client-go's LeaderElector and every
// Kubernetes component follow: a candidate may take over a held Lease only
// leaseDurationSeconds after it OBSERVED the record last change; renewTime
// is never compared with the local clock.
func TestDecide(t *testing.T) {
	renewTime := func(d time.Duration) func(*lease.Record) {
		return func(r *lease.Record) { r.RenewTime = t0.Add(d) }
	}
	cases := []struct {
		name   string
		s      lease.State
		now    time.Time
		action lease.Action
		until  time.Time
	}{
		{"no lease: create", lease.State{}, t0, lease.Create, time.Time{}},
		{"free lease: acquire at once", held("", t0), t0, lease.Acquire, time.Time{}},
		{"held, just observed: wait", held("other", t0), t0, lease.Wait, t0.Add(15 * time.Second)},
		{"held, 1ns before expiry: wait", held("other", t0), t0.Add(15*time.Second - 1), lease.Wait, t0.Add(15 * time.Second)},
		{"held, expired as observed: acquire", held("other", t0), t0.Add(15 * time.Second), lease.Acquire, time.Time{}},
		{"skew: renewTime an hour in the past, observed now: wait",
			held("other", t0, renewTime(-time.Hour)), t0.Add(time.Second), lease.Wait, t0.Add(15 * time.Second)},
		{"skew: renewTime an hour in the future, observed 15s ago: acquire",
			held("other", t0, renewTime(time.Hour)), t0.Add(15 * time.Second), lease.Acquire, time.Time{}},
		{"the record's own duration counts (released with 1s)",
			held("other", t0, func(r *lease.Record) { r.LeaseDuration = time.Second }), t0.Add(time.Second), lease.Acquire, time.Time{}},
		{"a record without duration uses mine",
			held("other", t0, func(r *lease.Record) { r.LeaseDuration = 0 }), t0.Add(14 * time.Second), lease.Wait, t0.Add(15 * time.Second)},
		{"mine, leading: renew", leading(held("me", t0), t0), t0.Add(2 * time.Second), lease.Renew, time.Time{}},
		{"mine, not leading (same identity restarted): renew", held("me", t0), t0, lease.Renew, time.Time{}},
		{"leading, 1ns before RenewDeadline: renew", leading(held("me", t0), t0), t0.Add(10*time.Second - 1), lease.Renew, time.Time{}},
		{"leading, RenewDeadline reached: step down", leading(held("me", t0), t0), t0.Add(10 * time.Second), lease.StepDown, time.Time{}},
		{"leading, lease names another: step down", leading(held("other", t0), t0), t0.Add(time.Second), lease.StepDown, time.Time{}},
		{"leading, lease names nobody: step down", leading(held("", t0), t0), t0.Add(time.Second), lease.StepDown, time.Time{}},
		{"leading, lease deleted: step down", leading(lease.State{ObservedAt: t0}, t0), t0.Add(time.Second), lease.StepDown, time.Time{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := lease.Decide(c.s, c.now, me)
			if d.Action != c.action {
				t.Fatalf("action = %v, want %v (err %v)", d.Action, c.action, d.Err)
			}
			if !d.Until.Equal(c.until) {
				t.Errorf("until = %v, want %v", d.Until, c.until)
			}
			if (d.Action == lease.StepDown) != errors.Is(d.Err, lease.ErrLeadershipLost) {
				t.Errorf("err = %v for action %v", d.Err, d.Action)
			}
		})
	}
}

// TestDecideRecords checks the record each write carries: transitions
// count changes of holder, acquireTime marks the change, the update is
// conditioned on the observed resourceVersion.
func TestDecideRecords(t *testing.T) {
	create := lease.Decide(lease.State{}, t0, me).Write
	want := lease.Record{HolderIdentity: "me", LeaseDuration: 15 * time.Second, AcquireTime: t0, RenewTime: t0}
	if create != want {
		t.Errorf("create writes %+v, want %+v", create, want)
	}

	acq := lease.Decide(held("other", t0), t0.Add(20*time.Second), me).Write
	want = lease.Record{HolderIdentity: "me", LeaseDuration: 15 * time.Second, AcquireTime: t0.Add(20 * time.Second),
		RenewTime: t0.Add(20 * time.Second), LeaseTransitions: 5, ResourceVersion: "41"}
	if acq != want {
		t.Errorf("acquire writes %+v, want %+v", acq, want)
	}

	s := leading(held("me", t0), t0)
	renew := lease.Decide(s, t0.Add(2*time.Second), me).Write
	want = s.Observed
	want.RenewTime = t0.Add(2 * time.Second)
	if renew != want {
		t.Errorf("renew writes %+v, want %+v (acquireTime and transitions kept)", renew, want)
	}

	noAcquire := leading(held("me", t0, func(r *lease.Record) { r.AcquireTime = time.Time{} }), t0)
	if got := lease.Decide(noAcquire, t0.Add(2*time.Second), me).Write.AcquireTime; !got.Equal(t0.Add(2 * time.Second)) {
		t.Errorf("renewing a record without acquireTime writes acquireTime %v, want now", got)
	}

	odd := me
	odd.LeaseDuration = 2500 * time.Millisecond
	if got := lease.Decide(lease.State{}, t0, odd).Write.LeaseDuration; got != 3*time.Second {
		t.Errorf("LeaseDuration 2.5s is written as %v, want 3s (rounded up to whole seconds)", got)
	}
}

func TestObserve(t *testing.T) {
	s := lease.Observe(lease.State{}, lease.Record{HolderIdentity: "a", ResourceVersion: "1"}, true, t0)
	if !s.ObservedAt.Equal(t0) {
		t.Fatalf("first observation at %v, want %v", s.ObservedAt, t0)
	}
	same := lease.Observe(s, s.Observed, true, t0.Add(5*time.Second))
	if !same.ObservedAt.Equal(t0) {
		t.Errorf("an unchanged record moved ObservedAt to %v", same.ObservedAt)
	}
	bumped := s.Observed
	bumped.ResourceVersion = "2"
	if got := lease.Observe(s, bumped, true, t0.Add(5*time.Second)).ObservedAt; !got.Equal(t0.Add(5 * time.Second)) {
		t.Errorf("a new resourceVersion left ObservedAt at %v", got)
	}
	renewed := s.Observed
	renewed.RenewTime = t0.Add(-time.Hour) // skewed holder clock: still a change
	if got := lease.Observe(s, renewed, true, t0.Add(6*time.Second)).ObservedAt; !got.Equal(t0.Add(6 * time.Second)) {
		t.Errorf("a changed renewTime left ObservedAt at %v", got)
	}
	gone := lease.Observe(s, lease.Record{}, false, t0.Add(7*time.Second))
	if gone.Exists || !gone.ObservedAt.Equal(t0.Add(7*time.Second)) {
		t.Errorf("deletion observed as %+v", gone)
	}
}

// TestWrote: after a successful write the candidate leads, with its
// deadline counted from when the write was issued (the record may have
// been committed, and seen by others, at any moment after that) and the
// record observed when the answer came.
func TestWrote(t *testing.T) {
	rec := lease.Record{HolderIdentity: "me", LeaseDuration: 15 * time.Second, ResourceVersion: "7"}
	issued, done := t0, t0.Add(3*time.Second)
	s := lease.Wrote(held("other", t0.Add(-time.Minute)), rec, issued, done)
	if !s.Leading || !s.LastRenew.Equal(issued) {
		t.Errorf("Leading %v, LastRenew %v; want true, the issue time %v", s.Leading, s.LastRenew, issued)
	}
	if !s.Exists || s.Observed != rec || !s.ObservedAt.Equal(done) {
		t.Errorf("observed %+v at %v; want %+v at the answer's time %v", s.Observed, s.ObservedAt, rec, done)
	}
}

func TestReleaseRecord(t *testing.T) {
	s := leading(held("me", t0), t0)
	rec, ok := lease.ReleaseRecord(s, t0.Add(3*time.Second), me)
	if !ok {
		t.Fatal("holder cannot release its own lease")
	}
	want := s.Observed
	want.HolderIdentity, want.LeaseDuration, want.RenewTime = "", time.Second, t0.Add(3*time.Second)
	if rec != want {
		t.Errorf("release writes %+v, want %+v", rec, want)
	}
	if _, ok := lease.ReleaseRecord(held("other", t0), t0, me); ok {
		t.Error("released a lease held by another")
	}
	if _, ok := lease.ReleaseRecord(lease.State{}, t0, me); ok {
		t.Error("released a lease that does not exist")
	}
}

func TestActionString(t *testing.T) {
	for a, want := range map[lease.Action]string{lease.Wait: "wait", lease.Create: "create", lease.Acquire: "acquire",
		lease.Renew: "renew", lease.StepDown: "step-down", lease.Action(5): "Action(5)", lease.Action(-1): "Action(-1)"} {
		if got := a.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(a), got, want)
		}
	}
}
