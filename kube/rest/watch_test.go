package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// Watch events as kube-apiserver writes them.
const (
	rcEvAdded    = `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"11"},"data":{"k":"{\"}[\\"}}}`
	rcEvModified = `{"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"12"},"data":{"k":"é ✓"}}}`
	rcEvDeleted  = `{"type":"DELETED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"13"}}}`
	rcEvBookmark = `{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"14"}}}`
	rcEvInitEnd  = `{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"15","annotations":{"k8s.io/initial-events-end":"true"}}}}`
	rcEvExpired  = `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5 (10)","reason":"Expired","code":410}}`
	rcEvGoneOld  = `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old","reason":"Gone","code":410}}`
)

// rcStream is a watch body: what the handler writes and how.
type rcStream struct {
	body     string
	bytewise bool // one byte per write, each flushed: a chunk per byte
	hold     bool // keep the response open until the client goes away
}

func (s rcStream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(200)
	f := w.(http.Flusher)
	f.Flush()
	if s.bytewise {
		for i := 0; i < len(s.body); i++ {
			if _, err := w.Write([]byte{s.body[i]}); err != nil {
				return
			}
			f.Flush()
		}
	} else {
		io.WriteString(w, s.body)
		f.Flush()
	}
	if s.hold {
		<-r.Context().Done()
	}
}

// rcWatch opens a watch of ConfigMaps on a server running h.
func rcWatch(t *testing.T, h http.Handler, opts WatchOptions) *Watcher[*api.ConfigMap] {
	t.Helper()
	c := rcClient(t, rcServer(t, h).URL, nil)
	w, err := rcConfigMaps(c).Watch(context.Background(), opts)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// rcNextResult is one Next outcome, for comparisons.
func rcNextResult(ev WatchEvent[*api.ConfigMap], err error) string {
	switch {
	case err != nil:
		return "err"
	case ev.Err != nil:
		return fmt.Sprintf("%s %d %s", ev.Type, ev.Err.Status.Code, ev.Err.Status.Reason)
	}
	m := ev.Object.GetObjectMeta()
	return fmt.Sprintf("%s %s@%s", ev.Type, m.Name, m.ResourceVersion)
}

// rcDrain reads events until an error and returns their summaries.
func rcDrain(t *testing.T, w *Watcher[*api.ConfigMap]) ([]string, error) {
	t.Helper()
	var got []string
	for i := 0; i < 100; i++ {
		ev, err := w.Next()
		if err != nil {
			return got, err
		}
		got = append(got, rcNextResult(ev, nil))
	}
	t.Fatal("no end after 100 events")
	return nil, nil
}

// TestWatchChunkBoundaries: events are found by parsing, not by newlines or
// chunk boundaries: JSON objects written back to back, whatever the
// chunking (the apiserver's watch framing is JSON-self-delimiting).
func TestWatchChunkBoundaries(t *testing.T) {
	events := []string{rcEvAdded, rcEvModified, rcEvBookmark, rcEvDeleted}
	want := "[ADDED a@11 MODIFIED a@12 BOOKMARK @14 DELETED a@13]"
	bodies := map[string]rcStream{
		"back to back, one write":    {body: strings.Join(events, "")},
		"back to back, byte by byte": {body: strings.Join(events, ""), bytewise: true},
		"newline separated":          {body: strings.Join(events, "\n") + "\n"},
		"blank space around":         {body: " \r\n\t" + strings.Join(events, "\n\n  ") + " \n", bytewise: true},
	}
	for name, s := range bodies {
		t.Run(name, func(t *testing.T) {
			rcNoLeaks(t)
			w := rcWatch(t, s, WatchOptions{})
			var got []string
			var sizes []int
			for {
				ev, err := w.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("after %v: %v", got, err)
				}
				got = append(got, rcNextResult(ev, nil))
				sizes = append(sizes, ev.Size)
			}
			if fmt.Sprint(got) != want {
				t.Fatalf("events %v, want %s", got, want)
			}
			for i, e := range events {
				if sizes[i] != len(e) {
					t.Fatalf("event %d size %d, want %d", i, sizes[i], len(e))
				}
			}
		})
	}
}

// TestWatchEventKinds: ERROR events carry the Status as an error with the
// usual predicates (410 Expired, or Gone from older servers: the
// resourceVersion is too old, relist); the bookmark that ends a WatchList's
// initial events is recognised by its annotation.
func TestWatchEventKinds(t *testing.T) {
	rcNoLeaks(t)
	w := rcWatch(t, rcStream{body: rcEvAdded + rcEvInitEnd + rcEvBookmark + rcEvExpired + rcEvGoneOld}, WatchOptions{})
	tests := []struct {
		want    string
		initEnd bool
	}{
		{"ADDED a@11", false},
		{"BOOKMARK @15", true},
		{"BOOKMARK @14", false},
		{"ERROR 410 Expired", false},
		{"ERROR 410 Gone", false},
	}
	for _, tc := range tests {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("want %s: %v", tc.want, err)
		}
		if got := rcNextResult(ev, nil); got != tc.want {
			t.Fatalf("event %s, want %s", got, tc.want)
		}
		if ev.Type != Error && ev.IsInitialEventsEnd() != tc.initEnd {
			t.Fatalf("%s: IsInitialEventsEnd = %v", tc.want, !tc.initEnd)
		}
		if ev.Type == Error {
			if !IsGone(ev.Err) || ev.Object != nil || ev.Err.Verb != "WATCH" || ev.Err.Path != "/api/v1/namespaces/ns1/configmaps" {
				t.Fatalf("ERROR event: %+v", ev)
			}
		}
	}
	if _, err := w.Next(); err != io.EOF {
		t.Fatalf("end: %v, want io.EOF", err)
	}
	added := WatchEvent[*api.ConfigMap]{Type: Added, Object: &api.ConfigMap{ObjectMeta: api.ObjectMeta{
		Annotations: map[string]string{InitialEventsEndAnnotation: "true"}}}}
	if added.IsInitialEventsEnd() {
		t.Fatal("an ADDED event with the annotation taken for the end of the initial events")
	}
}

// TestWatchStreamEnds: how a stream ends. A clean end between events is
// io.EOF (the server's timeoutSeconds); a stream cut inside an event is
// io.ErrUnexpectedEOF; bytes that are no watch event are ErrDecode.
func TestWatchStreamEnds(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		events int
		check  func(error) bool
	}{
		{"clean end", rcEvAdded + rcEvModified, 2, func(err error) bool { return err == io.EOF }},
		{"clean end after blank space", rcEvAdded + "\n \n", 1, func(err error) bool { return err == io.EOF }},
		{"empty stream", "", 0, func(err error) bool { return err == io.EOF }},
		{"cut inside an event", rcEvAdded + rcEvModified[:40], 1, rcIsTruncated},
		{"cut inside a string", rcEvAdded + `{"type":"ADDED","object":{"metadata":{"name":"ab`, 1, rcIsTruncated},
		{"cut before the last brace", rcEvAdded + rcEvModified[:len(rcEvModified)-1], 1, rcIsTruncated},
		{"garbage between events", rcEvAdded + "<html>proxy error</html>", 1, rcIsDecode},
		{"garbage inside an event", rcEvAdded + `{"type":"ADDED","object":{"metadata":x}}` + rcEvAdded, 1, rcIsDecode},
		{"unknown type", `{"type":"SURPRISE","object":{}}`, 0, rcIsDecode},
		{"no object", `{"type":"ADDED"}`, 0, rcIsDecode},
		{"object of the wrong shape", `{"type":"ADDED","object":{"metadata":{"name":7}}}`, 0, rcIsDecode},
		{"ERROR that is no Status", `{"type":"ERROR","object":{"code":"x"}}`, 0, rcIsDecode},
		{"array instead of event", `[` + rcEvAdded + `]`, 0, rcIsDecode},
	}
	for _, tc := range tests {
		for _, bytewise := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/bytewise=%v", tc.name, bytewise), func(t *testing.T) {
				rcNoLeaks(t)
				w := rcWatch(t, rcStream{body: tc.body, bytewise: bytewise}, WatchOptions{})
				got, err := rcDrain(t, w)
				if len(got) != tc.events || !tc.check(err) {
					t.Fatalf("events %v then %v", got, err)
				}
			})
		}
	}
}

func rcIsTruncated(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) && err != io.EOF
}

func rcIsDecode(err error) bool { return errors.Is(err, api.ErrDecode) }

// TestWatchCloseUnblocksNext: Close from another goroutine ends a Next that
// is waiting for bytes.
func TestWatchCloseUnblocksNext(t *testing.T) {
	for name, tr := range map[string]WatchTransport{"chunked": Chunked, "websocket": WebSocket} {
		t.Run(name, func(t *testing.T) {
			rcNoLeaks(t)
			var w *Watcher[*api.ConfigMap]
			if tr == Chunked {
				w = rcWatch(t, rcStream{hold: true}, WatchOptions{})
			} else {
				w = rcWatch(t, &rcWSServer{}, WatchOptions{Transport: WebSocket})
			}
			done := make(chan error, 1)
			go func() { _, err := w.Next(); done <- err }()
			if err := w.Close(); err != nil && tr == Chunked {
				t.Logf("Close: %v", err)
			}
			select {
			case err := <-done:
				if err == nil || err == io.EOF {
					t.Fatalf("Next after Close: %v, want an error that is not a clean end", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Next still blocked 10s after Close")
			}
			w.Close() // idempotent
		})
	}
}

// TestWatchContextCancel: cancelling the context the watch was opened with
// ends Next with the context's error.
func TestWatchContextCancel(t *testing.T) {
	rcNoLeaks(t)
	c := rcClient(t, rcServer(t, rcStream{body: rcEvAdded, hold: true}).URL, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := rcConfigMaps(c).Watch(ctx, WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Next(); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := w.Next(); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestWatchOpenFails: a refused watch is a StatusError; nothing is left
// open.
func TestWatchOpenFails(t *testing.T) {
	rcNoLeaks(t)
	sc := &rcScript{replies: []rcReply{{code: 403, body: rcStatus(403, "Forbidden", `configmaps is forbidden: User "u" cannot watch resource "configmaps"`)}}}
	c := rcClient(t, rcServer(t, sc).URL, nil)
	w, err := rcConfigMaps(c).Watch(context.Background(), WatchOptions{})
	if !IsForbidden(err) || w != nil || !strings.Contains(err.Error(), "cannot watch") {
		t.Fatalf("Watch = %v, %v", w, err)
	}
}

// rcWSServer serves watches over WebSocket like kube-apiserver: it refuses
// handshakes without an Origin header (403), then sends one event per text
// message and ends with a normal close.
type rcWSServer struct {
	events []string
	abrupt bool // end by dropping the connection, without a close message
	hold   bool // after the events, keep the connection open and silent
	mu     sync.Mutex
	header http.Header // of the handshake; guarded by mu
	query  string      // guarded by mu
}

func (s *rcWSServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.header, s.query = r.Header.Clone(), r.URL.RawQuery
	s.mu.Unlock()
	up := websocket.Upgrader{CheckOrigin: func(r *http.Request) bool { return r.Header.Get("Origin") != "" }}
	conn, err := up.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader answered 403
	}
	defer conn.Close()
	for _, e := range s.events {
		if err := conn.WriteMessage(websocket.TextMessage, []byte(e)); err != nil {
			return
		}
	}
	switch {
	case len(s.events) == 0 || s.hold:
		// Hold the stream until the client goes away.
	case s.abrupt:
		return
	default:
		conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
	}
	for {
		if _, _, err := conn.ReadMessage(); err != nil {
			return
		}
	}
}

// TestWebSocketWatch: the WebSocket transport decodes the same events, and
// its handshake carries Origin (kube-apiserver answers 403 without one),
// User-Agent, Authorization and the watch query.
func TestWebSocketWatch(t *testing.T) {
	rcNoLeaks(t)
	ws := &rcWSServer{events: []string{rcEvAdded, rcEvModified, rcEvInitEnd, rcEvExpired}}
	srv := rcServer(t, ws)
	c := rcClient(t, srv.URL, func(cfg *Config) { cfg.Credentials = StaticToken("ws-token"); cfg.UserAgent = "kcm/ws" })
	w, err := rcConfigMaps(c).Watch(context.Background(), WatchOptions{Transport: WebSocket,
		ListOptions: ListOptions{ResourceVersion: "10", AllowWatchBookmarks: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	got, err := rcDrain(t, w)
	if want := "[ADDED a@11 MODIFIED a@12 BOOKMARK @15 ERROR 410 Expired]"; fmt.Sprint(got) != want || err != io.EOF {
		t.Fatalf("events %v then %v, want %s then io.EOF", got, err, want)
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	checks := []struct{ what, got, want string }{
		{"Origin", ws.header.Get("Origin"), srv.URL},
		{"User-Agent", ws.header.Get("User-Agent"), "kcm/ws"},
		{"Authorization", ws.header.Get("Authorization"), "Bearer ws-token"},
		{"Accept", ws.header.Get("Accept"), "application/json"},
		{"query", ws.query, "allowWatchBookmarks=true&resourceVersion=10&watch=true"},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %q, want %q", ch.what, ch.got, ch.want)
		}
	}
}

// TestWebSocketErrorEvent: an ERROR event over WebSocket is a 410 like over
// chunked HTTP.
func TestWebSocketErrorEvent(t *testing.T) {
	rcNoLeaks(t)
	w := rcWatch(t, &rcWSServer{events: []string{rcEvExpired}}, WatchOptions{Transport: WebSocket})
	ev, err := w.Next()
	if err != nil || ev.Type != Error || !IsGone(ev.Err) {
		t.Fatalf("event %+v, %v", ev, err)
	}
}

// TestWebSocketHandshakeRefused: a refused handshake is a StatusError with
// the server's answer; a 401 invalidates the credentials.
func TestWebSocketHandshakeRefused(t *testing.T) {
	rcNoLeaks(t)
	sc := &rcScript{replies: []rcReply{
		{code: 403, body: rcStatus(403, "Forbidden", "websocket watches are not allowed here")},
		{code: 401, body: rcStatus(401, "Unauthorized", "Unauthorized")},
	}}
	creds := &rcCreds{prefix: "tok"}
	c := rcClient(t, rcServer(t, sc).URL, func(cfg *Config) { cfg.Credentials = creds })
	_, err := rcConfigMaps(c).Watch(context.Background(), WatchOptions{Transport: WebSocket})
	var se *StatusError
	if !IsForbidden(err) || !errors.As(err, &se) || se.Status.Message != "websocket watches are not allowed here" {
		t.Fatalf("err = %v, want the server's 403", err)
	}
	if _, err := rcConfigMaps(c).Watch(context.Background(), WatchOptions{Transport: WebSocket}); !IsUnauthorized(err) {
		t.Fatalf("err = %v, want Unauthorized", err)
	}
	if creds.invalidations() != 1 {
		t.Fatalf("Invalidate called %d times, want 1", creds.invalidations())
	}
	if got := sc.seen()[0].Header.Get("Origin"); got == "" {
		t.Fatal("handshake without Origin")
	}
}

// TestWebSocketEnds: a dropped connection is not a clean end; a silent one
// times out.
func TestWebSocketEnds(t *testing.T) {
	t.Run("dropped", func(t *testing.T) {
		rcNoLeaks(t)
		w := rcWatch(t, &rcWSServer{events: []string{rcEvAdded}, abrupt: true}, WatchOptions{Transport: WebSocket})
		got, err := rcDrain(t, w)
		if len(got) != 1 || err == nil || err == io.EOF {
			t.Fatalf("events %v then %v, want one event then an error that is not io.EOF", got, err)
		}
	})
	t.Run("idle", func(t *testing.T) {
		rcNoLeaks(t)
		clk := clock.NewFake(rcT0)
		c := rcClient(t, rcServer(t, &rcWSServer{events: []string{rcEvAdded}, hold: true}).URL, nil, WithClock(clk))
		w, err := rcConfigMaps(c).Watch(context.Background(), WatchOptions{Transport: WebSocket, IdleTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if n := clk.Waiters(); n != 0 {
			t.Fatalf("%d timers armed before the first Next, want 0: the idle timeout runs only while Next waits", n)
		}
		if ev, err := w.Next(); err != nil || ev.Type != Added {
			t.Fatalf("first event: %v %v", ev.Type, err)
		}
		if n := clk.Waiters(); n != 0 {
			t.Fatalf("%d timers armed between reads, want 0: the idle timeout runs only while Next waits", n)
		}
		done := make(chan error, 1)
		go func() { _, err := w.Next(); done <- err }()
		rcStepTo(t, clk, time.Minute, done)
		if err := <-done; !errors.Is(err, ErrIdleTimeout) {
			t.Fatalf("err = %v, want ErrIdleTimeout", err)
		}
	})
}

// TestWebSocketMetadataOnly: a metadata-only watch asks for
// PartialObjectMetadata over WebSocket too (kube-apiserver 1.34 sends full
// objects to a WebSocket watch without this Accept header).
func TestWebSocketMetadataOnly(t *testing.T) {
	rcNoLeaks(t)
	ws := &rcWSServer{events: []string{`{"type":"ADDED","object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a"}}}`}}
	c := rcClient(t, rcServer(t, ws).URL, nil)
	w, err := NewResources(c, ConfigMaps, decode.Raw()).MetadataOnly().Watch(context.Background(), WatchOptions{Transport: WebSocket})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if ev, err := w.Next(); err != nil || ev.Object.Name != "a" || ev.Object.Kind != "PartialObjectMetadata" {
		t.Fatalf("event %+v, %v", ev, err)
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if got := ws.header.Get("Accept"); got != acceptMetaObject {
		t.Fatalf("Accept %q, want %q", got, acceptMetaObject)
	}
}
