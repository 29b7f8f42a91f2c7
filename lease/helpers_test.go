package lease_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/internal/testing/syncbuf"
	"github.com/kcmlab/kcm/lease"
)

// failsafe bounds every wait in the tests; a correct elector answers in
// microseconds, so reaching it means a bug, reported as a failure.
const failsafe = 10 * time.Second

// node is one candidate driven by its own fake clock. Giving every node its
// own clock lets a test set them to unrelated wall-clock times (skew) and
// still move them in lockstep (equal rates).
type node struct {
	t   *testing.T
	id  string
	clk *clock.Fake
	e   *lease.Elector
	reg *prometheus.Registry

	started  chan time.Time // fake time OnStartedLeading began
	stopped  chan time.Time // fake time its context was cancelled
	offDuty  chan struct{}  // OnStoppedLeading ran
	leaders  chan string    // OnNewLeader identities
	returned atomic.Bool    // OnStartedLeading has returned
	// hold, if set before the leader's context is cancelled, keeps
	// OnStartedLeading from returning until it is closed.
	hold chan struct{}

	cancel context.CancelFunc
	exit   chan struct{}  // closed when Run returned
	err    error          // Run's result, valid after exit
	logs   syncbuf.Buffer // the elector's log, one JSON line per event
}

// logged reports whether the node's log holds msg.
func (n *node) logged(msg string) bool { return strings.Contains(n.logs.String(), msg) }

func startNode(t *testing.T, id string, store lease.Store, clk *clock.Fake, mod func(*lease.Config)) *node {
	t.Helper()
	n := &node{t: t, id: id, clk: clk, reg: prometheus.NewRegistry(),
		started: make(chan time.Time, 1), stopped: make(chan time.Time, 1), offDuty: make(chan struct{}, 1),
		leaders: make(chan string, 16), exit: make(chan struct{})}
	cfg := lease.Config{Name: "test-lease", Identity: id, Clock: clk, Registerer: n.reg, Logger: zerolog.New(&n.logs), Callbacks: lease.Callbacks{
		OnStartedLeading: func(ctx context.Context) {
			n.started <- clk.Now()
			<-ctx.Done()
			n.stopped <- clk.Now()
			if n.hold != nil {
				<-n.hold
			}
			n.returned.Store(true)
		},
		OnStoppedLeading: func() { n.offDuty <- struct{}{} },
		OnNewLeader:      func(id string) { n.leaders <- id },
	}}
	if mod != nil {
		mod(&cfg)
	}
	e, err := lease.NewWithStore(store, cfg)
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
		n.wait()
	})
	return n
}

// settle waits until the node has armed want timers: 1 for a candidate at
// rest (its retry timer), 2 for a leader at rest (retry and deadline).
func (n *node) settle(want int) {
	n.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), failsafe)
	defer cancel()
	if err := n.clk.BlockUntilWaiters(ctx, want); err != nil {
		n.t.Fatalf("%s: %v", n.id, err)
	}
}

// wait returns Run's result.
func (n *node) wait() error {
	n.t.Helper()
	select {
	case <-n.exit:
		return n.err
	case <-time.After(failsafe):
		n.t.Fatalf("%s: Run did not return", n.id)
		return nil
	}
}

func recv[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(failsafe):
		t.Fatalf("no %s", what)
		var zero T
		return zero
	}
}

// none asserts that nothing is pending on ch.
func none[T any](t *testing.T, what string, ch <-chan T) {
	t.Helper()
	select {
	case v := <-ch:
		t.Fatalf("unexpected %s: %v", what, v)
	default:
	}
}

// gauge reads leader_election_master_status{name="test-lease"}.
func (n *node) gauge() float64 {
	n.t.Helper()
	mfs, err := n.reg.Gather()
	if err != nil {
		n.t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "leader_election_master_status" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "name" && l.GetValue() == "test-lease" {
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	n.t.Fatal("leader_election_master_status{name=test-lease} not registered")
	return -1
}

func mustGet(t *testing.T, s lease.Store) lease.Record {
	t.Helper()
	r, err := s.Get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// gate wraps a Store. While paused, every call blocks until its context is
// done, as a request to an unreachable apiserver does. before, if set, runs
// once ahead of the next write (a rival sneaking in a write of its own).
// onUpdate sees every update that is about to be sent.
type gate struct {
	lease.Store
	paused   atomic.Bool
	mu       sync.Mutex
	before   func()
	onUpdate func(lease.Record)
}

func (g *gate) block(ctx context.Context) error {
	if !g.paused.Load() {
		return nil
	}
	<-ctx.Done()
	return ctx.Err()
}

func (g *gate) takeBefore() {
	g.mu.Lock()
	f := g.before
	g.before = nil
	g.mu.Unlock()
	if f != nil {
		f()
	}
}

func (g *gate) Get(ctx context.Context) (lease.Record, error) {
	if err := g.block(ctx); err != nil {
		return lease.Record{}, err
	}
	return g.Store.Get(ctx)
}

func (g *gate) Create(ctx context.Context, r lease.Record) (lease.Record, error) {
	if err := g.block(ctx); err != nil {
		return lease.Record{}, err
	}
	g.takeBefore()
	return g.Store.Create(ctx, r)
}

func (g *gate) Update(ctx context.Context, r lease.Record) (lease.Record, error) {
	if err := g.block(ctx); err != nil {
		return lease.Record{}, err
	}
	g.takeBefore()
	if g.onUpdate != nil {
		g.onUpdate(r)
	}
	return g.Store.Update(ctx, r)
}
