package informer_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/reflector"
	"github.com/kcmlab/kcm/testenv"
)

// lastEvents records, per key, the last notification a handler received,
// and signals every delivery so a test can re-check convergence without
// sleeping.
type lastEvents[T api.Object] struct {
	mu     sync.Mutex
	last   map[string]string // key → "add|update|delete rv"
	events atomic.Int64
	kick   chan struct{}
}

func newLastEvents[T api.Object]() *lastEvents[T] {
	return &lastEvents[T]{last: map[string]string{}, kick: make(chan struct{}, 1)}
}

func (l *lastEvents[T]) note(obj T, what string) {
	m := obj.GetObjectMeta()
	l.mu.Lock()
	l.last[m.Key()] = what + " " + m.ResourceVersion
	l.mu.Unlock()
	l.events.Add(1)
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

func (l *lastEvents[T]) OnAdd(obj T, _ bool)    { l.note(obj, "upsert") }
func (l *lastEvents[T]) OnUpdate(_, obj T)      { l.note(obj, "upsert") }
func (l *lastEvents[T]) OnDelete(obj T, _ bool) { l.note(obj, "delete") }
func (l *lastEvents[T]) snapshot() map[string]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]string, len(l.last))
	for k, v := range l.last {
		out[k] = v
	}
	return out
}

// diff compares the cache and the handler's view with a fresh LIST: same
// keys, same resourceVersions, and the handler's last event per key is the
// current object (or a delete for keys the server no longer has).
func diff[T api.Object](ctx context.Context, r *rest.Resources[T], inf *informer.Informer[T], h *lastEvents[T]) (string, error) {
	list, err := r.List(ctx, rest.ListOptions{})
	if err != nil {
		return "", err
	}
	server := map[string]string{}
	for _, o := range list.Items {
		server[o.GetObjectMeta().Key()] = o.GetObjectMeta().ResourceVersion
	}
	cache := map[string]string{}
	for _, o := range inf.Store().List() {
		cache[o.GetObjectMeta().Key()] = o.GetObjectMeta().ResourceVersion
	}
	for k, rv := range server {
		if cache[k] != rv {
			return fmt.Sprintf("%s: server rv %s, cache rv %q", k, rv, cache[k]), nil
		}
	}
	for k := range cache {
		if _, ok := server[k]; !ok {
			return fmt.Sprintf("%s: in cache, not on server", k), nil
		}
	}
	for k, ev := range h.snapshot() {
		if rv, ok := server[k]; ok && ev != "upsert "+rv {
			return fmt.Sprintf("%s: handler's last event %q, server rv %s", k, ev, rv), nil
		} else if !ok && ev[:6] != "delete" {
			return fmt.Sprintf("%s: handler's last event %q for a deleted object", k, ev), nil
		}
	}
	for k, rv := range server {
		if _, ok := h.snapshot()[k]; !ok {
			return fmt.Sprintf("%s (rv %s): handler never told", k, rv), nil
		}
	}
	return "", nil
}

// awaitConverged re-checks after each burst of handler events until the
// cache equals the server, or fails with the last difference.
func awaitConverged[T api.Object](t *testing.T, ctx context.Context, r *rest.Resources[T], inf *informer.Informer[T], h *lastEvents[T]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	tick := time.NewTicker(500 * time.Millisecond) // bookmarks and relists do not always reach the handler
	defer tick.Stop()
	for {
		d, err := diff(ctx, r, inf, h)
		if err == nil && d == "" {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("cache did not converge: %s (err %v)", d, err)
		case <-h.kick:
		case <-tick.C:
		}
	}
}

// churnPods runs writers that create, update and delete pods named
// p-000..p-(names-1) at random, ops times in all. Errors are counted, not
// fatal: the apiserver may be restarting. Only the final state matters.
func churnPods(ctx context.Context, r *rest.Resources[*api.Pod], writers, ops, names int, seed uint64) (failed int64) {
	var wg sync.WaitGroup
	var fails atomic.Int64
	for w := 0; w < writers; w++ {
		rng := rand.New(rand.NewPCG(seed, uint64(w)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < ops/writers && ctx.Err() == nil; i++ {
				name := fmt.Sprintf("p-%03d", rng.IntN(names))
				var err error
				switch rng.IntN(3) {
				case 0:
					p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"gen": "0"}},
						Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}
					_, err = r.Create(ctx, p)
				case 1:
					_, err = r.Patch(ctx, name, rest.MergePatch, []byte(`{"metadata":{"labels":{"gen":"`+strconv.Itoa(i)+`"}}}`), rest.PatchOptions{})
				case 2:
					zero := int64(0)
					err = r.Delete(ctx, name, rest.DeleteOptions{GracePeriodSeconds: &zero})
				}
				if err != nil && !rest.IsNotFound(err) && !rest.IsAlreadyExists(err) {
					fails.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return fails.Load()
}

func setup(t *testing.T) (*testenv.Cluster, *rest.Client, string, context.Context) {
	t.Helper()
	cl := testenv.Shared(t)
	cfg := cl.Config()
	cfg.QPS = -1
	c, err := rest.NewClient(cfg, rest.WithRetryPolicy(rest.RetryPolicy{MaxAttempts: 3, Initial: 50 * time.Millisecond, Max: time.Second, MaxRetryAfter: time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	ns := cl.Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	return cl, c, ns, ctx
}

func fastReflector(initial reflector.InitialList) reflector.Options {
	b := reflector.DefaultBackoff()
	b.Initial, b.Max = 100*time.Millisecond, 2*time.Second
	return reflector.Options{InitialList: initial, PageSize: 100, Backoff: &b, MinWatchTimeout: 30 * time.Second}
}

func startFactory(t *testing.T, ctx context.Context, c *rest.Client, ns string, ro reflector.Options) *informer.Factory {
	t.Helper()
	f := informer.NewFactory(c, informer.FactoryOptions{Namespace: ns, Reflector: ro})
	t.Cleanup(f.Shutdown)
	return f
}

// TestConvergesUnderChurn: thousands of concurrent writes while informers
// run (WatchList, and LIST+WATCH with a first LIST from the watch cache or
// consistent, paged); after quiescence the cache equals
// a fresh LIST (same keys, same resourceVersions) and each handler's last
// event per key matches.
func TestConvergesUnderChurn(t *testing.T) {
	for _, tc := range []struct {
		initial   reflector.InitialList
		transport rest.WatchTransport
	}{{reflector.ListStream, rest.Chunked}, {reflector.ListFromCache, rest.Chunked}, {reflector.ListConsistent, rest.WebSocket}} {
		t.Run(fmt.Sprintf("initial=%v,websocket=%v", tc.initial, tc.transport == rest.WebSocket), func(t *testing.T) {
			_, c, ns, ctx := setup(t)
			pods := rest.NewResources(c, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)
			churnPods(ctx, pods, 4, 400, 100, 1) // some objects exist before the informer starts
			f := informer.NewFactory(c, informer.FactoryOptions{Namespace: ns, Reflector: fastReflector(tc.initial), Transport: tc.transport})
			t.Cleanup(f.Shutdown)
			inf := informer.For[api.Pod](f, rest.Pods)
			h := newLastEvents[*api.Pod]()
			if _, err := inf.AddEventHandler(h, processor.HandlerOptions{Name: "last"}); err != nil {
				t.Fatal(err)
			}
			f.Start(ctx)
			if synced := f.WaitForCacheSync(ctx); !synced["pods"] {
				t.Fatalf("not synced: %v", synced)
			}
			churnPods(ctx, pods, 4, 1600, 150, 2)
			awaitConverged(t, ctx, pods, inf, h)
			t.Logf("%d handler events, %d cached pods", h.events.Load(), inf.Store().Len())
		})
	}
}

// TestConvergesAcrossAPIServerRestart restarts kube-apiserver in the middle
// of the churn: watches break, the reflector resumes (or relists) and the
// cache converges.
func TestConvergesAcrossAPIServerRestart(t *testing.T) {
	cl, c, ns, ctx := setup(t)
	pods := rest.NewResources(c, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)
	rs := rest.NewResources(c, rest.ReplicaSets, decode.Raw()).InNamespace(ns)
	f := startFactory(t, ctx, c, ns, fastReflector(reflector.ListStream))
	inf := informer.For[api.Pod](f, rest.Pods)
	rsInf := informer.ForRaw(f, rest.ReplicaSets)
	h := newLastEvents[*api.Pod]()
	hrs := newLastEvents[*api.RawObject]()
	inf.AddEventHandler(h, processor.HandlerOptions{})
	rsInf.AddEventHandler(hrs, processor.HandlerOptions{})
	f.Start(ctx)
	f.WaitForCacheSync(ctx)
	done := make(chan int64)
	go func() { done <- churnPods(ctx, pods, 4, 1200, 100, 3) }()
	for i := 0; i < 20; i++ {
		obj, _ := api.NewRawObject(map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet",
			"metadata": map[string]any{"name": fmt.Sprintf("rs-%d", i)},
			"spec": map[string]any{"replicas": 0, "selector": map[string]any{"matchLabels": map[string]any{"a": "b"}},
				"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"a": "b"}},
					"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "x"}}}}}})
		if _, err := rs.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	if err := cl.RestartAPIServer(ctx); err != nil {
		t.Fatalf("restart: %v", err)
	}
	failed := <-done
	t.Logf("writes failed during the restart: %d", failed)
	awaitConverged(t, ctx, pods, inf, h)
	awaitConverged(t, ctx, rs, rsInf, hrs)
}

// relists counts how often a reflector went back to listing after it had
// been watching.
type relists struct {
	n atomic.Int64
}

func (r *relists) ListPage(int, string, bool)             {}
func (r *relists) WatchEvent(rest.EventType, string, int) {}
func (r *relists) PhaseChange(from, to reflector.Phase, _ error) {
	if from == reflector.Watching && (to == reflector.Listing || to == reflector.WatchListing) {
		r.n.Add(1)
	}
}

// TestRelistsAfterCompaction forces 410 Gone: configmaps are served without
// the watch cache in testenv, so after etcd compacts past the informer's
// resourceVersion, the watch that resumes after an apiserver restart is
// refused as too old; the reflector relists and the cache converges.
func TestRelistsAfterCompaction(t *testing.T) {
	cl, c, ns, ctx := setup(t)
	cms := rest.NewResources(c, rest.ConfigMaps, decode.Raw()).InNamespace(ns)
	ro := fastReflector(reflector.ListStream)
	rel := &relists{}
	ro.Observer = rel
	f := startFactory(t, ctx, c, ns, ro)
	inf := informer.ForRaw(f, rest.ConfigMaps)
	h := newLastEvents[*api.RawObject]()
	inf.AddEventHandler(h, processor.HandlerOptions{})
	f.Start(ctx)
	f.WaitForCacheSync(ctx)
	for i := 0; i < 30; i++ {
		obj, _ := api.NewRawObject(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": fmt.Sprintf("cm-%d", i)}})
		if _, err := cms.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	awaitConverged(t, ctx, cms, inf, h)
	// Stop the apiserver, advance etcd past the informer's resourceVersion
	// with writes it does not watch, compact, and start again.
	if err := cl.StopAPIServer(); err != nil {
		t.Fatal(err)
	}
	if err := cl.StartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	other := rest.NewResources(c, rest.ConfigMaps, decode.Raw()).InNamespace(cl.Namespace(t))
	for i := 0; i < 5; i++ {
		obj, _ := api.NewRawObject(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": fmt.Sprintf("x-%d", i)}})
		if _, err := other.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cl.CompactEtcd(ctx); err != nil {
		t.Fatal(err)
	}
	if err := cl.RestartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	// Changes made after the compaction must reach the cache through the relist.
	if err := cms.Delete(ctx, "cm-0", rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitConverged(t, ctx, cms, inf, h)
	if rel.n.Load() == 0 {
		t.Fatalf("no relist happened: the watch was never refused as too old")
	}
	t.Logf("relists: %d", rel.n.Load())
}
