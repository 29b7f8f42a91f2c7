package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/kcmlab/kcm/bench"
	"github.com/kcmlab/kcm/internal/testing/podgen"
)

func engines(tb testing.TB, host string) []bench.Engine {
	tb.Helper()
	es, err := bench.Engines(host)
	if err != nil {
		tb.Fatal(err)
	}
	return es
}

// TestEnginesAgree checks that every engine does the work the benchmarks
// credit it with: it caches every pod, applies every event, strips
// managedFields exactly when it claims to, and talks to the server the
// way its defaults say (both: one LIST at resourceVersion 0, which the
// server answers whole), each followed by one WATCH.
func TestEnginesAgree(t *testing.T) {
	const pods, events = 1200, 700
	srv := server(pods, events)
	listRV, _ := strconv.Atoi(srv.ListRV())
	tests := []struct {
		engine        string
		managedFields bool
		lists         int64
	}{
		{bench.KCM, false, 1},
		{bench.KCMTyped, false, 1},
		{bench.ClientGo, true, 1},
		{bench.ClientGoStrip, false, 1},
	}
	es := map[string]bench.Engine{}
	for _, e := range engines(t, srv.URL) {
		es[e.Name()] = e
	}
	for _, tc := range tests {
		t.Run(tc.engine, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			before := srv.Stats()
			c := bench.NewCounter(pods, events)
			r, err := es[tc.engine].Start(c)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Stop()
			if err := bench.WaitSynced(ctx, r, c); err != nil {
				t.Fatal(err)
			}
			if r.Len() != pods {
				t.Fatalf("cached %d pods, want %d", r.Len(), pods)
			}
			select {
			case srv.gate <- struct{}{}:
			case <-ctx.Done():
				t.Fatal("watch never reached the server")
			}
			if err := bench.WaitUpdates(ctx, c); err != nil {
				t.Fatal(err)
			}
			// Event k of the stream modifies pod EventTarget(pods, k) to
			// resourceVersion ListRV+1+k (targets are distinct for k < pods).
			for _, k := range []int{0, events / 2, events - 1} {
				key := podKey(t, podgen.EventTarget(pods, k))
				rv, mf, ok := r.Lookup(key)
				if want := strconv.Itoa(listRV + 1 + k); !ok || rv != want {
					t.Errorf("%s: rv %q (cached %v), want %s", key, rv, ok, want)
				}
				if mf != tc.managedFields {
					t.Errorf("%s: managedFields cached = %v, want %v", key, mf, tc.managedFields)
				}
			}
			after := srv.Stats()
			if got := after.Lists - before.Lists; got != tc.lists {
				t.Errorf("LIST requests = %d, want %d", got, tc.lists)
			}
			if got := after.Watches - before.Watches; got != 1 {
				t.Errorf("WATCH requests = %d, want 1", got)
			}
			if got := after.WatchLists - before.WatchLists; got != 0 {
				t.Errorf("WatchList requests = %d, want 0", got)
			}
		})
	}
}

// podKey returns the cache key of pod i, read from its generated JSON.
func podKey(t *testing.T, i int) string {
	t.Helper()
	var m struct {
		Metadata struct{ Namespace, Name string } `json:"metadata"`
	}
	if err := json.Unmarshal(podgen.Pod(i), &m); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s/%s", m.Metadata.Namespace, m.Metadata.Name)
}
