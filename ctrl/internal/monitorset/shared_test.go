package monitorset

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/fakeapi"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/store"
)

// events is what a test handler was told, in order, safe for the
// handler's goroutine and the test's.
type events struct {
	mu  sync.Mutex
	got []string
	ch  chan string
}

func newEvents() *events { return &events{ch: make(chan string, 64)} }

func (e *events) add(ev string) {
	e.mu.Lock()
	e.got = append(e.got, ev)
	e.mu.Unlock()
	e.ch <- ev
}

func (e *events) all() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.got)
}

// wait returns when ev was told, failing the test if ctx ends first.
func (e *events) wait(ctx context.Context, t *testing.T, ev string) {
	t.Helper()
	for {
		select {
		case got := <-e.ch:
			if got == ev {
				return
			}
		case <-ctx.Done():
			t.Fatalf("never told %q; told %v", ev, e.all())
		}
	}
}

// TestSharedMonitor: with Options.Shared, the monitor of a resource the
// shared factory already runs adds its handler to that informer (at
// Start, not at Sync) instead of listing and watching the resource a
// second time — pods are listed once, by the factory — while a resource
// the factory lacks gets a monitor of its own; the shared monitor syncs
// with its registration; stopping it (Sync without it, or StopAll)
// removes the handler and leaves the factory's informer running for its
// other handlers; made again, it starts from the informer's snapshot.
func TestSharedMonitor(t *testing.T) {
	pods := fakeapi.Resource{Version: "v1", Resource: "pods", Kind: "Pod"}
	widgets := fakeapi.Resource{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget"}
	srv := fakeapi.New(fakeapi.Options{Resources: []fakeapi.Resource{pods, widgets}})
	defer srv.Close()
	createPod := func(name string) {
		t.Helper()
		if _, err := srv.Create(pods, map[string]any{"metadata": map[string]any{"namespace": "ns", "name": name}}); err != nil {
			t.Fatal(err)
		}
	}
	createPod("a")
	if _, err := srv.Create(widgets, map[string]any{"metadata": map[string]any{"namespace": "ns", "name": "w"}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client := newClient(t, srv.URL())

	f := informer.NewFactory(client, informer.FactoryOptions{})
	podsInf := informer.For[api.Pod](f, rest.Pods)
	others := newEvents() // the factory's other handler on pods
	if _, err := podsInf.AddEventHandler(processor.HandlerFuncs[*api.Pod]{
		AddFunc: func(p *api.Pod, _ bool) { others.add("add " + p.Name) },
	}, processor.HandlerOptions{Name: "other"}); err != nil {
		t.Fatal(err)
	}
	f.Start(ctx)
	defer f.Shutdown()
	others.wait(ctx, t, "add a")

	told := newEvents()
	s := New(Options[rest.Resource]{
		Client: client, Key: ByResource, Codec: decode.Raw(),
		Indexers: store.BuiltinIndexers[*api.RawObject](store.IndexNamespace),
		Shared:   f.Existing,
		Handler: func(res rest.Resource) processor.Handler[*api.RawObject] {
			return processor.HandlerFuncs[*api.RawObject]{
				AddFunc: func(o *api.RawObject, _ bool) { told.add(res.Resource + " add " + o.Name) },
			}
		},
		Owner: "test", HandlerName: "test", Clock: clock.Real{}, Logger: zerolog.Nop(),
	})
	defer s.StopAll()
	both := map[rest.Resource]bool{rest.Pods: true, widgetsV1: true}
	if err := s.Sync(both); err != nil {
		t.Fatal(err)
	}
	podsMon, _ := s.Lookup(rest.Pods)
	widgetsMon, _ := s.Lookup(widgetsV1)
	if !podsMon.Shared() || widgetsMon.Shared() {
		t.Fatalf("shared: pods %v, widgets %v; want true (the factory has pods), false (it has no widgets)", podsMon.Shared(), widgetsMon.Shared())
	}
	if podsMon.Registration() != nil || podsMon.Synced() {
		t.Fatal("a shared monitor joined its informer before Start")
	}

	s.Start(ctx)
	told.wait(ctx, t, "pods add a")
	told.wait(ctx, t, "widgets add w")
	if !informer.WaitForCacheSync(ctx, clock.Real{}, podsMon.Registration(), widgetsMon.Registration())[podsMon.Registration().Name()] || !s.Synced() {
		t.Fatal("the set never synced")
	}
	if n, err := podsMon.Source().IndexLen(store.IndexNamespace, "ns"); n != 1 || err != nil {
		t.Errorf("the shared monitor counts %d pods in ns (%v), want 1", n, err)
	}
	if got := srv.Stats().Lists; got != 2 {
		t.Errorf("%d LISTs, want 2: pods once (the factory's), widgets once (the monitor's)", got)
	}

	// Sync without pods: the handler leaves, the informer stays.
	if err := s.Sync(map[rest.Resource]bool{widgetsV1: true}); err != nil {
		t.Fatal(err)
	}
	// left checks, once what stopped mon returned, that its handler has
	// left and is told of no later pod while the factory's other one is.
	left := func(what string, mon *Monitor, pod string) {
		t.Helper()
		select {
		case <-mon.Registration().Done():
		default:
			t.Fatalf("%s returned before the stopped shared monitor's handler left", what)
		}
		createPod(pod)
		others.wait(ctx, t, "add "+pod)
		if slices.Contains(told.all(), "pods add "+pod) {
			t.Errorf("after %s the shared monitor's handler was told of a later pod", what)
		}
	}
	left("Sync", podsMon, "b")

	// Made again: the informer's snapshot, both pods.
	if err := s.Sync(both); err != nil {
		t.Fatal(err)
	}
	again, _ := s.Lookup(rest.Pods)
	told.wait(ctx, t, "pods add b")
	if !informer.WaitForCacheSync(ctx, clock.Real{}, again.Registration())[again.Registration().Name()] {
		t.Fatal("the monitor made again never synced")
	}
	if n := strings.Count(strings.Join(told.all(), "\n"), "pods add a"); n != 2 {
		t.Errorf("pod a told %d times, want 2 (the first monitor's list, the second's snapshot)", n)
	}

	s.StopAll()
	left("StopAll", again, "c")
}
