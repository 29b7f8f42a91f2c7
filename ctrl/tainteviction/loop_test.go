package tainteviction

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/store"
)

// TestLoopOnTheFakeClock runs the controller as New wires it — a
// ctrl.Loop with Workers workers, its queue's delay heap as the eviction
// timers — on a fake clock: a pod tolerating the taint for 30 s is
// deleted once the clock has moved 30 s, and the loop stops when its
// context ends.
func TestLoopOnTheFakeClock(t *testing.T) {
	fake := clock.NewFake(t0)
	srv := resttest.New(t, resttest.Options{Clock: fake})
	pods := store.New(store.Options[*api.Pod]{Indexers: store.BuiltinIndexers[*api.Pod]()})
	nodes := store.New(store.Options[*api.Node]{Indexers: store.BuiltinIndexers[*api.Node]()})
	var c *Controller
	loop := ctrl.NewLoop(Name, func(ctx context.Context, key string) (ctrl.Result, error) { return c.Sync(ctx, key) },
		ctrl.LoopOptions{Clock: fake, Logger: zerolog.Nop()})
	c = NewController(informer.PodLister{Lister: informer.NewLister(pods.View(), "pods")},
		informer.NewLister(nodes.View(), "nodes"), srv.Client(), loop.Queue(), Config{Clock: fake, Logger: zerolog.Nop()})
	deleted := make(chan string, 4)
	srv.Intercept(resttest.On("delete", "pods"), func(a resttest.Action) error { deleted <- a.Name; return nil })

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // turns a hang into a failure
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	r := &Runner{Loop: loop}
	go func() { ran <- r.Run(runCtx, 1) }()

	p := newPod("p", "n1", tolerate(unreachable, secs(30)))
	resttest.Add(srv, rest.Pods, p)
	pods.Set(p)
	nodes.Set(newNode("n1", unreachable))
	h := handlers{q: loop.Queue()}
	h.nodeAdded(newNode("n1", unreachable), false)

	// The node's sync schedules the eviction: the queue arms its timer.
	if err := fake.BlockUntilWaiters(ctx, 1); err != nil {
		t.Fatal(err)
	}
	fake.Step(29 * time.Second)
	select {
	case name := <-deleted:
		t.Fatalf("pod %s deleted 1 s before its tolerationSeconds ran out", name)
	default:
	}
	fake.Step(time.Second)
	select {
	case name := <-deleted:
		if name != "p" {
			t.Errorf("deleted %s, want p", name)
		}
	case <-ctx.Done():
		t.Fatal("the pod was not deleted once its 30 s were up")
	}
	stop()
	if err := <-ran; err != nil {
		t.Errorf("Run: %v", err)
	}
}

// TestMetricsNames: kube-controller-manager's family names, help texts
// and buckets; registering twice on one registry reuses the families.
func TestMetricsNames(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewMetrics(reg); err != nil {
		t.Errorf("second NewMetrics on one registry: %v", err)
	}
	if _, err := NewMetrics(nil); err == nil {
		t.Error("NewMetrics(nil) did not fail")
	}
	m.deleted(1500 * time.Millisecond)
	(*Metrics)(nil).deleted(time.Second) // records nothing, does not panic
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range fams {
		got[f.GetName()] = f.GetHelp()
		if f.GetName() == "taint_eviction_controller_pod_deletion_duration_seconds" {
			h := f.GetMetric()[0].GetHistogram()
			if h.GetSampleCount() != 1 || h.GetSampleSum() != 1.5 || len(h.GetBucket()) != 12 {
				t.Errorf("histogram: %d samples, sum %v, %d buckets; want 1, 1.5 (seconds), 12", h.GetSampleCount(), h.GetSampleSum(), len(h.GetBucket()))
			}
		}
	}
	want := map[string]string{
		"taint_eviction_controller_pod_deletions_total": "[ALPHA] Total number of Pods deleted by TaintEvictionController since its start.",
		"taint_eviction_controller_pod_deletion_duration_seconds": "[ALPHA] Latency, in seconds, between the time when a taint effect has been activated " +
			"for the Pod and its deletion via TaintEvictionController.",
	}
	for name, help := range want {
		if got[name] != help {
			t.Errorf("%s: help %q, want %q", name, got[name], help)
		}
	}
	if len(got) != len(want) {
		t.Errorf("families %v, want %d", got, len(want))
	}
}
