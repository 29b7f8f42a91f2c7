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

// The tests in this file cover ReleaseOnCancel's corner cases: a release
// at a resourceVersion made stale by a renewal whose answer was lost, a
// release that hangs, and a candidate that has nothing to release.

var errLostAnswer = errors.New("the connection broke before the answer came")

// lossy wraps a Store. With loseNext set, the next Update is carried out
// but its answer is lost: the caller gets an error, as after a request the
// apiserver committed whose response never arrived. While failGets is set,
// every Get fails.
type lossy struct {
	lease.Store
	loseNext atomic.Bool
	failGets atomic.Bool
}

func (l *lossy) Get(ctx context.Context) (lease.Record, error) {
	if l.failGets.Load() {
		return lease.Record{}, errors.New("apiserver unavailable")
	}
	return l.Store.Get(ctx)
}

func (l *lossy) Update(ctx context.Context, r lease.Record) (lease.Record, error) {
	out, err := l.Store.Update(ctx, r)
	if err == nil && l.loseNext.CompareAndSwap(true, false) {
		return lease.Record{}, errLostAnswer
	}
	return out, err
}

// TestReleaseAfterLostAnswer: the leader's renewal at +2s is committed (the
// lease is now at resourceVersion 2) but its answer is lost, so the leader
// still holds resourceVersion 1. Its release at 1 meets a Conflict; it
// reads the lease again and releases that version if the lease still
// names it — and leaves the lease alone if someone else took it, or if it
// cannot read it.
func TestReleaseAfterLostAnswer(t *testing.T) {
	cases := []struct {
		name     string
		meantime func(t *testing.T, l *lossy, store *lease.MemoryStore) // between the lost answer and the cancel
		want     lease.Record                                           // the lease after Run returned
		log      string                                                 // in the log after Run returned
	}{
		{"still mine: released at the fresh version", nil,
			lease.Record{LeaseDuration: time.Second, AcquireTime: t0, RenewTime: t0.Add(rp), ResourceVersion: "3"},
			"released the lease"},
		{"taken meanwhile: left alone", func(t *testing.T, _ *lossy, store *lease.MemoryStore) {
			cur := mustGet(t, store)
			cur.HolderIdentity = "thief"
			if _, err := store.Update(context.Background(), cur); err != nil {
				t.Fatal(err)
			}
		}, lease.Record{HolderIdentity: "thief", LeaseDuration: ld, AcquireTime: t0, RenewTime: t0.Add(rp), ResourceVersion: "3"},
			"released the lease"},
		{"unreadable: left alone", func(t *testing.T, l *lossy, _ *lease.MemoryStore) { l.failGets.Store(true) },
			lease.Record{HolderIdentity: "a", LeaseDuration: ld, AcquireTime: t0, RenewTime: t0.Add(rp), ResourceVersion: "2"},
			"could not release the lease"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			store := &lease.MemoryStore{}
			l := &lossy{Store: store}
			a := startNode(t, "a", l, clock.NewFake(t0), func(cfg *lease.Config) { cfg.ReleaseOnCancel = true })
			a.settle(2)
			recv(t, "start", a.started)
			l.loseNext.Store(true)
			a.clk.Step(rp) // +2s: the renewal is committed, its answer lost
			a.settle(2)
			if got := mustGet(t, store); got.ResourceVersion != "2" || !got.RenewTime.Equal(t0.Add(rp)) {
				t.Fatalf("lease after the lost answer = %+v, want renewed at +2s, resourceVersion 2", got)
			}
			if !a.e.IsLeader() {
				t.Fatal("a failed renewal before RenewDeadline ended leadership")
			}
			if c.meantime != nil {
				c.meantime(t, l, store)
			}
			a.cancel()
			if err := a.wait(); err != nil {
				t.Fatalf("Run = %v, want nil", err)
			}
			recv(t, "OnStoppedLeading", a.offDuty)
			if got := mustGet(t, store); !sameRecord(got, c.want) {
				t.Errorf("lease after Run = %+v, want %+v", got, c.want)
			}
			for _, msg := range []string{"lease renewal failed", "context done; stopped leading", c.log} {
				if !a.logged(msg) {
					t.Errorf("log lacks %q:\n%s", msg, a.logs.String())
				}
			}
		})
	}
}

// TestReleaseBoundedByRenewDeadline: a release that hangs is given up
// RenewDeadline after it began, by the injected clock; Run then returns
// and the lease, still naming the old leader, expires for the others in
// the usual way.
func TestReleaseBoundedByRenewDeadline(t *testing.T) {
	store := &lease.MemoryStore{}
	st := &stall{Store: store}
	a := startNode(t, "a", st, clock.NewFake(t0), func(cfg *lease.Config) { cfg.ReleaseOnCancel = true })
	a.settle(2)
	recv(t, "start", a.started)
	w := st.arm()
	a.cancel()
	if rec := recv(t, "the release inside the store", w.started); rec.HolderIdentity != "" {
		t.Fatalf("the write after cancel carries holder %q, want a release", rec.HolderIdentity)
	}
	a.settle(2) // the release's timer (and the retry timer, not yet stopped)
	a.clk.Step(rd - time.Nanosecond)
	select {
	case <-a.exit:
		t.Fatal("Run returned before the release's RenewDeadline")
	default:
	}
	a.clk.Step(time.Nanosecond)
	if err := a.wait(); err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
	if err := recv(t, "the release's end", w.done); !errors.Is(err, context.Canceled) {
		t.Errorf("the hanging release ended with %v, want context.Canceled", err)
	}
	recv(t, "OnStoppedLeading", a.offDuty)
	if got := mustGet(t, store); got.HolderIdentity != "a" {
		t.Errorf("lease holder %q after a release that never happened, want a", got.HolderIdentity)
	}
}

// TestCandidateReleasesNothing: a candidate with ReleaseOnCancel that never
// led writes nothing when cancelled.
func TestCandidateReleasesNothing(t *testing.T) {
	store := &lease.MemoryStore{}
	a := startNode(t, "a", store, clock.NewFake(t0), nil)
	a.settle(2)
	before := mustGet(t, store)
	b := startNode(t, "b", store, clock.NewFake(t0), func(cfg *lease.Config) { cfg.ReleaseOnCancel = true })
	b.settle(1)
	b.cancel()
	if err := b.wait(); err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
	none(t, "OnStoppedLeading of a candidate", b.offDuty)
	if b.logged("stopped leading") {
		t.Errorf("a candidate logged that it stopped leading:\n%s", b.logs.String())
	}
	if got := mustGet(t, store); got != before {
		t.Errorf("lease after the candidate's cancel = %+v, want unchanged %+v", got, before)
	}
}
