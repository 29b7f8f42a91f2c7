package lease_test

import (
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/lease"
)

// Status tells who holds the lease, when this candidate last renewed and
// when others may take over: for the leader LeaseDuration after its last
// renewal (its step-down comes RenewDeadline after it); for a standby
// LeaseDuration after it last saw the record change.
func TestStatus(t *testing.T) {
	store := &lease.MemoryStore{}
	clk := clock.NewFake(t0)
	a := startNode(t, "a", store, clk, nil)
	a.settle(2)
	recv(t, "start", a.started)
	clk.Step(rp)
	a.settle(2)
	st := a.e.Status()
	if !st.Leading || st.Holder != "a" || st.Identity != "a" || !st.LastRenew.Equal(t0.Add(rp)) {
		t.Fatalf("leader's status %+v", st)
	}
	if !st.Expiry().Equal(t0.Add(rp+ld)) || !st.StepDownAt().Equal(t0.Add(rp+st.RenewDeadline)) || st.LeaseDuration != ld {
		t.Fatalf("leader's expiry %v, step-down %v (status %+v)", st.Expiry(), st.StepDownAt(), st)
	}

	b := startNode(t, "b", store, clock.NewFake(t0.Add(time.Hour)), nil) // a clock of its own
	if id := recv(t, "new leader", b.leaders); id != "a" {
		t.Fatalf("b observed leader %q", id)
	}
	sb := b.e.Status()
	if sb.Leading || sb.Holder != "a" || !sb.LastRenew.IsZero() || !sb.StepDownAt().IsZero() {
		t.Fatalf("standby's status %+v", sb)
	}
	if !sb.ObservedAt.Equal(t0.Add(time.Hour)) || !sb.Expiry().Equal(t0.Add(time.Hour+ld)) {
		t.Fatalf("standby's expiry %v, observed at %v", sb.Expiry(), sb.ObservedAt)
	}
	if (lease.Status{}).Expiry() != (time.Time{}) {
		t.Fatal("a status that never read the lease has an expiry")
	}
}
