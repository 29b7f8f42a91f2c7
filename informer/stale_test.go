package informer_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/fakeapi"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/reflector"
)

// listRVs records the resourceVersion of every LIST page the reflector
// read, and runs onList (if set) after each, on the reflector's goroutine.
type listRVs struct {
	mu     sync.Mutex
	rvs    []string
	items  []int
	onList func()
}

func (l *listRVs) ListPage(n int, rv string, _ bool) {
	l.mu.Lock()
	l.rvs, l.items = append(l.rvs, rv), append(l.items, n)
	l.mu.Unlock()
	if l.onList != nil {
		l.onList()
	}
}
func (l *listRVs) WatchEvent(rest.EventType, string, int)    {}
func (l *listRVs) PhaseChange(_, _ reflector.Phase, _ error) {}

func (l *listRVs) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.rvs...)
}

func (l *listRVs) String() string { return fmt.Sprint(l.all()) }

// firstItems is how many items the first LIST page held.
func (l *listRVs) firstItems() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.items) == 0 {
		return -1
	}
	return l.items[0]
}

// rvLess compares two resourceVersions of the fake (decimal revisions).
func rvLess(a, b string) bool {
	x, errX := strconv.ParseInt(a, 10, 64)
	y, errY := strconv.ParseInt(b, 10, 64)
	return errX == nil && errY == nil && x < y
}

func podObj(name string, gen int) map[string]any {
	return map[string]any{"metadata": map[string]any{"namespace": "ns", "name": name,
		"labels": map[string]any{"gen": strconv.Itoa(gen)}}}
}

// staleServer is a fake apiserver whose every LIST at resourceVersion "0"
// is answered from an older snapshot (a watch cache that lags), holding
// eight pods, written over 32 revisions.
func staleServer(t *testing.T, seed uint64) (*fakeapi.Server, *fakeapi.Injector) {
	t.Helper()
	inj := fakeapi.NewInjector(seed, fakeapi.Rates{fakeapi.StaleList: 1}, 0)
	srv := fakeapi.New(fakeapi.Options{Resources: []fakeapi.Resource{chaosPods}, HistoryLimit: 1000,
		BookmarkInterval: 50 * time.Millisecond, Faults: inj})
	t.Cleanup(srv.Close)
	for i := range 10 {
		if _, err := srv.Create(chaosPods, podObj(fmt.Sprintf("p-%d", i), 0)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 20 {
		if _, err := srv.Update(chaosPods, podObj(fmt.Sprintf("p-%d", i%10), i+1)); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"p-3", "p-7"} {
		if _, err := srv.Delete(chaosPods, "ns", name); err != nil {
			t.Fatal(err)
		}
	}
	return srv, inj
}

// runStale runs a default Factory's pod informer (a first LIST at "0")
// against srv with a recording handler and waits until the cache and the
// handler agree with the server; it returns the LIST pages' RVs.
func runStale(t *testing.T, srv *fakeapi.Server, onList func(*fakeapi.Server)) *listRVs {
	t.Helper()
	c, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	lists := &listRVs{}
	if onList != nil {
		lists.onList = func() { onList(srv) }
	}
	b := reflector.DefaultBackoff()
	b.Initial, b.Max = time.Millisecond, 20*time.Millisecond
	f := informer.NewFactory(c, informer.FactoryOptions{Reflector: reflector.Options{Backoff: &b, Observer: lists}})
	inf := informer.For[api.Pod](f, rest.Pods)
	h := newChaosHandler(chaosScenario{seed: 1}, 0) // all namespaces, never slow
	if _, err := inf.AddEventHandler(h, processor.HandlerOptions{Name: "stale"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.Start(ctx)
	defer f.Shutdown()
	if d := awaitChaos(srv, inf, []*chaosHandler{h}, "", 10*time.Second); d != "" {
		t.Fatalf("the cache did not converge after a stale first list (lists at %v, requests %+v):\n    %s", lists, srv.Stats(), d)
	}
	return lists
}

// A first LIST from the watch cache may be stale: resourceVersion "0"
// means any state the apiserver holds. API rule: a watch from N delivers
// every change after N, so the watch from the stale list's resourceVersion
// brings the cache up to date; no object's resourceVersion goes backwards
// on the way (the chaos handler's invariant), and no relist is needed.
func TestStaleListFromCacheConverges(t *testing.T) {
	srv, inj := staleServer(t, 2)
	newest := srv.ResourceVersion()
	lists := runStale(t, srv, nil)
	rvs := lists.all()
	t.Logf("lists at %v, newest revision %s", rvs, newest)
	// The seed's stale answer must hold what the watch has to repair: the
	// ten pods, two of them deleted since, eight updated since.
	if len(rvs) == 0 || !rvLess(rvs[0], newest) || lists.firstItems() != 10 {
		t.Fatalf("lists at %v with %d items first, the newest revision %s: the seed gave no stale answer with all ten pods; the test tests little",
			rvs, lists.firstItems(), newest)
	}
	if n := inj.Counts()[fakeapi.StaleList]; n != 1 || len(rvs) != 1 {
		t.Fatalf("%d stale answers, lists at %v; want the one first list, stale, then only the watch", n, rvs)
	}
}

// When the stale list's resourceVersion has left the history (compacted
// between the list and the watch), the watch is answered 410 and the
// reflector relists not older than that resourceVersion: the newest
// state, no longer from the cache's "any".
func TestStaleListCompactedAwayRelists(t *testing.T) {
	srv, _ := staleServer(t, 2)
	newest := srv.ResourceVersion()
	var once sync.Once
	rvs := runStale(t, srv, func(s *fakeapi.Server) { once.Do(func() { s.Compact(0) }) }).all()
	if len(rvs) < 2 || !rvLess(rvs[0], newest) || rvs[len(rvs)-1] != newest {
		t.Fatalf("lists at %v (newest %s), want a stale first list, then a relist at the newest state", rvs, newest)
	}
}
