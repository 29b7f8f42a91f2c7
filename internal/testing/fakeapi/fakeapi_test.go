package fakeapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/goleak"

	"github.com/kcmlab/kcm/internal/testing/fakeapi"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var pods = fakeapi.Resource{Version: "v1", Resource: "pods", Kind: "Pod"}

func pod(ns, name, gen string) map[string]any {
	return map[string]any{"metadata": map[string]any{"namespace": ns, "name": name, "labels": map[string]any{"gen": gen}}}
}

func newServer(t *testing.T, o fakeapi.Options) *fakeapi.Server {
	t.Helper()
	o.Resources = []fakeapi.Resource{pods}
	s := fakeapi.New(o)
	t.Cleanup(s.Close)
	return s
}

// must fails the test when a write fails: must(t)(s.Create(...)).
func must(t *testing.T) func([]byte, error) {
	return func(_ []byte, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

type listMeta struct {
	ResourceVersion    string `json:"resourceVersion"`
	Continue           string `json:"continue"`
	RemainingItemCount *int   `json:"remainingItemCount"`
}

type object struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name            string            `json:"name"`
		ResourceVersion string            `json:"resourceVersion"`
		Annotations     map[string]string `json:"annotations"`
	} `json:"metadata"`
	Code   int    `json:"code"`
	Reason string `json:"reason"`
}

type list struct {
	Kind     string   `json:"kind"`
	Metadata listMeta `json:"metadata"`
	Items    []object `json:"items"`
	Code     int      `json:"code"`
	Reason   string   `json:"reason"`
}

func get(t *testing.T, url string) (int, list) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var l list
	if err := json.NewDecoder(resp.Body).Decode(&l); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode, l
}

func names(l list) string {
	var out []string
	for _, it := range l.Items {
		out = append(out, it.Metadata.Name)
	}
	return strings.Join(out, ",")
}

// API rule: all pages of a paginated LIST come from the snapshot of the
// first one, whatever is written in between; every page carries that
// snapshot's resourceVersion.
func TestListPagination(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	for _, n := range []string{"e", "a", "d", "b", "c"} {
		must(t)(s.Create(pods, pod("ns", n, "0")))
	}
	must(t)(s.Create(pods, pod("other", "x", "0")))
	base := s.URL() + "/api/v1/namespaces/ns/pods?limit=2"
	code, p1 := get(t, base)
	if code != 200 || names(p1) != "a,b" || p1.Metadata.Continue == "" || *p1.Metadata.RemainingItemCount != 3 {
		t.Fatalf("page 1: %d %+v", code, p1)
	}
	must(t)(s.Delete(pods, "ns", "c"))
	must(t)(s.Create(pods, pod("ns", "bb", "0")))
	_, p2 := get(t, base+"&continue="+p1.Metadata.Continue)
	_, p3 := get(t, base+"&continue="+p2.Metadata.Continue)
	if names(p2) != "c,d" || names(p3) != "e" || p3.Metadata.Continue != "" {
		t.Fatalf("pages 2, 3: %q %q, want the first page's snapshot", names(p2), names(p3))
	}
	if p2.Metadata.ResourceVersion != p1.Metadata.ResourceVersion || p3.Metadata.ResourceVersion != p1.Metadata.ResourceVersion {
		t.Fatalf("page RVs %s %s %s differ", p1.Metadata.ResourceVersion, p2.Metadata.ResourceVersion, p3.Metadata.ResourceVersion)
	}
	if _, all := get(t, s.URL()+"/api/v1/pods"); names(all) != "a,b,bb,d,e,x" {
		t.Fatalf("all namespaces now: %q", names(all))
	}
}

// API rule (resourceVersion on LIST): unset = newest, "N" with a limit =
// exactly N (410 once compacted), "N" with NotOlderThan = newest, an RV
// the server has not reached = 504 ResourceVersionTooLarge.
func TestListResourceVersion(t *testing.T) {
	s := newServer(t, fakeapi.Options{StartRV: 100})
	must(t)(s.Create(pods, pod("ns", "a", "0"))) // 101
	must(t)(s.Create(pods, pod("ns", "b", "0"))) // 102
	must(t)(s.Update(pods, pod("ns", "a", "1"))) // 103
	must(t)(s.Delete(pods, "ns", "b"))           // 104
	for _, tc := range []struct {
		query, want string
		code        int
	}{
		{"", "a@103", 200},
		{"?resourceVersion=102&limit=10", "a@101,b@102", 200},
		{"?resourceVersion=101&resourceVersionMatch=Exact", "a@101", 200},
		{"?resourceVersion=101&resourceVersionMatch=NotOlderThan", "a@103", 200},
		{"?resourceVersion=0&limit=1", "a@103", 200},
		{"?resourceVersion=200", "", 504},
	} {
		code, l := get(t, s.URL()+"/api/v1/namespaces/ns/pods"+tc.query)
		var got []string
		for _, it := range l.Items {
			got = append(got, it.Metadata.Name+"@"+it.Metadata.ResourceVersion)
		}
		if code != tc.code || strings.Join(got, ",") != tc.want {
			t.Errorf("%q: %d %v, want %d %q", tc.query, code, got, tc.code, tc.want)
		}
	}
	s.Compact(1)
	if code, l := get(t, s.URL()+"/api/v1/namespaces/ns/pods?resourceVersion=102&limit=10"); code != 410 || l.Reason != "Expired" {
		t.Fatalf("exact LIST at a compacted RV: %d %s, want 410 Expired", code, l.Reason)
	}
}

func TestContinueTokenExpiresWithCompaction(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	for i := range 4 {
		must(t)(s.Create(pods, pod("ns", fmt.Sprint(i), "0")))
	}
	_, p1 := get(t, s.URL()+"/api/v1/pods?limit=2")
	must(t)(s.Update(pods, pod("ns", "0", "1")))
	s.Compact(0)
	if code, l := get(t, s.URL()+"/api/v1/pods?limit=2&continue="+p1.Metadata.Continue); code != 410 || l.Reason != "Expired" {
		t.Fatalf("continue after compaction: %d %+v, want 410 Expired", code, l)
	}
}

// watchEvents reads n events of a chunked watch.
func watchEvents(t *testing.T, url string, n int) []string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("watch: status %d", resp.StatusCode)
	}
	dec := json.NewDecoder(resp.Body)
	var out []string
	for len(out) < n {
		var ev struct {
			Type   string `json:"type"`
			Object object `json:"object"`
		}
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("after %v: %v", out, err)
		}
		s := ev.Type + " " + ev.Object.Metadata.Name + "@" + ev.Object.Metadata.ResourceVersion
		if ev.Object.Metadata.Annotations["k8s.io/initial-events-end"] == "true" {
			s += " end"
		}
		if ev.Type == "ERROR" {
			s = fmt.Sprintf("ERROR %d %s", ev.Object.Code, ev.Object.Reason)
		}
		out = append(out, s)
	}
	return out
}

func equal(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// API rule (resourceVersion on WATCH): "N" streams the changes strictly
// after N, with no synthetic ADDED; a DELETED event carries the revision
// of the delete.
func TestWatchFromResourceVersion(t *testing.T) {
	s := newServer(t, fakeapi.Options{StartRV: 10, CompactFrames: true})
	must(t)(s.Create(pods, pod("ns", "a", "0"))) // 11
	must(t)(s.Create(pods, pod("ns", "b", "0"))) // 12
	must(t)(s.Update(pods, pod("ns", "a", "1"))) // 13
	must(t)(s.Delete(pods, "ns", "b"))           // 14
	got := watchEvents(t, s.URL()+"/api/v1/namespaces/ns/pods?watch=true&resourceVersion=11", 3)
	equal(t, got, "ADDED b@12", "MODIFIED a@13", "DELETED b@14")
	got = watchEvents(t, s.URL()+"/api/v1/namespaces/ns/pods?watch=1", 1)
	equal(t, got, "ADDED a@13")
}

// A watch from a compacted resourceVersion gets an ERROR event 410
// Expired (the watch cache's "too old resource version").
func TestWatchGoneAfterCompaction(t *testing.T) {
	s := newServer(t, fakeapi.Options{StartRV: 10, HistoryLimit: 2})
	for i := range 4 {
		must(t)(s.Create(pods, pod("ns", fmt.Sprint(i), "0"))) // 11..14; 11 and 12 compacted
	}
	equal(t, watchEvents(t, s.URL()+"/api/v1/pods?watch=true&resourceVersion=11", 1), "ERROR 410 Expired")
	equal(t, watchEvents(t, s.URL()+"/api/v1/pods?watch=true&resourceVersion=12", 2), "ADDED 2@13", "ADDED 3@14")
}

func TestWatchListAndBookmarks(t *testing.T) {
	s := newServer(t, fakeapi.Options{StartRV: 10, BookmarkInterval: 5 * time.Millisecond})
	must(t)(s.Create(pods, pod("ns", "a", "0")))
	must(t)(s.Create(pods, pod("ns", "b", "0")))
	url := s.URL() + "/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
	equal(t, watchEvents(t, url, 3), "ADDED a@11", "ADDED b@12", "BOOKMARK @12 end")
	equal(t, watchEvents(t, s.URL()+"/api/v1/pods?watch=true&resourceVersion=12&allowWatchBookmarks=true", 1), "BOOKMARK @12")
	code, l := get(t, s.URL()+"/api/v1/pods?watch=true&sendInitialEvents=true")
	if code != 422 || l.Reason != "Invalid" {
		t.Fatalf("WatchList without bookmarks: %d %s, want 422 Invalid", code, l.Reason)
	}
}

func TestWatchTimeoutEndsCleanly(t *testing.T) {
	s := newServer(t, fakeapi.Options{MaxWatch: 20 * time.Millisecond})
	resp, err := http.Get(s.URL() + "/api/v1/pods?watch=true&timeoutSeconds=60")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v any
	if err := json.NewDecoder(resp.Body).Decode(&v); err == nil || err.Error() != "EOF" {
		t.Fatalf("decode after MaxWatch: %v, want a clean EOF", err)
	}
}

func TestWebSocketWatch(t *testing.T) {
	s := newServer(t, fakeapi.Options{StartRV: 10})
	must(t)(s.Create(pods, pod("ns", "a", "0")))
	url := "ws" + strings.TrimPrefix(s.URL(), "http") + "/api/v1/pods?watch=true&resourceVersion=10"
	_, resp, err := websocket.DefaultDialer.Dial(url, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("handshake without Origin: %v %v, want 403", err, resp)
	}
	resp.Body.Close()
	conn, _, err := websocket.DefaultDialer.Dial(url, http.Header{"Origin": {s.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	must(t)(s.Update(pods, pod("ns", "a", "1")))
	for _, want := range []string{`{"type":"ADDED","object":{`, `{"type":"MODIFIED","object":{`} {
		typ, msg, err := conn.ReadMessage()
		if err != nil || typ != websocket.TextMessage || !strings.HasPrefix(string(msg), want) {
			t.Fatalf("message %d %q %v, want a text message starting %s", typ, msg, err, want)
		}
	}
}

func TestInjectorFaults(t *testing.T) {
	inj := fakeapi.NewInjector(1, fakeapi.Rates{fakeapi.Status429: 1}, 0)
	s := newServer(t, fakeapi.Options{Faults: inj})
	resp, err := http.Get(s.URL() + "/api/v1/pods")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("status %d Retry-After %q, want 429 with Retry-After: 1", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	inj.SetEnabled(false)
	if code, _ := get(t, s.URL()+"/api/v1/pods"); code != 200 {
		t.Fatalf("disabled injector: status %d", code)
	}
	if c := inj.Counts(); c[fakeapi.Status429] != 1 || inj.Total() != 1 {
		t.Fatalf("counts %v, want one 429", c)
	}
}

// The StaleList fault answers a LIST at resourceVersion "0" with a
// snapshot between the compacted floor and the newest revision, items and
// list resourceVersion alike, as a lagging watch cache would; a LIST at ""
// (the newest state) is never stale.
func TestStaleListAnswersZeroFromAnOlderSnapshot(t *testing.T) {
	inj := fakeapi.NewInjector(7, fakeapi.Rates{fakeapi.StaleList: 1}, 0)
	s := newServer(t, fakeapi.Options{StartRV: 100, Faults: inj})
	must(t)(s.Create(pods, pod("ns", "a", "0"))) // 101
	must(t)(s.Create(pods, pod("ns", "b", "0"))) // 102
	must(t)(s.Update(pods, pod("ns", "a", "1"))) // 103
	must(t)(s.Delete(pods, "ns", "b"))           // 104
	snapshots := map[string]string{"100": "", "101": "a@101", "102": "a@101,b@102", "103": "a@103,b@102", "104": "a@103"}
	older := 0
	for range 20 {
		_, l := get(t, s.URL()+"/api/v1/namespaces/ns/pods?resourceVersion=0&limit=1")
		var got []string
		for _, it := range l.Items {
			got = append(got, it.Metadata.Name+"@"+it.Metadata.ResourceVersion)
		}
		want, ok := snapshots[l.Metadata.ResourceVersion]
		if !ok || strings.Join(got, ",") != want {
			t.Fatalf("stale list at %q: %v, want the snapshot %q", l.Metadata.ResourceVersion, got, want)
		}
		if l.Metadata.ResourceVersion != "104" {
			older++
		}
	}
	if older == 0 {
		t.Fatal("20 lists at 0 under StaleList, none older than the newest revision")
	}
	if _, l := get(t, s.URL()+"/api/v1/namespaces/ns/pods"); l.Metadata.ResourceVersion != "104" || names(l) != "a" {
		t.Fatalf("a list at the newest state: %+v", l)
	}
	if c := inj.Counts(); c[fakeapi.StaleList] != 20 {
		t.Fatalf("counts %v, want 20 stale lists", c)
	}
}

// A truncated watch frame leaves the client in the middle of a JSON value.
func TestTruncatedFrame(t *testing.T) {
	inj := fakeapi.NewInjector(1, fakeapi.Rates{fakeapi.Truncated: 1}, 0)
	s := newServer(t, fakeapi.Options{Faults: inj})
	must(t)(s.Create(pods, pod("ns", "a", "0")))
	resp, err := http.Get(s.URL() + "/api/v1/pods?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v any
	if err := json.NewDecoder(resp.Body).Decode(&v); err == nil || err.Error() == "EOF" {
		t.Fatalf("decode of a truncated frame: %v, want an unexpected EOF", err)
	}
}

func ExampleServer() {
	s := fakeapi.New(fakeapi.Options{Resources: []fakeapi.Resource{pods}, StartRV: 41})
	defer s.Close()
	_, _ = s.Create(pods, pod("default", "web", "1"))
	_, _ = s.Update(pods, pod("default", "web", "2"))
	fmt.Println(s.Objects(pods, "default"))
	resp, err := http.Get(s.URL() + "/api/v1/namespaces/default/pods")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var l list
	_ = json.NewDecoder(resp.Body).Decode(&l)
	fmt.Println(l.Kind, l.Metadata.ResourceVersion, l.Items[0].Metadata.Name)
	// Output:
	// map[default/web:43]
	// PodList 43 web
}
