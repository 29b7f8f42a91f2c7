package podgen_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

func newPods(t *testing.T, o podgen.ServerOptions) (*podgen.Server, *rest.Resources[*api.RawObject]) {
	t.Helper()
	s := podgen.NewServer(o)
	t.Cleanup(s.Close)
	c, err := rest.NewClient(&rest.Config{Host: s.URL, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	return s, rest.NewResources(c, rest.Pods, decode.Raw())
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestServerList checks paging: limit/continue pages carry
// remainingItemCount and a continue token until the last page, and
// resourceVersion=0 ignores limit (the watch cache serves everything).
func TestServerList(t *testing.T) {
	const n = 23
	s, pods := newPods(t, podgen.ServerOptions{Pods: n})
	ctx := testContext(t)
	tests := []struct {
		name      string
		opts      rest.ListOptions
		wantPages int
	}{
		{"paginated", rest.ListOptions{Limit: 5}, 5},
		{"page covers all", rest.ListOptions{Limit: 100}, 1},
		{"rv=0 ignores limit", rest.ListOptions{Limit: 5, ResourceVersion: "0"}, 1},
		{"unpaginated", rest.ListOptions{}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var names []string
			opts, pages := tt.opts, 0
			for {
				meta, err := pods.ListEach(ctx, opts, func(o *api.RawObject) error {
					names = append(names, o.Name)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				pages++
				if meta.ResourceVersion != s.ListRV() {
					t.Errorf("page %d: rv %q, want %q", pages, meta.ResourceVersion, s.ListRV())
				}
				if (meta.Continue == "") != (meta.RemainingItemCount == nil) {
					t.Errorf("page %d: continue %q remaining %v", pages, meta.Continue, meta.RemainingItemCount)
				}
				if meta.Continue == "" {
					break
				}
				opts.Continue = meta.Continue
			}
			if pages != tt.wantPages || len(names) != n {
				t.Fatalf("%d pages, %d items; want %d pages, %d items", pages, len(names), tt.wantPages, n)
			}
			seen := map[string]bool{}
			for _, name := range names {
				seen[name] = true
			}
			if len(seen) != n {
				t.Errorf("%d distinct names of %d", len(seen), n)
			}
		})
	}
}

// TestServerWatch: a watch from the list's resourceVersion streams the
// MODIFIED events, each with the next resourceVersion; one from a later
// resourceVersion resumes after it.
func TestServerWatch(t *testing.T) {
	const n, m = 10, 25
	s, pods := newPods(t, podgen.ServerOptions{Pods: n, Events: m, EndWatch: true})
	ctx := testContext(t)
	for _, from := range []int{0, 7, m} {
		rv := strconv.Itoa(podgen.BaseResourceVersion + n + from)
		w, err := pods.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: rv}})
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for {
			ev, err := w.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			k := from + got
			wantRV := strconv.Itoa(podgen.BaseResourceVersion + n + 1 + k)
			if ev.Type != rest.Modified || ev.Object.ResourceVersion != wantRV {
				t.Errorf("from %d, event %d: %s rv %s, want MODIFIED rv %s", from, got, ev.Type, ev.Object.ResourceVersion, wantRV)
			}
			got++
		}
		_ = w.Close()
		if got != m-from {
			t.Errorf("from %d: %d events, want %d", from, got, m-from)
		}
	}
	if st := s.Stats(); st.Watches != 3 || st.Lists != 0 {
		t.Errorf("stats %+v", st)
	}
}

// TestServerWatchList: sendInitialEvents=true yields one ADDED event per
// pod, then the bookmark annotated k8s.io/initial-events-end at the
// list's resourceVersion, then the watch goes on.
func TestServerWatchList(t *testing.T) {
	const n, m = 12, 3
	s, pods := newPods(t, podgen.ServerOptions{Pods: n, Events: m})
	ctx := testContext(t)
	yes := true
	w, err := pods.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{SendInitialEvents: &yes,
		ResourceVersionMatch: "NotOlderThan", AllowWatchBookmarks: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var types []rest.EventType
	for len(types) < n+1+m {
		ev, err := w.Next()
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, ev.Type)
		if len(types) == n+1 && (!ev.IsInitialEventsEnd() || ev.Object.ResourceVersion != s.ListRV()) {
			t.Fatalf("event %d: %s %+v, want the initial-events-end bookmark", n, ev.Type, ev.Object.ObjectMeta)
		}
		if len(types) <= n && ev.Type != rest.Added {
			t.Fatalf("event %d: %s, want ADDED", len(types)-1, ev.Type)
		}
		if len(types) == 1 && ev.Object.Name != decodePod(t, podgen.Pod(0)).Name {
			t.Errorf("first ADDED is %s", ev.Object.Name)
		}
	}
	if types[n+1] != rest.Modified {
		t.Errorf("after the bookmark: %s", types[n+1])
	}
	if st := s.Stats(); st.WatchLists != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestServerRejectsOtherPaths(t *testing.T) {
	s := podgen.NewServer(podgen.ServerOptions{Pods: 1})
	defer s.Close()
	resp, err := http.Get(s.URL + "/api/v1/namespaces/default/pods")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("status %d", resp.StatusCode)
	}
}

// TestServerEventsGate: with a gate, a watch's events follow only the
// value that releases them.
func TestServerEventsGate(t *testing.T) {
	gate := make(chan struct{})
	s, pods := newPods(t, podgen.ServerOptions{Pods: 3, Events: 4, EndWatch: true, EventsGate: gate})
	ctx := testContext(t)
	w, err := pods.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: s.ListRV()}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	got := make(chan int)
	go func() {
		n := 0
		for {
			if _, err := w.Next(); err != nil {
				got <- n
				return
			}
			n++
		}
	}()
	gate <- struct{}{} // accepted only by the waiting handler
	if n := <-got; n != 4 {
		t.Errorf("%d events after release, want 4", n)
	}
}

// TestServerRelabel: with Relabel, a pod's first change keeps its labels
// and its second change relabels it (RelabelKey), labels equal across the
// pods of a ReplicaSet.
func TestServerRelabel(t *testing.T) {
	const n, m = 8, 16
	_, pods := newPods(t, podgen.ServerOptions{Pods: n, Events: m, EndWatch: true, Relabel: true})
	ctx := testContext(t)
	rv := strconv.Itoa(podgen.BaseResourceVersion + n)
	w, err := pods.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: rv}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Close() }()
	waves := map[string]string{} // pod-template-hash -> wave label of the second change
	for k := 0; k < m; k++ {
		ev, err := w.Next()
		if err != nil {
			t.Fatal(err)
		}
		wave, ok := ev.Object.Labels[podgen.RelabelKey]
		switch first := k < n; {
		case first && ok:
			t.Errorf("event %d (first change of %s) carries %s=%q", k, ev.Object.Name, podgen.RelabelKey, wave)
		case !first && wave != "wave-1":
			t.Errorf("event %d (second change of %s): %s=%q, want wave-1", k, ev.Object.Name, podgen.RelabelKey, wave)
		case !first:
			waves[ev.Object.Labels["pod-template-hash"]] = wave
		}
	}
	if len(waves) == 0 {
		t.Error("no second change seen")
	}
}
