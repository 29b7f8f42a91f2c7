package tainteviction

import (
	"context"
	"slices"
	"strings"
	"sync"
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

// fakeQueue is the loop's queue as the controller sees it, on the fake
// clock: each key with its earliest deadline (an Add is due now). The
// fixture's run plays the loop: it syncs the keys that are due.
type fakeQueue struct {
	clock *clock.Fake
	mu    sync.Mutex
	due   map[string]time.Time
}

func (q *fakeQueue) Add(k string) { q.AddAfter(k, 0) }

func (q *fakeQueue) AddAfter(k string, d time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	at := q.clock.Now().Add(max(d, 0))
	if cur, ok := q.due[k]; !ok || at.Before(cur) {
		q.due[k] = at
	}
}

// pop takes the keys due now, earliest first (then by key).
func (q *fakeQueue) pop() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.clock.Now()
	var keys []string
	for k, at := range q.due {
		if !at.After(now) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b string) int {
		if c := q.due[a].Compare(q.due[b]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	for _, k := range keys {
		delete(q.due, k)
	}
	return keys
}

// fixture is the controller on mutable caches (stores behind its
// listers), the recording fake apiserver, the fake queue and clock, an
// event recorder and a metrics registry. Changes go through set/remove,
// which call the controller's handlers as an informer would.
type fixture struct {
	t      *testing.T
	clock  *clock.Fake
	api    *resttest.Server
	pods   *store.Store[*api.Pod]
	nodes  *store.Store[*api.Node]
	q      *fakeQueue
	h      handlers
	events *resttest.Events
	reg    *prometheus.Registry
	c      *Controller
	// errs are the errors the syncs returned.
	errs []error
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{t: t, clock: clock.NewFake(t0), events: &resttest.Events{}, reg: prometheus.NewRegistry(),
		pods:  store.New(store.Options[*api.Pod]{Indexers: store.BuiltinIndexers[*api.Pod]()}),
		nodes: store.New(store.Options[*api.Node]{Indexers: store.BuiltinIndexers[*api.Node]()})}
	f.api = resttest.New(t, resttest.Options{Clock: f.clock})
	f.q = &fakeQueue{clock: f.clock, due: map[string]time.Time{}}
	f.h = handlers{q: f.q}
	t.Cleanup(func() {
		if len(f.errs) > 0 {
			t.Errorf("sync errors: %v", f.errs)
		}
	})
	m, err := NewMetrics(f.reg)
	if err != nil {
		t.Fatal(err)
	}
	f.c = NewController(informer.PodLister{Lister: informer.NewLister(f.pods.View(), "pods")},
		informer.NewLister(f.nodes.View(), "nodes"), f.api.Client(), f.q,
		Config{Clock: f.clock, Logger: zerolog.Nop(), Recorder: f.events, Metrics: m})
	return f
}

// setNode adds or updates a node in the cache, through the handlers.
func (f *fixture) setNode(n *api.Node) {
	if old, ok := f.nodes.Set(n); ok {
		f.h.nodeUpdated(old, n)
	} else {
		f.h.nodeAdded(n, false)
	}
}

func (f *fixture) removeNode(name string) {
	if old, ok := f.nodes.Delete(name); ok {
		f.h.nodeDeleted(old, false)
	}
}

// setPod adds or updates a pod in the cache and in the apiserver.
func (f *fixture) setPod(p *api.Pod) {
	f.api.Remove(rest.Pods, p.Namespace, p.Name)
	resttest.Add(f.api, rest.Pods, p)
	if old, ok := f.pods.Set(p); ok {
		f.h.podUpdated(old, p)
	} else {
		f.h.podAdded(p, false)
	}
}

// removePod removes a pod from the cache (and the apiserver), as its
// final deletion does.
func (f *fixture) removePod(p *api.Pod) {
	f.api.Remove(rest.Pods, p.Namespace, p.Name)
	if old, ok := f.pods.Delete(p.Key()); ok {
		f.h.podDeleted(old, false)
	}
}

// run syncs the keys that are due, again and again, until none is.
func (f *fixture) run() {
	f.t.Helper()
	for keys := f.q.pop(); len(keys) > 0; keys = f.q.pop() {
		for _, k := range keys {
			res, err := f.sync(k)
			if err != nil {
				f.errs = append(f.errs, err)
			}
			if res.RequeueAfter > 0 {
				f.q.AddAfter(k, res.RequeueAfter)
			}
		}
	}
}

// sync runs one key's sync; while it waits for the clock (an eviction's
// retry interval: the fixture arms no timer of its own), the clock is
// stepped by RetryInterval, so that a failing eviction ends instead of
// hanging the test.
func (f *fixture) sync(key string) (ctrl.Result, error) {
	type result struct {
		res ctrl.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := f.c.Sync(context.Background(), key)
		done <- result{res, err}
	}()
	stepping, stop := context.WithCancel(context.Background())
	stepped := make(chan struct{})
	go func() {
		defer close(stepped)
		for f.clock.BlockUntilWaiters(stepping, 1) == nil {
			f.clock.Step(RetryInterval)
		}
	}()
	r := <-done
	stop()
	<-stepped
	return r.res, r.err
}

// step moves the clock on by d and runs what became due.
func (f *fixture) step(d time.Duration) {
	f.t.Helper()
	f.clock.Step(d)
	f.run()
}

// actions returns and forgets the apiserver's actions so far, as lines.
func (f *fixture) actions() []string { return resttest.Lines(f.api.Take()) }

// expectActions checks the actions since the last check, by their first
// words.
func (f *fixture) expectActions(want ...string) {
	f.t.Helper()
	resttest.Expect(f.t, f.api.Take(), want...)
}

// expectEvents checks the events since the last check.
func (f *fixture) expectEvents(want ...string) {
	f.t.Helper()
	got := f.events.Lines()
	f.events.Reset()
	if !slices.Equal(got, want) {
		f.t.Errorf("events:\n got %q\nwant %q", got, want)
	}
}

// evicted are the actions of one eviction of ns/<name> whose pod did not
// have the condition yet.
func evicted(name string) []string {
	return []string{"get pods ns/" + name, "patch pods/status ns/" + name, "delete pods ns/" + name}
}

func marking(name string) string {
	return "Normal TaintManagerEviction Marking for deletion Pod ns/" + name
}

func cancelling(name string) string {
	return "Normal TaintManagerEviction Cancelling deletion of Pod ns/" + name
}

// Builders.

func newNode(name string, taints ...api.Taint) *api.Node {
	return &api.Node{ObjectMeta: api.ObjectMeta{Name: name, UID: "uid-" + name}, Spec: api.NodeSpec{Taints: taints}}
}

func newPod(name, node string, tolerations ...api.Toleration) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "ns", UID: "uid-" + name, Generation: 3},
		Spec: api.PodSpec{NodeName: node, Tolerations: tolerations,
			Containers: []api.Container{{Name: "c", Image: "nginx"}}},
		Status: api.PodStatus{Phase: api.PodRunning},
	}
}

// withTolerations returns a copy of p with other tolerations.
func withTolerations(p *api.Pod, tolerations ...api.Toleration) *api.Pod {
	c := *p
	c.Spec.Tolerations = tolerations
	return &c
}
