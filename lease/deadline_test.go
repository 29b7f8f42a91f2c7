package lease_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/lease"
)

// The tests in this file pin down RenewDeadline, the rule the safety
// argument of doc.go rests on: a leader's context is cancelled
// RenewDeadline after its last successful write was *issued* — not after
// the answer arrived, and whether or not a request is still hanging. Each
// one stops a write inside the store (stall), so that the fake clock can
// move while the elector waits for the answer.

// stall wraps a Store. After arm, the next write (Create or Update) is
// announced on the returned stalledWrite's started channel and then held
// until the test closes release (the write goes through, late) or the
// write's context is done (as a request to an unreachable apiserver ends).
// Other calls pass straight through.
type stall struct {
	lease.Store
	mu   sync.Mutex
	next *stalledWrite // the write to hold next; guarded by mu
}

// stalledWrite is one held write.
type stalledWrite struct {
	started chan lease.Record // the record being written; sent once the write is held
	release chan struct{}     // closed by the test: let the write through
	done    chan error        // the write's outcome, once it returned
}

// arm makes the next write stall and returns its handle.
func (s *stall) arm() *stalledWrite {
	w := &stalledWrite{started: make(chan lease.Record, 1), release: make(chan struct{}), done: make(chan error, 1)}
	s.mu.Lock()
	s.next = w
	s.mu.Unlock()
	return w
}

func (s *stall) Create(ctx context.Context, r lease.Record) (lease.Record, error) {
	return s.write(ctx, r, s.Store.Create)
}

func (s *stall) Update(ctx context.Context, r lease.Record) (lease.Record, error) {
	return s.write(ctx, r, s.Store.Update)
}

func (s *stall) write(ctx context.Context, r lease.Record, f func(context.Context, lease.Record) (lease.Record, error)) (lease.Record, error) {
	s.mu.Lock()
	w := s.next
	s.next = nil
	s.mu.Unlock()
	if w == nil {
		return f(ctx, r)
	}
	w.started <- r
	select {
	case <-w.release:
	case <-ctx.Done():
		w.done <- ctx.Err()
		return lease.Record{}, ctx.Err()
	}
	out, err := f(ctx, r)
	w.done <- err
	return out, err
}

// leadOn starts node a on a stall over a fresh MemoryStore and waits until
// it leads, having created the lease at t0.
func leadOn(t *testing.T) (*node, *stall, *lease.MemoryStore) {
	t.Helper()
	store := &lease.MemoryStore{}
	st := &stall{Store: store}
	a := startNode(t, "a", st, clock.NewFake(t0), nil)
	a.settle(2)
	if at := recv(t, "start", a.started); !at.Equal(t0) {
		t.Fatalf("started leading at %v, want %v", at, t0)
	}
	return a, st, store
}

// assertDeadlineStop checks a leader's step-down for RenewDeadline: its
// context was cancelled at want, Run returned the deadline error (which
// says how long it went without a renewal), OnStoppedLeading ran and the
// leader no longer reports itself as such.
func assertDeadlineStop(t *testing.T, a *node, want time.Time, since time.Duration) {
	t.Helper()
	err := a.wait()
	if !errors.Is(err, lease.ErrLeadershipLost) {
		t.Fatalf("Run = %v, want ErrLeadershipLost", err)
	}
	if msg := "no successful renewal for " + since.String(); !strings.Contains(err.Error(), msg) {
		t.Errorf("Run = %q, want it to say %q", err, msg)
	}
	if at := recv(t, "stop", a.stopped); !at.Equal(want) {
		t.Errorf("leader's context cancelled at +%v, want +%v", at.Sub(t0), want.Sub(t0))
	}
	recv(t, "OnStoppedLeading", a.offDuty)
	if !a.returned.Load() {
		t.Error("Run returned before OnStartedLeading did")
	}
	if a.e.IsLeader() || a.gauge() != 0 {
		t.Errorf("after the step-down: IsLeader %v, gauge %v", a.e.IsLeader(), a.gauge())
	}
	if !a.logged("leadership lost; stopped leading") || a.logged("context done") {
		t.Errorf("log does not report the loss of leadership (and only that):\n%s", a.logs.String())
	}
}

// TestStepDownWhileRenewalHangs: the leader's renewal is sent and never
// answered. The leader must not wait for it: at RenewDeadline after its
// last successful write (the create at t0) its context is cancelled,
// OnStoppedLeading runs and Run returns the deadline error; the hanging
// request is cancelled. client-go's renew loop does the same with a
// context bounded by RenewDeadline around the whole retry.
func TestStepDownWhileRenewalHangs(t *testing.T) {
	a, st, _ := leadOn(t)
	w := st.arm()
	a.clk.Step(rp) // +2s: the renewal is sent, and hangs
	if rec := recv(t, "the renewal inside the store", w.started); !rec.RenewTime.Equal(t0.Add(rp)) {
		t.Fatalf("renewal writes renewTime %v, want +2s", rec.RenewTime)
	}
	a.clk.Step(rd - rp - time.Nanosecond) // 1ns before the deadline: still leading
	none(t, "stop before RenewDeadline", a.stopped)
	if !a.e.IsLeader() {
		t.Fatal("stepped down before RenewDeadline")
	}
	a.clk.Step(time.Nanosecond) // +10s = t0 + RenewDeadline; the write still hangs
	assertDeadlineStop(t, a, t0.Add(rd), rd)
	if err := recv(t, "the hanging write's end", w.done); !errors.Is(err, context.Canceled) {
		t.Errorf("the hanging write ended with %v, want context.Canceled", err)
	}
}

// TestLateRenewalAnswer: a renewal issued at +2s succeeds, but its answer
// arrives only at +5s (a slow apiserver). The lease may have been
// committed as early as +2s, so others may count their LeaseDuration from
// then: the leader's RenewDeadline, and its health check, run from +2s,
// the moment the write was issued, not from +5s when the answer came.
// client-go measures from the start of the try for the same reason.
func TestLateRenewalAnswer(t *testing.T) {
	const late = 3 * time.Second
	a, st, store := leadOn(t)
	w := st.arm()
	a.clk.Step(rp) // +2s: the renewal is sent
	recv(t, "the renewal inside the store", w.started)
	a.clk.Step(late) // +5s: the answer is on its way
	hang := st.arm() // the renewal after this one will hang
	close(w.release)
	if err := recv(t, "the late renewal's end", w.done); err != nil {
		t.Fatalf("late renewal: %v", err)
	}
	a.settle(2) // answer taken in: deadline re-armed, next renewal due at +7s
	issued := t0.Add(rp)
	if got := mustGet(t, store); !got.RenewTime.Equal(issued) || got.HolderIdentity != "a" {
		t.Fatalf("lease after the late renewal = %+v, want held by a, renewed at +2s", got)
	}
	limit := ld + lease.DefaultHealthTolerance
	if err := a.e.Check(issued.Add(limit)); err != nil {
		t.Errorf("Check at the limit after the issue time: %v", err)
	}
	if err := a.e.Check(issued.Add(limit + time.Nanosecond)); !errors.Is(err, lease.ErrRenewalStalled) {
		t.Errorf("Check just past the limit counted from the issue time = %v, want ErrRenewalStalled", err)
	}

	a.clk.Step(rp) // +7s: the next renewal is sent, and hangs
	recv(t, "the next renewal inside the store", hang.started)
	a.clk.Step(issued.Add(rd).Sub(a.clk.Now()) - time.Nanosecond) // 1ns before +12s
	none(t, "stop before RenewDeadline", a.stopped)
	a.clk.Step(time.Nanosecond) // +12s = issued + RenewDeadline
	if n := a.clk.Waiters(); n != 0 {
		t.Fatalf("at issued + RenewDeadline %d timer(s) still armed: the deadline runs from the answer, not the request", n)
	}
	assertDeadlineStop(t, a, issued.Add(rd), rd)
}

// TestAcquiringWriteOutlastsRenewDeadline: a candidate's acquiring write
// (here the create) succeeds, but its answer arrives RenewDeadline or more
// after it was issued. Others may already count their LeaseDuration from
// the issue time, so the candidate must not start leading: Run returns
// the deadline error and neither callback runs. One nanosecond sooner and
// it leads — until the deadline, one nanosecond later.
func TestAcquiringWriteOutlastsRenewDeadline(t *testing.T) {
	cases := []struct {
		name  string
		delay time.Duration // from issue to answer
		lead  bool
	}{
		{"answer 1ns before RenewDeadline: leads until it", rd - time.Nanosecond, true},
		{"answer at RenewDeadline: never leads", rd, false},
		{"answer 3s after RenewDeadline: never leads", rd + 3*time.Second, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			store := &lease.MemoryStore{}
			st := &stall{Store: store}
			w := st.arm()
			a := startNode(t, "a", st, clock.NewFake(t0), nil)
			recv(t, "the create inside the store", w.started)
			a.clk.Step(c.delay)
			close(w.release)
			if err := recv(t, "the create's end", w.done); err != nil {
				t.Fatalf("create: %v", err)
			}
			if got := mustGet(t, store); got.HolderIdentity != "a" {
				t.Fatalf("lease holder %q, want a (the write landed)", got.HolderIdentity)
			}
			if c.lead {
				a.settle(2)
				if at := recv(t, "start", a.started); !at.Equal(t0.Add(c.delay)) {
					t.Errorf("started at +%v, want +%v", at.Sub(t0), c.delay)
				}
				a.clk.Step(time.Nanosecond)
				assertDeadlineStop(t, a, t0.Add(rd), rd)
				return
			}
			err := a.wait()
			if !errors.Is(err, lease.ErrLeadershipLost) {
				t.Fatalf("Run = %v, want ErrLeadershipLost", err)
			}
			if msg := "no successful renewal for " + c.delay.String(); !strings.Contains(err.Error(), msg) {
				t.Errorf("Run = %q, want it to say %q", err, msg)
			}
			none(t, "OnStartedLeading", a.started)
			none(t, "OnStoppedLeading", a.offDuty)
			if a.e.IsLeader() || a.gauge() != 0 {
				t.Errorf("IsLeader %v, gauge %v; want false, 0", a.e.IsLeader(), a.gauge())
			}
		})
	}
}
