package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/deltafifo"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
)

var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// ms returns t0 plus n milliseconds.
func ms(n float64) time.Time { return t0.Add(time.Duration(n * float64(time.Millisecond))) }

var (
	webFE = indexEntries{Namespace: []string{"shop"}, Label: []string{"app=web", "tier=fe"}}
	webBE = indexEntries{Namespace: []string{"shop"}, Label: []string{"app=web", "tier=be"}}
)

// body returns the printed lines that follow the header.
func body(o printerOptions, events ...traceEvent) []string {
	p := newPrinter(o)
	p.lines(traceStart{At: t0, Resource: rest.Pods, Server: "https://127.0.0.1:6443", Transport: "chunked"})
	var out []string
	for _, e := range events {
		out = append(out, p.lines(e)...)
	}
	return out
}

// TestPrinterStages checks the lines each kind of event gives, in the
// context of the events before it.
func TestPrinterStages(t *testing.T) {
	tests := []struct {
		name   string
		o      printerOptions
		events []traceEvent
		want   []string
	}{{
		name: "list pages report running rates, the last one the total",
		events: []traceEvent{
			listPage{At: ms(100), Items: 500, RV: "7", More: true},
			listPage{At: ms(200), Items: 300, RV: "7"},
		},
		want: []string{
			"12:00:00.100  reflector  LIST      page 1: 500 items at rv=7, more pages follow (5000 objects/s so far)",
			"12:00:00.200  reflector  LIST      done: 800 items in 2 pages at rv=7 in 200ms (4000 objects/s)",
		},
	}, {
		name: "the initial list is summarised, and sync time ends at the last initial delta",
		events: []traceEvent{
			listPage{At: ms(10), Items: 1, RV: "7"},
			applied{At: ms(12), Type: deltafifo.Replaced, Key: "shop/web-0", RV: "5", InitialList: true, Index: webFE},
			delivered{At: ms(13), Call: "OnAdd", Key: "shop/web-0", RV: "5", Initial: true, Listeners: 1},
			synced{At: ms(100), Objects: 1},
		},
		want: []string{
			"12:00:00.010  reflector  LIST      done: 1 items in 1 page at rv=7 in 10ms (100 objects/s)",
			"12:00:00.100  informer   synced    1 objects cached in 12ms (83 objects/s); from now on every change is shown",
		},
	}, {
		name: "an update shows which index entries changed, and the trip time",
		events: []traceEvent{
			applied{At: ms(1), Type: deltafifo.Replaced, Key: "shop/web-0", RV: "5", InitialList: true, Index: webFE},
			delivered{At: ms(1), Call: "OnAdd", Key: "shop/web-0", RV: "5", Initial: true, Listeners: 1},
			watchEvent{At: ms(1000), Type: rest.Modified, Key: "shop/web-0", RV: "8", Bytes: 1946},
			applied{At: ms(1000.5), Type: deltafifo.Updated, Key: "shop/web-0", RV: "8", Existed: true, Depth: 1, Index: webBE},
			delivered{At: ms(1001.2), Call: "OnUpdate", Key: "shop/web-0", RV: "8", Listeners: 1},
		},
		want: []string{
			"12:00:01.000  reflector  MODIFIED  shop/web-0 rv=8 1.9KB",
			"12:00:01.000  deltafifo  Updated   shop/web-0, queue depth 1",
			"12:00:01.000  store      update    shop/web-0  index namespace shop, label app=web (+tier=be -tier=fe)",
			"12:00:01.001  processor  OnUpdate  shop/web-0 → 1 listener, buffer depth 0, 1.2ms after the reflector read it",
		},
	}, {
		name: "a handler call observed before its store write is shown after it",
		events: []traceEvent{
			watchEvent{At: ms(1000), Type: rest.Added, Key: "shop/web-0", RV: "8", Bytes: 1946},
			delivered{At: ms(1000.4), Call: "OnAdd", Key: "shop/web-0", RV: "8", Listeners: 1},
			applied{At: ms(1000.5), Type: deltafifo.Added, Key: "shop/web-0", RV: "8", Depth: 1, Index: webFE},
			watchEvent{At: ms(1001), Type: rest.Modified, Key: "shop/web-0", RV: "9", Bytes: 1946},
			applied{At: ms(1001.5), Type: deltafifo.Updated, Key: "shop/web-0", RV: "9", Existed: true, Depth: 1, Index: webBE},
			delivered{At: ms(1001.6), Call: "OnUpdate", Key: "shop/web-0", RV: "9", Listeners: 1},
		},
		want: []string{
			"12:00:01.000  reflector  ADDED     shop/web-0 rv=8 1.9KB",
			"12:00:01.000  deltafifo  Added     shop/web-0, queue depth 1",
			"12:00:01.000  store      add       shop/web-0  index namespace (+shop), label (+app=web +tier=fe)",
			"12:00:01.000  processor  OnAdd     shop/web-0 → 1 listener, buffer depth 0, 400µs after the reflector read it",
			"12:00:01.001  reflector  MODIFIED  shop/web-0 rv=9 1.9KB",
			"12:00:01.001  deltafifo  Updated   shop/web-0, queue depth 1",
			"12:00:01.001  store      update    shop/web-0  index namespace shop, label app=web (+tier=be -tier=fe)",
			"12:00:01.001  processor  OnUpdate  shop/web-0 → 1 listener, buffer depth 0, 600µs after the reflector read it",
		},
	}, {
		name: "a delete removes every entry the cached object had; deletionTimestamp is called out",
		events: []traceEvent{
			applied{At: ms(1), Type: deltafifo.Added, Key: "shop/web-0", RV: "5", Index: webFE},
			applied{At: ms(2), Type: deltafifo.Updated, Key: "shop/web-0", RV: "6", Existed: true, Deleting: true, Index: webFE},
			applied{At: ms(3), Type: deltafifo.Deleted, Key: "shop/web-0", RV: "7", Existed: true, Index: webFE},
		},
		want: []string{
			"12:00:00.001  deltafifo  Added     shop/web-0, queue depth 0",
			"12:00:00.001  store      add       shop/web-0  index namespace (+shop), label (+app=web +tier=fe)",
			"12:00:00.002  deltafifo  Updated   shop/web-0, queue depth 0",
			"12:00:00.002  store      update    shop/web-0  index namespace shop, label app=web tier=fe (no index change); deletionTimestamp set: being deleted",
			"12:00:00.003  deltafifo  Deleted   shop/web-0, queue depth 0",
			"12:00:00.003  store      delete    shop/web-0  index namespace (-shop), label (-app=web -tier=fe)",
		},
	}, {
		name: "a relist hides unchanged objects and counts them; a tombstone is marked",
		events: []traceEvent{
			applied{At: ms(1), Type: deltafifo.Added, Key: "shop/a", RV: "5", Index: webFE},
			applied{At: ms(2), Type: deltafifo.Added, Key: "shop/b", RV: "6", Index: webFE},
			phaseChange{At: ms(10), From: reflector.Watching, To: reflector.Listing, Err: errors.New("410 Expired")},
			applied{At: ms(11), Type: deltafifo.Replaced, Key: "shop/a", RV: "5", Existed: true, Index: webFE},
			delivered{At: ms(11), Call: "OnUpdate", Key: "shop/a", RV: "5", Unchanged: true, Listeners: 1},
			applied{At: ms(12), Type: deltafifo.Deleted, Key: "shop/b", RV: "6", Existed: true, FinalStateUnknown: true, Index: webFE},
		},
		want: []string{
			"12:00:00.001  deltafifo  Added     shop/a, queue depth 0",
			"12:00:00.001  store      add       shop/a  index namespace (+shop), label (+app=web +tier=fe)",
			"12:00:00.002  deltafifo  Added     shop/b, queue depth 0",
			"12:00:00.002  store      add       shop/b  index namespace (+shop), label (+app=web +tier=fe)",
			"12:00:00.010  reflector  phase     watching → listing: 410 Expired",
			"12:00:00.012  store      relist    1 unchanged object re-listed (not shown)",
			"12:00:00.012  deltafifo  Deleted   shop/b, queue depth 0 (tombstone: gone from a relist, final state unknown)",
			"12:00:00.012  store      delete    shop/b  index namespace (-shop), label (-app=web -tier=fe)",
		},
	}, {
		name: "WatchList: initial events are counted, the end bookmark reports them",
		events: []traceEvent{
			watchOpened{At: ms(1), InitialEvents: true, TimeoutSeconds: 300},
			watchEvent{At: ms(3), Type: rest.Added, Key: "shop/a", RV: "5", Bytes: 900},
			watchEvent{At: ms(4), Type: rest.Added, Key: "shop/b", RV: "6", Bytes: 900},
			watchEvent{At: ms(5), Type: rest.Bookmark, RV: "9", InitialEnd: true},
			watchEvent{At: ms(60005), Type: rest.Bookmark, RV: "12"},
		},
		want: []string{
			"12:00:00.001  reflector  WATCH     sendInitialEvents=true (WatchList): the current state as ADDED events, then a bookmark; server ends it after 300s",
			"12:00:00.005  reflector  BOOKMARK  rv=9 initial-events-end: 2 objects streamed in 4.0ms (500 objects/s)",
			"12:01:00.005  reflector  BOOKMARK  rv=12 (no object: only the resourceVersion advances)",
		},
	}, {
		name: "--show-initial prints the initial state object by object",
		o:    printerOptions{ShowInitial: true},
		events: []traceEvent{
			watchOpened{At: ms(1), InitialEvents: true, TimeoutSeconds: 300},
			watchEvent{At: ms(3), Type: rest.Added, Key: "shop/a", RV: "5", Bytes: 900},
			applied{At: ms(4), Type: deltafifo.Replaced, Key: "shop/a", RV: "5", InitialList: true, Index: webFE},
			delivered{At: ms(5), Call: "OnAdd", Key: "shop/a", RV: "5", Initial: true, Listeners: 1},
		},
		want: []string{
			"12:00:00.001  reflector  WATCH     sendInitialEvents=true (WatchList): the current state as ADDED events, then a bookmark; server ends it after 300s",
			"12:00:00.003  reflector  ADDED     shop/a rv=5 900B",
			"12:00:00.004  deltafifo  Replaced  shop/a, queue depth 0",
			"12:00:00.004  store      add       shop/a  index namespace (+shop), label (+app=web +tier=fe)",
			"12:00:00.005  processor  OnAdd     shop/a → 1 listener, buffer depth 0, 2.0ms after the reflector read it",
		},
	}, {
		name: "watch ends, errors and backoff",
		events: []traceEvent{
			watchOpened{At: ms(1), RV: "9", TimeoutSeconds: 412},
			watchClosed{At: ms(2), Err: io.EOF},
			watchEvent{At: ms(3), Type: rest.Error, Err: "410 Expired: too old resource version: 9 (12)"},
			phaseChange{At: ms(4), From: reflector.Listing, To: reflector.BackingOff, Err: errors.New("connection refused")},
			phaseChange{At: ms(5), From: reflector.Watching, To: reflector.Watching, Err: io.EOF},
			phaseChange{At: ms(6), From: reflector.WatchListing, To: reflector.Watching, Err: errContextCanceled()},
		},
		want: []string{
			"12:00:00.001  reflector  WATCH     from rv=9 with bookmarks; server ends it after 412s",
			"12:00:00.002  reflector  WATCH     ended by the server (its timeout); the reflector resumes from the last rv",
			"12:00:00.003  reflector  ERROR     410 Expired: too old resource version: 9 (12)",
			"12:00:00.004  reflector  phase     listing → backing-off: connection refused",
			"12:00:00.005  reflector  phase     watching → watching",
		},
	}, {
		name: "the end says how many changes were traced",
		events: []traceEvent{
			watchEvent{At: ms(3), Type: rest.Added, Key: "shop/a", RV: "5", Bytes: 900},
			traceStopped{At: ms(2500)},
		},
		want: []string{
			"12:00:00.003  reflector  ADDED     shop/a rv=5 900B",
			"12:00:02.500  informer   stopped   after 2.5s; 1 change traced",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := body(tt.o, tt.events...)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// errContextCanceled is what a reflector reports when the trace stops.
func errContextCanceled() error { return fmt.Errorf("watch pods: %w", context.Canceled) }

// TestPrinterIsPure: the same events give the same lines, whatever was
// printed before by another printer.
func TestPrinterIsPure(t *testing.T) {
	events := []traceEvent{
		traceStart{At: t0, Resource: rest.Pods, Server: "s", Transport: "chunked", WatchList: true},
		watchEvent{At: ms(1), Type: rest.Added, Key: "shop/a", RV: "5", Bytes: 900},
		applied{At: ms(2), Type: deltafifo.Added, Key: "shop/a", RV: "5", Index: webFE},
		delivered{At: ms(3), Call: "OnAdd", Key: "shop/a", RV: "5", Listeners: 1},
	}
	var a, b strings.Builder
	render(&a, printerOptions{}, events...)
	render(&b, printerOptions{}, events...)
	if a.String() != b.String() || a.Len() == 0 {
		t.Errorf("two renders differ or are empty:\n%s\n---\n%s", a.String(), b.String())
	}
}

// TestPrinterHeader: the header names what is traced and explains each
// stage once.
func TestPrinterHeader(t *testing.T) {
	tests := []struct {
		start traceStart
		want  []string
	}{
		{traceStart{Resource: rest.Pods, Server: "https://h:1", Transport: "chunked", WatchList: true},
			[]string{"kcm trace: pods (v1) in all namespaces, server https://h:1", "WatchList on"}},
		{traceStart{Resource: rest.Deployments, Namespace: "shop", Server: "https://h:1", Transport: "websocket"},
			[]string{"deployments (apps/v1) in namespace shop", "websocket watch", "WatchList off"}},
		{traceStart{Resource: rest.Namespaces, Server: "https://h:1", Transport: "chunked"},
			[]string{"namespaces (v1) in the cluster (cluster-scoped)"}},
	}
	for _, tt := range tests {
		head := strings.Join(newPrinter(printerOptions{}).lines(tt.start), "\n")
		for _, w := range append(tt.want, "reflector  the event", "deltafifo  the delta", "store      the cache write", "processor  the handler call") {
			if !strings.Contains(head, w) {
				t.Errorf("header for %s lacks %q:\n%s", tt.start.Resource, w, head)
			}
		}
	}
}

// TestPrinterSeenIsBounded: events never delivered do not pile up.
func TestPrinterSeenIsBounded(t *testing.T) {
	p := newPrinter(printerOptions{})
	for i := range 3 * maxSeen {
		p.lines(watchEvent{At: ms(float64(i)), Type: rest.Modified, Key: "shop/a", RV: strconv.Itoa(i)})
	}
	if len(p.seen) > maxSeen {
		t.Errorf("seen holds %d entries, want ≤ %d", len(p.seen), maxSeen)
	}
}

func TestFormatIndexes(t *testing.T) {
	owned := indexEntries{Namespace: []string{"shop"}, Owner: []string{"0123456789abcdef"}}
	tests := []struct {
		name     string
		old, now indexEntries
		want     string
	}{
		{"add", indexEntries{}, webFE, "index namespace (+shop), label (+app=web +tier=fe)"},
		{"relabel", webFE, webBE, "index namespace shop, label app=web (+tier=be -tier=fe)"},
		{"unchanged", webFE, webFE, "index namespace shop, label app=web tier=fe (no index change)"},
		{"adopted: owner UIDs shortened", indexEntries{Namespace: []string{"shop"}}, owned, "index namespace shop, owner (+01234567…)"},
		{"cluster-scoped, no labels", indexEntries{}, indexEntries{}, "no index entries"},
	}
	for _, tt := range tests {
		if got := formatIndexes(tt.old, tt.now); got != tt.want {
			t.Errorf("%s: formatIndexes = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestDiffSorted(t *testing.T) {
	tests := []struct {
		old, now, kept, added, removed []string
	}{
		{nil, nil, nil, nil, nil},
		{[]string{"a", "c"}, []string{"b", "c", "d"}, []string{"c"}, []string{"b", "d"}, []string{"a"}},
		{[]string{"a", "b"}, nil, nil, nil, []string{"a", "b"}},
		{nil, []string{"a"}, nil, []string{"a"}, nil},
	}
	for _, tt := range tests {
		k, a, r := diffSorted(tt.old, tt.now)
		if !slices.Equal(k, tt.kept) || !slices.Equal(a, tt.added) || !slices.Equal(r, tt.removed) {
			t.Errorf("diffSorted(%q, %q) = %q %q %q, want %q %q %q", tt.old, tt.now, k, a, r, tt.kept, tt.added, tt.removed)
		}
	}
}

func TestIndexEntriesOf(t *testing.T) {
	obj, err := api.NewRawObject(map[string]any{"metadata": map[string]any{"name": "w", "namespace": "shop",
		"labels":          map[string]any{"tier": "fe", "app": "web"},
		"ownerReferences": []any{map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "r", "uid": "u1"}}}})
	if err != nil {
		t.Fatal(err)
	}
	got := indexEntriesOf(obj)
	want := indexEntries{Namespace: []string{"shop"}, Label: []string{"app=web", "tier=fe"}, Owner: []string{"u1"}}
	if !slices.Equal(got.Namespace, want.Namespace) || !slices.Equal(got.Label, want.Label) || !slices.Equal(got.Owner, want.Owner) {
		t.Errorf("indexEntriesOf = %+v, want %+v", got, want)
	}
	node, _ := api.NewRawObject(map[string]any{"metadata": map[string]any{"name": "n1"}})
	if got := indexEntriesOf(node); len(got.Namespace) != 0 {
		t.Errorf("cluster-scoped object: namespace entries %q, want none shown", got.Namespace)
	}
}

func TestFormatUnits(t *testing.T) {
	tests := []struct{ got, want string }{
		{fmtBytes(850), "850B"},
		{fmtBytes(1946), "1.9KB"},
		{fmtBytes(3 << 20), "3.0MB"},
		{fmtDur(212 * time.Microsecond), "212µs"},
		{fmtDur(2100 * time.Microsecond), "2.1ms"},
		{fmtDur(104 * time.Millisecond), "104ms"},
		{fmtDur(16649 * time.Millisecond), "16.65s"},
		{fmtDur(-time.Second), "0s"},
		{fmtRate(10, 0), "rate n/a"},
		{fmtRate(10, 2*time.Second), "5 objects/s"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// Example_trace prints the trace of one pod: listed at start, relabelled,
// deleted.
func Example_trace() {
	render(os.Stdout, printerOptions{},
		traceStart{At: t0, Resource: rest.Pods, Namespace: "shop", Server: "https://127.0.0.1:6443", Transport: "chunked"},
		listPage{At: ms(20), Items: 1, RV: "100"},
		applied{At: ms(21), Type: deltafifo.Replaced, Key: "shop/web-0", RV: "90", InitialList: true, Index: webFE},
		phaseChange{At: ms(21), From: reflector.Listing, To: reflector.Watching},
		delivered{At: ms(21), Call: "OnAdd", Key: "shop/web-0", RV: "90", Initial: true, Listeners: 1},
		watchOpened{At: ms(22), RV: "100", TimeoutSeconds: 412},
		synced{At: ms(100), Objects: 1},
		watchEvent{At: ms(2000), Type: rest.Modified, Key: "shop/web-0", RV: "101", Bytes: 1946},
		applied{At: ms(2000.2), Type: deltafifo.Updated, Key: "shop/web-0", RV: "101", Existed: true, Depth: 1, Index: webBE},
		delivered{At: ms(2000.5), Call: "OnUpdate", Key: "shop/web-0", RV: "101", Listeners: 1},
		watchEvent{At: ms(4000), Type: rest.Deleted, Key: "shop/web-0", RV: "102", Bytes: 1990},
		applied{At: ms(4000.1), Type: deltafifo.Deleted, Key: "shop/web-0", RV: "102", Existed: true, Depth: 1, Index: webBE},
		delivered{At: ms(4000.3), Call: "OnDelete", Key: "shop/web-0", RV: "102", Listeners: 1},
		traceStopped{At: ms(5000)},
	)
	// Output:
	// kcm trace: pods (v1) in namespace shop, server https://127.0.0.1:6443
	//   one informer: reflector (chunked watch) → deltafifo → store → processor → 1 handler (this trace)
	//   WatchList off (LIST, then WATCH); managedFields are cut before caching
	//
	// Every change the API server reports is followed through the informer, one line per stage:
	//   TIME          STAGE      WHAT
	//   hh:mm:ss.mmm  reflector  the event read from the watch stream: type, namespace/name, resourceVersion, size
	//                 deltafifo  the delta popped from the FIFO; queue depth counts the deltas not yet applied, its batch included
	//                 store      the cache write, and the object's index entries: +added -removed, plain = kept
	//                 processor  the handler call a listener made, its buffer depth, time since the reflector read it
	//   Other reflector lines show LIST pages, WATCH requests and phase changes; informer lines show the sync.
	//   The initial state is summarised; --show-initial shows it object by object.
	//
	// 12:00:00.020  reflector  LIST      done: 1 items in 1 page at rv=100 in 20ms (50 objects/s)
	// 12:00:00.021  reflector  phase     listing → watching
	// 12:00:00.022  reflector  WATCH     from rv=100 with bookmarks; server ends it after 412s
	// 12:00:00.100  informer   synced    1 objects cached in 21ms (48 objects/s); from now on every change is shown
	// 12:00:02.000  reflector  MODIFIED  shop/web-0 rv=101 1.9KB
	// 12:00:02.000  deltafifo  Updated   shop/web-0, queue depth 1
	// 12:00:02.000  store      update    shop/web-0  index namespace shop, label app=web (+tier=be -tier=fe)
	// 12:00:02.000  processor  OnUpdate  shop/web-0 → 1 listener, buffer depth 0, 500µs after the reflector read it
	// 12:00:04.000  reflector  DELETED   shop/web-0 rv=102 1.9KB
	// 12:00:04.000  deltafifo  Deleted   shop/web-0, queue depth 1
	// 12:00:04.000  store      delete    shop/web-0  index namespace (-shop), label (-app=web -tier=be)
	// 12:00:04.000  processor  OnDelete  shop/web-0 → 1 listener, buffer depth 0, 300µs after the reflector read it
	// 12:00:05.000  informer   stopped   after 5s; 2 changes traced
}
