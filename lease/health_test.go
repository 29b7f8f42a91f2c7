package lease_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/lease"
)

// TestHealthCheck: /healthz fails only for an instance that believes it
// leads yet has not renewed for LeaseDuration + tolerance (20 s by
// default, kube-controller-manager's HealthzAdaptor setting).
func TestHealthCheck(t *testing.T) {
	cases := []struct {
		name      string
		tolerance time.Duration // 0: default
		limit     time.Duration
	}{
		{"default tolerance", 0, ld + 20*time.Second},
		{"custom tolerance", 5 * time.Second, ld + 5*time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			store := &lease.MemoryStore{}
			clk := clock.NewFake(t0)
			b := startNode(t, "b", store, clock.NewFake(t0), nil) // b leads first: a is a candidate
			b.settle(2)
			a := startNode(t, "a", store, clk, func(cfg *lease.Config) { cfg.HealthTolerance = c.tolerance })
			a.settle(1)
			if err := a.e.Check(t0.Add(24 * time.Hour)); err != nil {
				t.Errorf("a candidate is unhealthy: %v", err)
			}
			b.cancel()
			b.wait()

			clk = clock.NewFake(t0)
			l := startNode(t, "l", &lease.MemoryStore{}, clk, func(cfg *lease.Config) { cfg.HealthTolerance = c.tolerance })
			l.settle(2)
			renewed := clk.Now()
			if err := l.e.Healthz(); err != nil {
				t.Errorf("a fresh leader is unhealthy: %v", err)
			}
			if err := l.e.Check(renewed.Add(c.limit)); err != nil {
				t.Errorf("unhealthy exactly at the limit: %v", err)
			}
			err := l.e.Check(renewed.Add(c.limit + time.Nanosecond))
			if !errors.Is(err, lease.ErrRenewalStalled) || !strings.Contains(err.Error(), "lease kube-system/test-lease") {
				t.Errorf("Check past the limit = %v, want ErrRenewalStalled naming the lease (in the default namespace)", err)
			}
			clk.Step(rp)
			l.settle(2)
			if err := l.e.Check(renewed.Add(c.limit + time.Nanosecond)); err != nil {
				t.Errorf("after a renewal the check still fails: %v", err)
			}
			l.cancel()
			l.wait()
			if err := l.e.Check(renewed.Add(24 * time.Hour)); err != nil {
				t.Errorf("a stopped elector is unhealthy: %v", err)
			}
		})
	}
}

func TestRunTwice(t *testing.T) {
	a := startNode(t, "a", &lease.MemoryStore{}, clock.NewFake(t0), nil)
	a.settle(2)
	if err := a.e.Run(t.Context()); !errors.Is(err, lease.ErrAlreadyStarted) {
		t.Fatalf("second Run = %v, want ErrAlreadyStarted", err)
	}
}

// TestMetric: leader_election_master_status follows IsLeader, and two
// electors may share a registry.
func TestMetric(t *testing.T) {
	clk := clock.NewFake(t0)
	a := startNode(t, "a", &lease.MemoryStore{}, clk, nil)
	a.settle(2)
	if g := a.gauge(); g != 1 {
		t.Errorf("gauge %v while leading, want 1", g)
	}
	_, err := lease.NewWithStore(&lease.MemoryStore{}, lease.Config{Name: "other", Registerer: a.reg,
		Callbacks: lease.Callbacks{OnStartedLeading: noop}})
	if err != nil {
		t.Fatalf("a second elector on the same registry: %v", err)
	}
	a.cancel()
	a.wait()
	if g := a.gauge(); g != 0 {
		t.Errorf("gauge %v after stopping, want 0", g)
	}
	other := prometheus.NewRegistry() // the same descriptor, but not a GaugeVec
	other.MustRegister(notAGaugeVec{prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "leader_election_master_status",
		Help: "1 while this process leads the named lease, 0 while it is a candidate."}, []string{"name"})})
	if _, err := lease.NewWithStore(&lease.MemoryStore{}, lease.Config{Registerer: other,
		Callbacks: lease.Callbacks{OnStartedLeading: noop}}); err == nil {
		t.Error("sharing a collector of that name that is no GaugeVec succeeded")
	}
	clash := prometheus.NewRegistry()
	clash.MustRegister(prometheus.NewCounter(prometheus.CounterOpts{Name: "leader_election_master_status", Help: "x"}))
	if _, err := lease.NewWithStore(&lease.MemoryStore{}, lease.Config{Registerer: clash,
		Callbacks: lease.Callbacks{OnStartedLeading: noop}}); err == nil {
		t.Error("registering over a different collector of that name succeeded")
	}
}

// notAGaugeVec describes and collects what a GaugeVec does but is another
// type, so the elector cannot share it.
type notAGaugeVec struct{ *prometheus.GaugeVec }
