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

	"github.com/kcmlab/kcm/kube"
	"github.com/kcmlab/kcm/lease"
	"github.com/kcmlab/kcm/testenv"
)

// Tests against a real kube-apiserver (testenv). They must use the real
// clock; they wait on events, never sleep, and use short durations.
const (
	realLD    = 3 * time.Second
	realRD    = 2 * time.Second
	realRP    = 500 * time.Millisecond
	leaseName = "kcm-test"
	// slack covers apiserver latency on a loaded 2-core machine.
	slack = time.Second
)

// timeline records when each elector believed it led.
type timeline struct {
	mu     sync.Mutex
	spans  []span     // guarded by mu
	events chan event // every start and stop, in order
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
func (tl *timeline) next(t *testing.T, want func(event) bool) event {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case ev := <-tl.events:
			if want(ev) {
				return ev
			}
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
	for i := 0; i+1 < len(spans); i++ {
		a, b := spans[i], spans[i+1]
		if a.stop.IsZero() || !a.stop.Before(b.start) {
			t.Errorf("%s led until %v but %s started at %v: overlap", a.id, a.stop, b.id, b.start)
		}
	}
	t.Logf("%d leadership spans, none overlapping", len(spans))
}

// probe wraps a node's store: it records the issue time of each
// successful write and, while paused, blocks every call until its context
// is done, as requests to an unreachable apiserver would.
type probe struct {
	lease.Store
	paused atomic.Bool
	mu     sync.Mutex
	last   time.Time      // issue time of the last successful write; guarded by mu
	writes chan time.Time // the same, for tests to await (non-blocking sends)
}

func (p *probe) hold(ctx context.Context) error {
	if p.paused.Load() {
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

func (p *probe) wrote(issued time.Time) {
	p.mu.Lock()
	p.last = issued
	p.mu.Unlock()
	select {
	case p.writes <- issued:
	default:
	}
}

func (p *probe) lastWrite() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
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
		p.wrote(issued)
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

func startReal(t *testing.T, cfg *kube.Config, ns, id string, tl *timeline, release bool) *realNode {
	t.Helper()
	c, err := kube.NewClient(cfg)
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
	case <-time.After(20 * time.Second):
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

func startThree(t *testing.T, release bool) (*timeline, []*realNode, *kube.Resources[*kube.Lease]) {
	t.Helper()
	cl := testenv.Shared(t)
	ns := cl.Namespace(t)
	tl := newTimeline()
	t.Cleanup(func() { tl.checkNoOverlap(t) }) // runs after the nodes' cleanups stopped them
	var nodes []*realNode
	for i := range 3 {
		nodes = append(nodes, startReal(t, cl.Config(), ns, fmt.Sprintf("kcm-%d", i), tl, release))
	}
	c, err := kube.NewClient(cl.Config())
	if err != nil {
		t.Fatal(err)
	}
	return tl, nodes, kube.NewResources(c, kube.Leases, kube.Typed[kube.Lease]()).InNamespace(ns)
}

func getLease(t *testing.T, leases *kube.Resources[*kube.Lease]) *kube.Lease {
	t.Helper()
	l, err := leases.Get(context.Background(), leaseName)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func holder(l *kube.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// TestRealElectionAndFailover: three electors on one Lease of a real
// apiserver; exactly one leads; the Lease carries holderIdentity,
// leaseDurationSeconds, acquireTime, renewTime and leaseTransitions
// (coordination.k8s.io/v1 LeaseSpec). A foreign write (a label) makes the
// leader's renewal a 409: it re-reads, renews, and keeps the label (a PUT
// replaces the whole object, so the writer must start from what it read).
// Cancelling the leader without release
// hands over within LeaseDuration + RetryPeriod (+ apiserver slack), never
// sooner than LeaseDuration − RetryPeriod.
func TestRealElectionAndFailover(t *testing.T) {
	tl, nodes, leases := startThree(t, false)
	leader := awaitLeader(t, tl, nodes)

	l := getLease(t, leases)
	if holder(l) != leader.id || *l.Spec.LeaseDurationSeconds != 3 || l.Spec.AcquireTime == nil ||
		l.Spec.RenewTime == nil || *l.Spec.LeaseTransitions != 0 {
		t.Fatalf("lease spec = %+v, want held by %s for 3s, 0 transitions", l.Spec, leader.id)
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
	next := tl.next(t, func(ev event) bool { return ev.start })
	failover := next.at.Sub(cancelled)
	t.Logf("failover after cancel (no release): %v", failover)
	if failover < realLD-realRP-slack/2 || failover > realLD+realRP+slack {
		t.Errorf("failover %v outside [LD−RP−%v, LD+RP+%v]", failover, slack/2, slack)
	}
	if l := getLease(t, leases); holder(l) != next.id || *l.Spec.LeaseTransitions != 1 {
		t.Errorf("after failover: holder %q, transitions %d; want %s, 1", holder(l), *l.Spec.LeaseTransitions, next.id)
	}
}

// touchLease labels the Lease, as `kubectl label` would: a write by someone
// else, which makes the leader's next renewal answer 409 Conflict.
func touchLease(t *testing.T, leases *kube.Resources[*kube.Lease]) {
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
		if !kube.IsConflict(err) || i == 10 {
			t.Fatalf("label the lease: %v", err)
		}
	}
}

// TestRealReleaseOnCancel: with ReleaseOnCancel the next candidate takes
// over at its next read, within RetryPeriod (+ slack).
func TestRealReleaseOnCancel(t *testing.T) {
	tl, nodes, leases := startThree(t, true)
	leader := awaitLeader(t, tl, nodes)
	cancelled := time.Now()
	leader.cancel()
	if err := leader.wait(t); err != nil {
		t.Fatalf("Run after cancel = %v", err)
	}
	next := tl.next(t, func(ev event) bool { return ev.start })
	failover := next.at.Sub(cancelled)
	t.Logf("failover after cancel with ReleaseOnCancel: %v", failover)
	if failover > realRP+slack {
		t.Errorf("failover %v, want at most RetryPeriod + %v", failover, slack)
	}
	if l := getLease(t, leases); holder(l) != next.id || *l.Spec.LeaseTransitions != 1 {
		t.Errorf("after failover: holder %q, transitions %d; want %s, 1", holder(l), *l.Spec.LeaseTransitions, next.id)
	}
}

// TestRealPausedLeaderStepsDown: the leader's requests hang (it is not
// cancelled). It must stop RenewDeadline after its last successful write
// was issued, before anyone else can take over; the next leader starts no
// sooner than LeaseDuration after that write.
func TestRealPausedLeaderStepsDown(t *testing.T) {
	tl, nodes, _ := startThree(t, false)
	leader := awaitLeader(t, tl, nodes)
	leader.probe.paused.Store(true)
	paused := time.Now()

	stop := tl.next(t, func(ev event) bool { return !ev.start })
	next := tl.next(t, func(ev event) bool { return ev.start })
	if err := leader.wait(t); !errors.Is(err, lease.ErrLeadershipLost) {
		t.Errorf("paused leader's Run = %v, want ErrLeadershipLost", err)
	}
	last := leader.probe.lastWrite()
	t.Logf("paused leader stopped %v after its last write (RenewDeadline %v); next leader %s started %v after it; failover after pause: %v",
		stop.at.Sub(last), realRD, next.id, next.at.Sub(last), next.at.Sub(paused))
	if stop.id != leader.id || next.id == leader.id {
		t.Fatalf("stop by %s, start by %s; want stop by the paused leader %s", stop.id, next.id, leader.id)
	}
	// The elector takes its own issue time a moment before the probe does,
	// hence the small allowance below RenewDeadline.
	if d := stop.at.Sub(last); d < realRD-50*time.Millisecond || d > realRD+slack/2 {
		t.Errorf("stepped down %v after the last write, want RenewDeadline %v (+ at most %v)", d, realRD, slack/2)
	}
	if d := next.at.Sub(last); d < realLD {
		t.Errorf("next leader started %v after the old leader's last write, before LeaseDuration %v", d, realLD)
	}
	if !stop.at.Before(next.at) {
		t.Errorf("old leader stopped at %v, new one started at %v", stop.at, next.at)
	}
}
