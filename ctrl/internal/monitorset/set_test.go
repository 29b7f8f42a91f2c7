package monitorset

import (
	"context"
	"maps"
	"slices"
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

// groupResource is the quota controller's kind of key: a resource without
// its version.
type groupResource struct{ group, resource string }

func byGroupResource(r rest.Resource) groupResource { return groupResource{r.Group, r.Resource} }

var (
	widgetsV1 = rest.Resource{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}
	widgetsV2 = rest.Resource{Group: "example.com", Version: "v2", Resource: "widgets", Kind: "Widget", Namespaced: true}
	widgetsGR = groupResource{"example.com", "widgets"}
	podsGR    = groupResource{"", "pods"}
)

func newClient(t *testing.T, host string) *rest.Client {
	t.Helper()
	client, err := rest.NewClient(&rest.Config{Host: host, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.CloseIdleConnections)
	return client
}

func nopHandler(rest.Resource) processor.Handler[*api.RawObject] {
	return processor.HandlerFuncs[*api.RawObject]{}
}

// TestSyncFollowsResources: keyed by group-resource, each Sync leaves
// exactly the listed resources monitored; a group served at another
// version replaces its monitor (the key stays, not gone); a key no longer
// listed loses its monitor and is gone until it is listed again; a key
// never listed is neither monitored nor gone. Every Sync closes the
// channel Resources returned. No monitor is started: none is watched.
func TestSyncFollowsResources(t *testing.T) {
	s := New(Options[groupResource]{
		Client: newClient(t, "http://127.0.0.1:1"), Key: byGroupResource, Codec: decode.Raw(),
		Handler: nopHandler, Owner: "test", HandlerName: "test", Logger: zerolog.Nop(),
	})
	defer s.StopAll()
	nothing := groupResource{"apps", "deployments"}
	for _, step := range []struct {
		name      string
		resources []rest.Resource
		gone      []groupResource
	}{
		{"first", []rest.Resource{rest.Pods, widgetsV1}, nil},
		{"same again", []rest.Resource{widgetsV1, rest.Pods}, nil},
		{"new version", []rest.Resource{rest.Pods, widgetsV2}, nil},
		{"CRD deleted", []rest.Resource{rest.Pods}, []groupResource{widgetsGR}},
		{"CRD back", []rest.Resource{rest.Pods, widgetsV1}, nil},
		{"all gone", nil, []groupResource{podsGR, widgetsGR}},
	} {
		before, changed := s.Resources()
		kept := map[groupResource]*Monitor{}
		for r := range before {
			kept[byGroupResource(r)], _ = s.Lookup(byGroupResource(r))
		}
		want := map[rest.Resource]bool{}
		for _, r := range step.resources {
			want[r] = true
		}
		if err := s.Sync(want); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		select {
		case <-changed:
		default:
			t.Errorf("%s: Sync did not close the channel of the set before it", step.name)
		}
		if got, _ := s.Resources(); !maps.Equal(got, want) {
			t.Errorf("%s: monitored %v, want %v", step.name, got, step.resources)
		}
		for _, k := range []groupResource{podsGR, widgetsGR, nothing} {
			mon, gone := s.Lookup(k)
			if wantGone := slices.Contains(step.gone, k); gone != wantGone {
				t.Errorf("%s: %v gone %v, want %v", step.name, k, gone, wantGone)
			}
			var monitored bool
			for r := range want {
				monitored = monitored || byGroupResource(r) == k
			}
			if (mon != nil) != monitored || (mon != nil && !want[mon.Resource()]) {
				t.Errorf("%s: %v has monitor %v, want one of the listed resources: %v", step.name, k, mon != nil, monitored)
			}
			if old := kept[k]; old != nil && want[old.Resource()] && mon != old {
				t.Errorf("%s: the monitor of %s, still listed, was replaced", step.name, old.Resource())
			}
		}
	}
}

// TestStopAllStartsNothingAfter: a monitor Sync makes after StopAll is
// never started, even by a later Start.
func TestStopAllStartsNothingAfter(t *testing.T) {
	s := New(Options[rest.Resource]{
		Client: newClient(t, "http://127.0.0.1:1"), Key: ByResource, Codec: decode.Raw(),
		Handler: nopHandler, Owner: "test", HandlerName: "test", Logger: zerolog.Nop(),
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.Start(ctx)
	s.StopAll()
	if err := s.Sync(map[rest.Resource]bool{rest.Pods: true}); err != nil {
		t.Fatal(err)
	}
	s.Start(ctx)
	mon, _ := s.Lookup(rest.Pods)
	s.mu.Lock()
	started := mon.cancel != nil
	s.mu.Unlock()
	if started {
		t.Fatal("a monitor made after StopAll was started")
	}
}

// TestSyncedWaitsForTheHandler: a set without monitors has not synced;
// a monitor has synced once its handler took the informer's initial list,
// not as soon as the informer listed; ResourceSynced asks about the exact
// resource; a monitor Sync stops has returned by then, and the set is
// empty (not synced) again.
func TestSyncedWaitsForTheHandler(t *testing.T) {
	pods := fakeapi.Resource{Version: "v1", Resource: "pods", Kind: "Pod"}
	srv := fakeapi.New(fakeapi.Options{Resources: []fakeapi.Resource{pods}})
	defer srv.Close()
	for _, name := range []string{"a", "b"} {
		if _, err := srv.Create(pods, map[string]any{"metadata": map[string]any{"namespace": "ns", "name": name, "uid": "u-" + name}}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The handler holds the first pod it is given until the gate opens.
	g := gate{held: make(chan struct{}), opened: make(chan struct{})}
	s := New(Options[rest.Resource]{
		Client: newClient(t, srv.URL()), Key: ByResource, Codec: decode.Raw(),
		Indexers: store.BuiltinIndexers[*api.RawObject](store.IndexNamespace),
		Handler: func(rest.Resource) processor.Handler[*api.RawObject] {
			return processor.HandlerFuncs[*api.RawObject]{AddFunc: func(*api.RawObject, bool) { g.hold() }}
		},
		Owner: "test", HandlerName: "test", Clock: clock.Real{}, Logger: zerolog.Nop(),
	})
	defer s.StopAll()
	defer g.open() // deferred last, it runs first: StopAll waits for the handler
	if s.Synced() {
		t.Fatal("a set without monitors has synced")
	}
	if err := s.Sync(map[rest.Resource]bool{rest.Pods: true}); err != nil {
		t.Fatal(err)
	}
	s.Start(ctx)
	mon, _ := s.Lookup(rest.Pods)
	inf, reg := mon.Source(), mon.Registration()
	select {
	case <-g.held:
	case <-ctx.Done():
		t.Fatal("the handler never got a pod")
	}
	if !informer.WaitForCacheSync(ctx, clock.Real{}, inf)[inf.Name()] {
		t.Fatal("the monitor's informer never synced")
	}
	if mon.Synced() || s.ResourceSynced(rest.Pods) || s.Synced() {
		t.Fatal("synced while the handler has not taken the initial list: the set asks the informer, not the registration")
	}
	g.open()
	if !informer.WaitForCacheSync(ctx, clock.Real{}, reg)[reg.Name()] || !s.Synced() {
		t.Fatal("the set never synced after the handler returned")
	}
	other := rest.Pods
	other.Version = "v2"
	if !s.ResourceSynced(rest.Pods) || s.ResourceSynced(other) {
		t.Errorf("ResourceSynced: pods.v1 %v, pods.v2 %v; want true, false", s.ResourceSynced(rest.Pods), s.ResourceSynced(other))
	}
	if n, err := inf.IndexLen(store.IndexNamespace, "ns"); n != 2 || err != nil {
		t.Errorf("the monitor's store holds %d pods in ns (%v), want 2", n, err)
	}
	if err := s.Sync(nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-mon.done:
	default:
		t.Error("Sync returned before the monitor it stopped did")
	}
	if s.Synced() {
		t.Error("an empty set has synced")
	}
}

// gate holds the first caller of hold until open; later callers pass.
type gate struct {
	once, openOnce sync.Once
	held, opened   chan struct{}
}

func (g *gate) hold() {
	g.once.Do(func() { close(g.held); <-g.opened })
}

func (g *gate) open() { g.openOnce.Do(func() { close(g.opened) }) }
