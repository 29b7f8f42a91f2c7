//go:build !nocluster

package lease_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/lease"
	"github.com/kcmlab/kcm/testenv"
)

// Tests against a real kube-apiserver (testenv). They must use the real
// clock; they wait on events, never sleep, and use short durations.
//
// They assert order and outcome, not timing windows: who leads, that the
// old leader stopped before the new one started, and — from the Lease's
// own record — that nobody took the lease less than leaseDurationSeconds
// after its holder's last renewal. Those hold however slow the machine is.
// Durations are only logged (failover times), or bounded from above with
// generous slack, to catch a failover that does not happen at all.
const (
	realLD    = 4 * time.Second
	realRD    = 2 * time.Second
	realRP    = 500 * time.Millisecond
	leaseName = "kcm-test"
	// slack is how much later than the configured durations predict a
	// failover may come on a loaded 2-core machine (apiserver latency,
	// request timeouts of RenewDeadline/2, goroutines waiting for a core).
	slack = 10 * time.Second
)

// timeline records when each elector believed it led.
type timeline struct {
	mu     sync.Mutex
	spans  []span     // guarded by mu
	events chan event // every start and stop, in order
	// skipped are events taken from events that next did not return yet;
	// used by the test goroutine only.
	skipped []event
}

type span struct {
	id          string
	start, stop time.Time // stop zero: still leading
}

type event struct {
	id    string
	start bool
	at    time.Time
}

func newTimeline() *timeline { return &timeline{events: make(chan event, 64)} }

func (tl *timeline) record(id string, start bool) time.Time {
	now := time.Now()
	tl.mu.Lock()
	if start {
		tl.spans = append(tl.spans, span{id: id, start: now})
	} else {
		for i := range tl.spans {
			if tl.spans[i].id == id && tl.spans[i].stop.IsZero() {
				tl.spans[i].stop = now
			}
		}
	}
	tl.mu.Unlock()
	tl.events <- event{id, start, now}
	return now
}

// next returns the next event matching want.
// Events it passes over are kept for later calls, so that a start that came
// before the stop a test waits for is still seen (and reported as out of
// order) rather than lost.
func (tl *timeline) next(t *testing.T, want func(event) bool) event {
	t.Helper()
	for i, ev := range tl.skipped {
		if want(ev) {
			tl.skipped = append(tl.skipped[:i], tl.skipped[i+1:]...)
			return ev
		}
	}
	deadline := time.After(realLD + slack + 10*time.Second)
	for {
		select {
		case ev := <-tl.events:
			if want(ev) {
				return ev
			}
			tl.skipped = append(tl.skipped, ev)
		case <-deadline:
			t.Fatal("timed out waiting for a leadership event")
		}
	}
}

// checkNoOverlap asserts that no two electors ever believed they led at the
// same instant.
func (tl *timeline) checkNoOverlap(t *testing.T) {
	t.Helper()
	tl.mu.Lock()
	spans := slices.Clone(tl.spans)
	tl.mu.Unlock()
	slices.SortFunc(spans, func(a, b span) int { return a.start.Compare(b.start) })
	overlaps := 0
	for i := 0; i+1 < len(spans); i++ {
		a, b := spans[i], spans[i+1]
		if a.stop.IsZero() || !a.stop.Before(b.start) {
			t.Errorf("%s led until %v but %s started at %v: overlap", a.id, a.stop, b.id, b.start)
			overlaps++
		}
	}
	if overlaps == 0 {
		t.Logf("%d leadership spans, none overlapping", len(spans))
	}
}

// probe wraps a node's store: it records the issue time and the answer of
// each successful write and, while paused, blocks every call until its
// context is done, as requests to an unreachable apiserver would.
type probe struct {
	lease.Store
	paused  atomic.Bool
	mu      sync.Mutex
	last    time.Time      // issue time of the last successful write; guarded by mu
	lastRec lease.Record   // the record the server returned for it; guarded by mu
	writes  chan time.Time // issue times, for tests to await (non-blocking sends)
}

func (p *probe) hold(ctx context.Context) error {
	if p.paused.Load() {
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

func (p *probe) wrote(issued time.Time, rec lease.Record) {
	p.mu.Lock()
	p.last, p.lastRec = issued, rec
	p.mu.Unlock()
	select {
	case p.writes <- issued:
	default:
	}
}

// lastWrite returns the issue time and the stored record of the last
// successful write.
func (p *probe) lastWrite() (time.Time, lease.Record) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last, p.lastRec
}

func (p *probe) Get(ctx context.Context) (lease.Record, error) {
	if err := p.hold(ctx); err != nil {
		return lease.Record{}, err
	}
	return p.Store.Get(ctx)
}

func (p *probe) Create(ctx context.Context, r lease.Record) (lease.Record, error) {
	return p.write(ctx, r, p.Store.Create)
}

func (p *probe) Update(ctx context.Context, r lease.Record) (lease.Record, error) {
	return p.write(ctx, r, p.Store.Update)
}

func (p *probe) write(ctx context.Context, r lease.Record, f func(context.Context, lease.Record) (lease.Record, error)) (lease.Record, error) {
	if err := p.hold(ctx); err != nil {
		return lease.Record{}, err
	}
	issued := time.Now()
	out, err := f(ctx, r)
	if err == nil {
		p.wrote(issued, out)
	}
	return out, err
}

// realNode is one elector against the real apiserver, with a client (and
// connection) of its own, as a separate process would have.
type realNode struct {
	id      string
	e       *lease.Elector
	probe   *probe
	leaders chan string
	cancel  context.CancelFunc
	exit    chan struct{}
	err     error
}

func startReal(t *testing.T, cfg *rest.Config, ns, id string, tl *timeline, release bool) *realNode {
	t.Helper()
	c, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	n := &realNode{id: id, leaders: make(chan string, 64), exit: make(chan struct{})}
	n.probe = &probe{Store: lease.NewKubeStore(c, ns, leaseName, realRD/2), writes: make(chan time.Time, 64)}
	e, err := lease.NewWithStore(n.probe, lease.Config{
		Namespace: ns, Name: leaseName, Identity: id, ReleaseOnCancel: release,
		LeaseDuration: realLD, RenewDeadline: realRD, RetryPeriod: realRP,
		Logger: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel),
		Callbacks: lease.Callbacks{
			OnStartedLeading: func(ctx context.Context) {
				tl.record(id, true)
				<-ctx.Done()
				tl.record(id, false)
			},
			OnNewLeader: func(l string) {
				select {
				case n.leaders <- l:
				default:
				}
			},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	n.e = e
	ctx, cancel := context.WithCancel(context.Background())
	n.cancel = cancel
	go func() {
		n.err = e.Run(ctx)
		close(n.exit)
	}()
	t.Cleanup(func() {
		cancel()
		n.wait(t)
	})
	return n
}

func (n *realNode) wait(t *testing.T) error {
	t.Helper()
	select {
	case <-n.exit:
		return n.err
	case <-time.After(realLD + slack + 10*time.Second):
		t.Fatalf("%s: Run did not return", n.id)
		return nil
	}
}

// awaitLeader waits for the first leader, for every other node to observe
// it, and for it to renew twice; then exactly one node may lead.
func awaitLeader(t *testing.T, tl *timeline, nodes []*realNode) *realNode {
	t.Helper()
	first := tl.next(t, func(ev event) bool { return ev.start })
	var leader *realNode
	for _, n := range nodes {
		if n.id == first.id {
			leader = n
		}
	}
	for _, n := range nodes {
		for id := ""; id != leader.id; {
			id = recv(t, n.id+" observing the leader", n.leaders)
		}
	}
	for len(leader.probe.writes) > 0 { // forget writes before now
		<-leader.probe.writes
	}
	recv(t, "a renewal", leader.probe.writes)
	recv(t, "a second renewal", leader.probe.writes)
	var leading []string
	for _, n := range nodes {
		if n.e.IsLeader() {
			leading = append(leading, n.id)
		}
	}
	if len(leading) != 1 || leading[0] != leader.id {
		t.Fatalf("leading: %v, want exactly [%s]", leading, leader.id)
	}
	return leader
}

func startThree(t *testing.T, release bool) (*timeline, []*realNode, *rest.Resources[*api.Lease]) {
	t.Helper()
	cl := testenv.Shared(t)
	ns := cl.Namespace(t)
	tl := newTimeline()
	t.Cleanup(func() { tl.checkNoOverlap(t) }) // runs after the nodes' cleanups stopped them
	var nodes []*realNode
	for i := range 3 {
		nodes = append(nodes, startReal(t, cl.Config(), ns, fmt.Sprintf("kcm-%d", i), tl, release))
	}
	c, err := rest.NewClient(cl.Config())
	if err != nil {
		t.Fatal(err)
	}
	return tl, nodes, rest.NewResources(c, rest.Leases, decode.Typed[api.Lease]()).InNamespace(ns)
}

func getLease(t *testing.T, leases *rest.Resources[*api.Lease]) *api.Lease {
	t.Helper()
	l, err := leases.Get(context.Background(), leaseName)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func holder(l *api.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// handover checks a change of leader from old to next, as the Lease
// records it and as the electors saw it: next holds the Lease with
// leaseTransitions 1; its acquireTime is no sooner than minGap after
// oldRenew, the renewTime of the old holder's last write (the Lease's own
// record of the two leaderships not overlapping); and old stopped before
// next started. It returns the new Lease.
func handover(t *testing.T, leases *rest.Resources[*api.Lease], old *realNode, stop, next event, oldRenew time.Time, minGap time.Duration) *api.Lease {
	t.Helper()
	if next.id == old.id {
		t.Fatalf("%s led again", old.id)
	}
	if !stop.at.Before(next.at) {
		t.Errorf("%s stopped at %v, %s started at %v: want the old leader stopped first", old.id, stop.at, next.id, next.at)
	}
	l := getLease(t, leases)
	if holder(l) != next.id || l.Spec.LeaseTransitions == nil || *l.Spec.LeaseTransitions != 1 || l.Spec.AcquireTime == nil {
		t.Fatalf("lease after the handover: %+v; want held by %s, 1 transition, an acquireTime", l.Spec, next.id)
	}
	if gap := l.Spec.AcquireTime.Sub(oldRenew); gap < minGap {
		t.Errorf("%s's acquireTime is %v after %s's last renewTime, want at least %v", next.id, gap, old.id, minGap)
	}
	return l
}

// TestRealElectionAndFailover: three electors on one Lease of a real
// apiserver; exactly one leads; the Lease carries holderIdentity,
// leaseDurationSeconds, acquireTime, renewTime and leaseTransitions
// (coordination.k8s.io/v1 LeaseSpec). A foreign write (a label) makes the
// leader's renewal a 409: it re-reads, renews, and keeps the label (a PUT
// replaces the whole object, so the writer must start from what it read).
// Cancelled without release, the leader's lease is taken over no sooner
// than LeaseDuration after its last write was issued — by the electors'
// clock and by the Lease's acquireTime and renewTime — and not never.
func TestRealElectionAndFailover(t *testing.T) {
	tl, nodes, leases := startThree(t, false)
	leader := awaitLeader(t, tl, nodes)

	l := getLease(t, leases)
	if holder(l) != leader.id || *l.Spec.LeaseDurationSeconds != int32(realLD/time.Second) || l.Spec.AcquireTime == nil ||
		l.Spec.RenewTime == nil || *l.Spec.LeaseTransitions != 0 {
		t.Fatalf("lease spec = %+v, want held by %s for %v, 0 transitions", l.Spec, leader.id, realLD)
	}

	touchLease(t, leases)
	for len(leader.probe.writes) > 0 {
		<-leader.probe.writes
	}
	recv(t, "a renewal after the foreign write", leader.probe.writes)
	recv(t, "a second renewal", leader.probe.writes)
	if l := getLease(t, leases); holder(l) != leader.id || l.Labels["kcm.test/touched"] != "yes" || !leader.e.IsLeader() {
		t.Fatalf("after a foreign write: holder %q, labels %v, leading %v; want %s keeping the label",
			holder(l), l.Labels, leader.e.IsLeader(), leader.id)
	}

	cancelled := time.Now()
	leader.cancel()
	if err := leader.wait(t); err != nil {
		t.Fatalf("Run after cancel = %v", err)
	}
	stop := tl.next(t, func(ev event) bool { return !ev.start })
	next := tl.next(t, func(ev event) bool { return ev.start })
	last, lastRec := leader.probe.lastWrite()
	t.Logf("failover after cancel (no release): %v after the cancel, %v after the old leader's last write (LeaseDuration %v)",
		next.at.Sub(cancelled), next.at.Sub(last), realLD)
	if stop.id != leader.id || lastRec.HolderIdentity != leader.id {
		t.Fatalf("stop by %s, last write of the old leader %+v; want %s stopping, its last write a renewal", stop.id, lastRec, leader.id)
	}
	handover(t, leases, leader, stop, next, lastRec.RenewTime, realLD)
	if d := next.at.Sub(last); d < realLD {
		t.Errorf("next leader started %v after the old leader's last write, before LeaseDuration %v", d, realLD)
	}
	if d := next.at.Sub(cancelled); d > realLD+realRP+slack {
		t.Errorf("failover took %v, more than LeaseDuration + RetryPeriod + %v", d, slack)
	}
}

// touchLease labels the Lease, as `kubectl label` would: a write by someone
// else, which makes the leader's next renewal answer 409 Conflict.
func touchLease(t *testing.T, leases *rest.Resources[*api.Lease]) {
	t.Helper()
	for i := 0; ; i++ {
		l := getLease(t, leases)
		if l.Labels == nil {
			l.Labels = map[string]string{}
		}
		l.Labels["kcm.test/touched"] = "yes"
		_, err := leases.Update(context.Background(), l)
		if err == nil {
			return
		}
		if !rest.IsConflict(err) || i == 10 {
			t.Fatalf("label the lease: %v", err)
		}
	}
}

// TestRealReleaseOnCancel: with ReleaseOnCancel the leader, once its
// OnStartedLeading returned, writes the Lease with no holder and
// leaseDurationSeconds 1, and the next candidate takes it over (in the
// unit tests: at its next read; here the time is only logged).
func TestRealReleaseOnCancel(t *testing.T) {
	tl, nodes, leases := startThree(t, true)
	leader := awaitLeader(t, tl, nodes)
	cancelled := time.Now()
	leader.cancel()
	if err := leader.wait(t); err != nil {
		t.Fatalf("Run after cancel = %v", err)
	}
	stop := tl.next(t, func(ev event) bool { return !ev.start })
	next := tl.next(t, func(ev event) bool { return ev.start })
	released, rec := leader.probe.lastWrite()
	t.Logf("failover after cancel with ReleaseOnCancel: %v after the cancel, %v after the release was sent",
		next.at.Sub(cancelled), next.at.Sub(released))
	if stop.id != leader.id || rec.HolderIdentity != "" || rec.LeaseDuration != time.Second {
		t.Fatalf("stop by %s, last write of the old leader %+v; want %s stopping, its last write a release (no holder, 1s)",
			stop.id, rec, leader.id)
	}
	if released.Before(stop.at) {
		t.Errorf("released at %v, before OnStartedLeading saw its context end at %v", released, stop.at)
	}
	handover(t, leases, leader, stop, next, rec.RenewTime, 0)
	if d := next.at.Sub(cancelled); d > realLD+realRP+slack {
		t.Errorf("failover took %v, more than LeaseDuration + RetryPeriod + %v", d, slack)
	}
}

// TestRealPausedLeaderStepsDown: the leader's requests hang (it is not
// cancelled). It must stop RenewDeadline after its last successful write
// was issued, while its request still hangs, and before anyone else can
// take over; the next leader starts no sooner than LeaseDuration after
// that write.
func TestRealPausedLeaderStepsDown(t *testing.T) {
	tl, nodes, leases := startThree(t, false)
	leader := awaitLeader(t, tl, nodes)
	leader.probe.paused.Store(true)
	paused := time.Now()

	stop := tl.next(t, func(ev event) bool { return !ev.start })
	next := tl.next(t, func(ev event) bool { return ev.start })
	if err := leader.wait(t); !errors.Is(err, lease.ErrLeadershipLost) {
		t.Errorf("paused leader's Run = %v, want ErrLeadershipLost", err)
	}
	last, lastRec := leader.probe.lastWrite()
	t.Logf("paused leader stopped %v after its last write (RenewDeadline %v); next leader %s started %v after it (LeaseDuration %v); failover after pause: %v",
		stop.at.Sub(last), realRD, next.id, next.at.Sub(last), realLD, next.at.Sub(paused))
	if stop.id != leader.id {
		t.Fatalf("stop by %s; want the paused leader %s", stop.id, leader.id)
	}
	// renewTime is the elector's clock reading when it decided to write,
	// before the write was issued: the deadline cannot come sooner.
	if d := stop.at.Sub(lastRec.RenewTime); d < realRD {
		t.Errorf("stepped down %v after the renewTime of its last write, before RenewDeadline %v", d, realRD)
	}
	if d := stop.at.Sub(last); d > realRD+slack {
		t.Errorf("stepped down %v after its last write, more than RenewDeadline + %v", d, slack)
	}
	handover(t, leases, leader, stop, next, lastRec.RenewTime, realLD)
	if d := next.at.Sub(last); d < realLD {
		t.Errorf("next leader started %v after the old leader's last write, before LeaseDuration %v", d, realLD)
	}
}
