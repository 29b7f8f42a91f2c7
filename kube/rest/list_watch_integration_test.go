package rest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

func createConfigMaps(t *testing.T, ctx context.Context, r *rest.Resources[*api.ConfigMap], n int) {
	t.Helper()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	for i := 0; i < n; i++ {
		g.Go(func() error {
			_, err := r.Create(gctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("cm-%04d", i)}})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatalf("create configmaps: %v", err)
	}
}

// TestListPagination lists 1100 objects in pages of 100 (API rule: every
// page of a paginated list comes from the snapshot of the first page).
func TestListPagination(t *testing.T) {
	c, ns, ctx := env(t)
	r := rest.NewResources(c, rest.ConfigMaps, decode.Typed[api.ConfigMap]()).InNamespace(ns)
	const n = 1100
	createConfigMaps(t, ctx, r, n)
	seen := map[string]bool{}
	opts := rest.ListOptions{Limit: 100}
	pages := 0
	for {
		page, err := r.List(ctx, opts)
		if err != nil {
			t.Fatalf("page %d: %v", pages, err)
		}
		pages++
		if len(page.Items) > 100 {
			t.Fatalf("page of %d items with limit 100", len(page.Items))
		}
		for _, it := range page.Items {
			if seen[it.Name] {
				t.Fatalf("%s listed twice", it.Name)
			}
			seen[it.Name] = true
		}
		if page.Continue == "" {
			break
		}
		if page.RemainingItemCount == nil {
			t.Errorf("page %d: remainingItemCount missing (no selector was used)", pages)
		}
		opts.Continue = page.Continue
	}
	if len(seen) != n || pages != 11 {
		t.Fatalf("listed %d objects in %d pages, want %d in 11", len(seen), pages, n)
	}
	all, err := r.ListAll(ctx, rest.ListOptions{Limit: 250})
	if err != nil || len(all.Items) != n {
		t.Fatalf("ListAll: %d items, %v", len(all.Items), err)
	}
	// Streaming: items arrive one by one, in name order.
	prev, count := "", 0
	_, err = r.ListEach(ctx, rest.ListOptions{}, func(cm *api.ConfigMap) error {
		if cm.Name <= prev {
			return fmt.Errorf("out of order: %s after %s", cm.Name, prev)
		}
		prev = cm.Name
		count++
		return nil
	})
	if err != nil || count != n {
		t.Fatalf("ListEach: %d items, %v", count, err)
	}
}

// TestMetadataOnlyList asks for PartialObjectMetadata: the items carry
// metadata but no data.
func TestMetadataOnlyList(t *testing.T) {
	c, ns, ctx := env(t)
	typed := rest.NewResources(c, rest.ConfigMaps, decode.Typed[api.ConfigMap]()).InNamespace(ns)
	if _, err := typed.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "big", Labels: map[string]string{"a": "b"}},
		Data: map[string]string{"payload": "xxxxxxxxxxxxxxxx"}}); err != nil {
		t.Fatal(err)
	}
	meta := rest.NewResources(c, rest.ConfigMaps, decode.Raw()).InNamespace(ns).MetadataOnly()
	list, err := meta.List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 {
		t.Fatalf("%d items", len(list.Items))
	}
	it := list.Items[0]
	if it.Kind != "PartialObjectMetadata" || it.Labels["a"] != "b" || it.UID == "" {
		t.Fatalf("item kind %q labels %v uid %q", it.Kind, it.Labels, it.UID)
	}
	if _, ok, _ := it.NestedField("data"); ok {
		t.Fatalf("metadata-only item carries data: %s", it.Raw())
	}
	one, err := meta.Get(ctx, "big")
	if err != nil || one.Kind != "PartialObjectMetadata" {
		t.Fatalf("metadata-only get: kind %q, %v", one.Kind, err)
	}
}

type step struct {
	typ  rest.EventType
	name string
}

// expectEvents reads events until the wanted sequence was seen (bookmarks
// are skipped), failing on anything else.
func expectEvents(t *testing.T, w *rest.Watcher[*api.ConfigMap], want []step) {
	t.Helper()
	for i := 0; i < len(want); {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if ev.Type == rest.Bookmark {
			continue
		}
		if ev.Type != want[i].typ || ev.Object.Name != want[i].name {
			t.Fatalf("event %d = %s %s, want %s %s", i, ev.Type, ev.Object.Name, want[i].typ, want[i].name)
		}
		i++
	}
}

func watchSequence(t *testing.T, transport rest.WatchTransport) {
	c, ns, ctx := env(t)
	r := rest.NewResources(c, rest.ConfigMaps, decode.Typed[api.ConfigMap]()).InNamespace(ns)
	list, err := r.List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := r.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: list.ResourceVersion,
		AllowWatchBookmarks: true, TimeoutSeconds: 60}, Transport: transport, IdleTimeout: time.Minute})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Close()
	cm, err := r.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "w"}})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data = map[string]string{"k": "v"}
	if _, err := r.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if err := r.Delete(ctx, "w", rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// API rule: a watch from resourceVersion N delivers every change after N, in order.
	expectEvents(t, w, []step{{rest.Added, "w"}, {rest.Modified, "w"}, {rest.Deleted, "w"}})

	// WatchList: the current state as ADDED events, closed by a bookmark
	// annotated k8s.io/initial-events-end, then live events on the same stream.
	if _, err := r.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "x"}}); err != nil {
		t.Fatal(err)
	}
	send := true
	wl, err := r.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{SendInitialEvents: &send,
		ResourceVersionMatch: "NotOlderThan", AllowWatchBookmarks: true}, Transport: transport})
	if err != nil {
		t.Fatalf("watchlist: %v", err)
	}
	defer wl.Close()
	var initial []string
	for {
		ev, err := wl.Next()
		if err != nil {
			t.Fatalf("watchlist: %v", err)
		}
		if ev.IsInitialEventsEnd() {
			if ev.Object.ResourceVersion == "" {
				t.Fatal("initial-events-end bookmark without resourceVersion")
			}
			break
		}
		if ev.Type == rest.Added {
			initial = append(initial, ev.Object.Name)
		}
	}
	if len(initial) != 2 { // kube-root-ca.crt is not published (no controller runs); "x" and nothing else?
		t.Logf("initial events: %v", initial)
	}
	if !contains(initial, "x") {
		t.Fatalf("initial events %v lack x", initial)
	}
	if _, err := r.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "y"}}); err != nil {
		t.Fatal(err)
	}
	expectEvents(t, wl, []step{{rest.Added, "y"}})
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestWatchChunked(t *testing.T)   { watchSequence(t, rest.Chunked) }
func TestWatchWebSocket(t *testing.T) { watchSequence(t, rest.WebSocket) }

// TestWatchServerTimeoutEndsWithEOF: timeoutSeconds makes the server end the
// watch, which the client reports as io.EOF (a clean end, not an error).
func TestWatchServerTimeoutEndsWithEOF(t *testing.T) {
	c, ns, ctx := env(t)
	r := rest.NewResources(c, rest.ConfigMaps, decode.Typed[api.ConfigMap]()).InNamespace(ns)
	list, err := r.List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := r.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: list.ResourceVersion, TimeoutSeconds: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for {
		_, err := w.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("watch ended with %v, want io.EOF", err)
		}
	}
}

// TestWatchExpiredAfterCompaction: after etcd compacts past a resourceVersion,
// a watch from it answers 410 Gone (API rule: "too old resource version").
// configmaps are served without the watch cache in testenv, so compaction
// is visible to watches at once.
func TestWatchExpiredAfterCompaction(t *testing.T) {
	if testenv.UncachedResource != "configmaps" {
		t.Fatalf("testenv serves %s uncached; this test needs configmaps", testenv.UncachedResource)
	}
	c, ns, ctx := env(t)
	cl := testenv.Shared(t)
	r := rest.NewResources(c, rest.ConfigMaps, decode.Typed[api.ConfigMap]()).InNamespace(ns)
	first, err := r.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "old"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := r.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("new-%d", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cl.CompactEtcd(ctx); err != nil {
		t.Fatalf("compact: %v", err)
	}
	w, err := r.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: first.ResourceVersion}})
	if err == nil {
		defer w.Close()
		var ev rest.WatchEvent[*api.ConfigMap]
		ev, err = w.Next()
		if err == nil {
			if ev.Type != rest.Error {
				t.Fatalf("first event %s, want ERROR 410", ev.Type)
			}
			err = ev.Err
		}
	}
	if !rest.IsGone(err) {
		t.Fatalf("watch from compacted rv: %v, want 410 Gone", err)
	}
	// A paginated list at an exact compacted RV is expired too.
	_, err = r.List(ctx, rest.ListOptions{ResourceVersion: first.ResourceVersion, ResourceVersionMatch: "Exact", Limit: 1})
	if !rest.IsGone(err) {
		t.Fatalf("exact list at compacted rv: %v, want 410 Gone", err)
	}
}
