package lease_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/lease"
)

const (
	ld = lease.DefaultLeaseDuration
	rd = lease.DefaultRenewDeadline
	rp = lease.DefaultRetryPeriod
)

// TestAcquireFreeLeaseAndRenew: with no Lease, the first candidate creates
// it naming itself (leaseTransitions 0) and renews every RetryPeriod,
// keeping acquireTime.
func TestAcquireFreeLeaseAndRenew(t *testing.T) {
	store := &lease.MemoryStore{}
	clk := clock.NewFake(t0)
	a := startNode(t, "a", store, clk, nil)
	a.settle(2)
	if at := recv(t, "start", a.started); !at.Equal(t0) {
		t.Errorf("started leading at %v, want %v", at, t0)
	}
	if id := recv(t, "new leader", a.leaders); id != "a" {
		t.Errorf("OnNewLeader(%q), want a", id)
	}
	want := lease.Record{HolderIdentity: "a", LeaseDuration: ld, AcquireTime: t0, RenewTime: t0, ResourceVersion: "1"}
	if got := mustGet(t, store); got != want {
		t.Errorf("lease = %+v, want %+v", got, want)
	}
	if !a.e.IsLeader() || a.e.Leader() != "a" || a.gauge() != 1 {
		t.Errorf("IsLeader %v, Leader %q, gauge %v; want true, a, 1", a.e.IsLeader(), a.e.Leader(), a.gauge())
	}
	for i := 1; i <= 3; i++ {
		clk.Step(rp)
		a.settle(2)
		got := mustGet(t, store)
		if !got.RenewTime.Equal(t0.Add(time.Duration(i)*rp)) || !got.AcquireTime.Equal(t0) || got.LeaseTransitions != 0 {
			t.Errorf("after renewal %d: %+v", i, got)
		}
	}
	none(t, "second OnNewLeader", a.leaders)
}

// TestCandidateWaitsFromObservation: a candidate takes a held lease over
// only LeaseDuration after it observed the record's last change, by its own
// clock. The holder's renewTime is an hour off in either direction (clock
// skew) and changes nothing.
func TestCandidateWaitsFromObservation(t *testing.T) {
	for _, skew := range []time.Duration{-time.Hour, 0, time.Hour} {
		t.Run("renewTime "+skew.String(), func(t *testing.T) {
			store := &lease.MemoryStore{}
			old := lease.Record{HolderIdentity: "old", LeaseDuration: ld, AcquireTime: t0.Add(skew - time.Hour),
				RenewTime: t0.Add(skew), LeaseTransitions: 2}
			if _, err := store.Create(context.Background(), old); err != nil {
				t.Fatal(err)
			}
			bt0 := t0.Add(37 * time.Minute) // b's clock shares nothing with the record's times
			clk := clock.NewFake(bt0)
			b := startNode(t, "b", store, clk, nil)
			b.settle(1)
			if id := recv(t, "new leader", b.leaders); id != "old" {
				t.Fatalf("OnNewLeader(%q), want old", id)
			}
			for clk.Since(bt0) < ld-rp { // reads at +2s … +14s: not yet
				clk.Step(rp)
				b.settle(1)
			}
			none(t, "start before LeaseDuration", b.started)
			clk.Step(rp) // +16s: first read at or after +15s
			b.settle(2)
			if at := recv(t, "start", b.started); at.Sub(bt0) != 16*time.Second {
				t.Errorf("b started %v after first observing, want 16s", at.Sub(bt0))
			}
			if got := mustGet(t, store); got.HolderIdentity != "b" || got.LeaseTransitions != 3 {
				t.Errorf("lease after takeover = %+v, want holder b, transitions 3", got)
			}
		})
	}
}

// TestRenewalRestartsTheWait: each change a candidate observes restarts
// its LeaseDuration, however the holder's clock reads.
func TestRenewalRestartsTheWait(t *testing.T) {
	store := &lease.MemoryStore{}
	ctx := context.Background()
	rec, _ := store.Create(ctx, lease.Record{HolderIdentity: "old", LeaseDuration: ld, RenewTime: t0})
	clk := clock.NewFake(t0)
	b := startNode(t, "b", store, clk, nil)
	b.settle(1)
	for i := 0; i < 4; i++ { // +8s
		clk.Step(rp)
		b.settle(1)
	}
	rec.RenewTime = t0.Add(-24 * time.Hour) // the holder renews, its clock a day behind
	if _, err := store.Update(ctx, rec); err != nil {
		t.Fatal(err)
	}
	for clk.Since(t0) < 8*time.Second+ld { // b observes it at +10s: waits through +24s
		clk.Step(rp)
		b.settle(1)
	}
	none(t, "start before LeaseDuration after the renewal", b.started)
	clk.Step(rp)
	b.settle(2)
	if at := recv(t, "start", b.started); at.Sub(t0) != 26*time.Second {
		t.Errorf("b started at +%v, want +26s (observed the renewal at +10s, + 15s, next read)", at.Sub(t0))
	}
}

// TestConflictingWriters checks the API's optimistic concurrency rule as
// the elector relies on it (an update carrying a stale
// metadata.resourceVersion is refused with 409 Conflict; a create of an
// existing name with AlreadyExists). MemoryStore enforces the rule; a
// candidate that loses a race (409 / AlreadyExists) reads again and sees
// the winner. Only one of the writers ever holds the lease.
func TestConflictingWriters(t *testing.T) {
	ctx := context.Background()
	t.Run("lost create race", func(t *testing.T) {
		inner := &lease.MemoryStore{}
		g := &gate{Store: inner, before: func() {
			_, _ = inner.Create(ctx, lease.Record{HolderIdentity: "rival", LeaseDuration: ld})
		}}
		a := startNode(t, "a", g, clock.NewFake(t0), nil)
		a.settle(1)
		if id := recv(t, "new leader", a.leaders); id != "rival" || a.e.IsLeader() || a.e.Leader() != "rival" {
			t.Errorf("after losing the create: OnNewLeader %q, IsLeader %v, Leader %q", id, a.e.IsLeader(), a.e.Leader())
		}
		if got := mustGet(t, inner); got.HolderIdentity != "rival" {
			t.Errorf("lease holder %q, want rival", got.HolderIdentity)
		}
	})
	t.Run("lost acquire race restarts the wait", func(t *testing.T) {
		inner := &lease.MemoryStore{}
		_, _ = inner.Create(ctx, lease.Record{HolderIdentity: "old", LeaseDuration: ld})
		g := &gate{Store: inner}
		clk := clock.NewFake(t0)
		a := startNode(t, "a", g, clk, nil)
		a.settle(1)
		g.mu.Lock()
		g.before = func() { // the rival takes the expired lease first
			cur, _ := inner.Get(ctx)
			cur.HolderIdentity, cur.LeaseTransitions = "rival", cur.LeaseTransitions+1
			_, _ = inner.Update(ctx, cur)
		}
		g.mu.Unlock()
		for clk.Since(t0) < 16*time.Second { // +16s: a tries, loses, observes the rival
			clk.Step(rp)
			a.settle(1)
		}
		none(t, "start", a.started)
		for clk.Since(t0) < 30*time.Second {
			clk.Step(rp)
			a.settle(1)
		}
		none(t, "start before 15s after observing the rival", a.started)
		clk.Step(rp)
		a.settle(2)
		if at := recv(t, "start", a.started); at.Sub(t0) != 32*time.Second {
			t.Errorf("a started at +%v, want +32s", at.Sub(t0))
		}
		if got := mustGet(t, inner); got.LeaseTransitions != 2 {
			t.Errorf("leaseTransitions %d, want 2 (rival, then a)", got.LeaseTransitions)
		}
	})
	t.Run("leader re-reads after a harmless 409", func(t *testing.T) {
		store := &lease.MemoryStore{}
		clk := clock.NewFake(t0)
		a := startNode(t, "a", store, clk, nil)
		a.settle(2)
		cur := mustGet(t, store)
		if _, err := store.Update(ctx, cur); err != nil { // same spec, new resourceVersion
			t.Fatal(err)
		}
		clk.Step(rp)
		a.settle(2)
		got := mustGet(t, store)
		if !a.e.IsLeader() || got.ResourceVersion != "3" || !got.RenewTime.Equal(t0.Add(rp)) {
			t.Errorf("IsLeader %v, lease %+v; want a renewed at rv 3", a.e.IsLeader(), got)
		}
	})
	t.Run("leader that finds the lease taken steps down at once", func(t *testing.T) {
		store := &lease.MemoryStore{}
		clk := clock.NewFake(t0)
		a := startNode(t, "a", store, clk, nil)
		a.settle(2)
		cur := mustGet(t, store)
		cur.HolderIdentity = "thief"
		if _, err := store.Update(ctx, cur); err != nil {
			t.Fatal(err)
		}
		clk.Step(rp)
		if err := a.wait(); !errors.Is(err, lease.ErrLeadershipLost) {
			t.Fatalf("Run = %v, want ErrLeadershipLost", err)
		}
		if at := recv(t, "stop", a.stopped); !at.Equal(t0.Add(rp)) {
			t.Errorf("stopped at %v, want at the first renewal", at)
		}
		recv(t, "OnStoppedLeading", a.offDuty)
		if a.e.IsLeader() || a.gauge() != 0 {
			t.Errorf("after losing: IsLeader %v, gauge %v", a.e.IsLeader(), a.gauge())
		}
	})
	t.Run("two candidates racing for real", func(t *testing.T) {
		for i := 0; i < 20; i++ {
			store := &lease.MemoryStore{}
			a := startNode(t, "a", store, clock.NewFake(t0), nil)
			b := startNode(t, "b", store, clock.NewFake(t0.Add(time.Hour)), nil)
			var winner, loser *node
			select {
			case <-a.started:
				winner, loser = a, b
			case <-b.started:
				winner, loser = b, a
			case <-time.After(failsafe):
				t.Fatal("nobody leads")
			}
			for id := recv(t, "new leader", loser.leaders); id != winner.id; id = recv(t, "new leader", loser.leaders) {
			}
			loser.settle(1)
			if loser.e.IsLeader() || !winner.e.IsLeader() || mustGet(t, store).HolderIdentity != winner.id {
				t.Fatalf("round %d: both or neither lead (a %v, b %v)", i, a.e.IsLeader(), b.e.IsLeader())
			}
			none(t, "second leader", loser.started)
			a.cancel()
			b.cancel()
			a.wait()
			b.wait()
		}
	})
}

// TestStepDownBeforeOthersCanAcquire is the safety property: a leader that
// cannot renew stops (its context is cancelled) exactly RenewDeadline after
// its last successful renewal was issued, although its request is still
// hanging; the candidate takes over only LeaseDuration after it observed
// that renewal. The two nodes' clocks are three hours apart.
func TestStepDownBeforeOthersCanAcquire(t *testing.T) {
	store := &lease.MemoryStore{}
	g := &gate{Store: store}
	clkA, clkB := clock.NewFake(t0), clock.NewFake(t0.Add(-3*time.Hour))
	a := startNode(t, "a", g, clkA, nil)
	a.settle(2)
	recv(t, "a start", a.started)
	b := startNode(t, "b", store, clkB, nil)
	b.settle(1)
	step := func(aWaiters, bWaiters int) {
		clkA.Step(rp)
		if aWaiters >= 0 {
			a.settle(aWaiters)
		}
		clkB.Step(rp)
		b.settle(bWaiters)
	}
	step(2, 1) // +2s: a renews, b observes
	step(2, 1) // +4s: a renews (last success), b observes
	g.paused.Store(true)
	for i := 0; i < 4; i++ { // +6s … +12s: a's renewal hangs; its deadline timer is the one armed
		step(1, 1)
	}
	none(t, "a stop before RenewDeadline", a.stopped)
	step(-1, 1) // +14s: a's deadline
	if err := a.wait(); !errors.Is(err, lease.ErrLeadershipLost) {
		t.Fatalf("a's Run = %v, want ErrLeadershipLost", err)
	}
	aStop := recv(t, "a stop", a.stopped).Sub(t0)
	if aStop != 4*time.Second+rd {
		t.Errorf("a stopped at +%v, want +%v (last renewal +4s + RenewDeadline)", aStop, 4*time.Second+rd)
	}
	if a.e.IsLeader() || a.gauge() != 0 || a.e.Healthz() != nil {
		t.Errorf("a after step-down: IsLeader %v gauge %v healthz %v", a.e.IsLeader(), a.gauge(), a.e.Healthz())
	}
	for clkB.Since(t0.Add(-3*time.Hour)) < 4*time.Second+ld-rp { // b: +16s, +18s: still waiting
		clkB.Step(rp)
		b.settle(1)
	}
	none(t, "b start before LeaseDuration", b.started)
	clkB.Step(rp)
	b.settle(2)
	bStart := recv(t, "b start", b.started).Sub(t0.Add(-3 * time.Hour))
	if bStart != 20*time.Second {
		t.Errorf("b started at +%v, want +20s (observed +4s, + 15s, next read)", bStart)
	}
	if !(aStop < bStart) || bStart-aStop < ld-rd {
		t.Errorf("a stopped at +%v, b started at +%v: want a margin of at least LeaseDuration-RenewDeadline", aStop, bStart)
	}
}

// TestCancel: cancelling Run ends leadership; with ReleaseOnCancel the
// holder is cleared (leaseDurationSeconds 1) only after OnStartedLeading
// returned, and the next candidate takes over at its next read.
func TestCancel(t *testing.T) {
	for _, release := range []bool{false, true} {
		name := map[bool]string{false: "keep", true: "release"}[release]
		t.Run(name, func(t *testing.T) {
			store := &lease.MemoryStore{}
			var a *node
			var early atomic.Bool
			g := &gate{Store: store, onUpdate: func(r lease.Record) {
				if r.HolderIdentity == "" && !a.returned.Load() {
					early.Store(true)
				}
			}}
			clkA, clkB := clock.NewFake(t0), clock.NewFake(t0)
			a = startNode(t, "a", g, clkA, func(c *lease.Config) { c.ReleaseOnCancel = release })
			a.settle(2)
			b := startNode(t, "b", store, clkB, nil)
			b.settle(1)
			clkA.Step(rp)
			a.settle(2)
			clkB.Step(rp) // b observes a's renewal at +2s
			b.settle(1)
			a.hold = make(chan struct{})
			a.cancel()
			recv(t, "a stop", a.stopped)
			close(a.hold) // OnStartedLeading returns only now; no release may precede this
			if err := a.wait(); err != nil {
				t.Fatalf("Run after cancel = %v, want nil", err)
			}
			recv(t, "OnStoppedLeading", a.offDuty)
			if early.Load() {
				t.Error("released before OnStartedLeading returned")
			}
			got := mustGet(t, store)
			wantStart := 18 * time.Second // first read after +2s + LeaseDuration
			if release {
				want := lease.Record{LeaseDuration: time.Second, AcquireTime: t0, RenewTime: t0.Add(rp), ResourceVersion: "3"}
				if got != want {
					t.Errorf("released lease = %+v, want %+v", got, want)
				}
				wantStart = 4 * time.Second // b's next read
			} else if got.HolderIdentity != "a" {
				t.Errorf("lease holder %q after cancel, want a (no release)", got.HolderIdentity)
			}
			for clkB.Since(t0)+rp < wantStart {
				clkB.Step(rp)
				b.settle(1)
			}
			none(t, "b start", b.started)
			clkB.Step(rp)
			b.settle(2)
			if at := recv(t, "b start", b.started).Sub(t0); at != wantStart {
				t.Errorf("b started at +%v, want +%v", at, wantStart)
			}
			if got := mustGet(t, store); got.HolderIdentity != "b" || got.LeaseTransitions != 1 {
				t.Errorf("lease after takeover %+v", got)
			}
		})
	}
}

// failingGets is a Store whose Get fails while fail > 0.
type failingGets struct {
	lease.Store
	fail atomic.Int32
}

func (f *failingGets) Get(ctx context.Context) (lease.Record, error) {
	if f.fail.Add(-1) >= 0 {
		return lease.Record{}, errors.New("apiserver unavailable")
	}
	return f.Store.Get(ctx)
}

// TestCandidateRetriesAfterErrors: failed reads are retried every
// RetryPeriod; they never make a candidate lead.
func TestCandidateRetriesAfterErrors(t *testing.T) {
	f := &failingGets{Store: &lease.MemoryStore{}}
	f.fail.Store(3)
	clk := clock.NewFake(t0)
	a := startNode(t, "a", f, clk, nil)
	a.settle(1) // first read failed
	clk.Step(rp)
	a.settle(1)
	clk.Step(rp)
	a.settle(1)
	none(t, "start while the store fails", a.started)
	if a.e.IsLeader() || a.e.Healthz() != nil {
		t.Errorf("IsLeader %v, Healthz %v while reads fail", a.e.IsLeader(), a.e.Healthz())
	}
	clk.Step(rp)
	a.settle(2)
	if at := recv(t, "start", a.started); !at.Equal(t0.Add(3 * rp)) {
		t.Errorf("started at %v, want at the first good read (+6s)", at)
	}
}

// meddler is a Store on which another writer touches the lease (same
// spec, new resourceVersion) just before each of our updates, so that
// every update we send meets a Conflict.
type meddler struct {
	*lease.MemoryStore
	updates atomic.Int32
}

func (m *meddler) Update(ctx context.Context, r lease.Record) (lease.Record, error) {
	m.updates.Add(1)
	if cur, err := m.MemoryStore.Get(ctx); err == nil {
		_, _ = m.MemoryStore.Update(ctx, cur)
	}
	return m.MemoryStore.Update(ctx, r)
}

// TestRoundWritesAtMostTwice: a write that loses a race (409) is followed
// by one fresh read and one more write in the same round, no more; the
// next round comes RetryPeriod later. A candidate that always loses keeps
// to two writes per RetryPeriod and never leads.
func TestRoundWritesAtMostTwice(t *testing.T) {
	m := &meddler{MemoryStore: &lease.MemoryStore{}}
	if _, err := m.Create(context.Background(), lease.Record{LeaseDuration: ld}); err != nil { // free
		t.Fatal(err)
	}
	clk := clock.NewFake(t0)
	a := startNode(t, "a", m, clk, nil)
	for round := int32(1); round <= 3; round++ {
		if round > 1 {
			clk.Step(rp)
		}
		a.settle(1)
		if n := m.updates.Load(); n != 2*round {
			t.Fatalf("after round %d: %d updates, want %d", round, n, 2*round)
		}
	}
	none(t, "start", a.started)
	if a.e.IsLeader() {
		t.Error("a candidate that lost every race leads")
	}
}
