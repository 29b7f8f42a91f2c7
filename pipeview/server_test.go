package pipeview

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/tap"
)

// serveHub runs h (Run and an HTTP server with the view installed) until
// the test ends.
func serveHub(t *testing.T, h *Hub) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	h.Install(mux)
	srv := httptest.NewServer(mux)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = h.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done // Run disconnects every browser before returning
		srv.Close()
	})
	return srv
}

func dial(t *testing.T, srv *httptest.Server, header http.Header) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	return websocket.DefaultDialer.DialContext(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+Path+"/ws", header)
}

func readUpdate(t *testing.T, c *websocket.Conn) decodedUpdate {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(patience))
	_, data, err := c.ReadMessage()
	if err != nil {
		t.Fatalf("reading an update: %v", err)
	}
	var u decodedUpdate
	if err := json.Unmarshal(data, &u); err != nil {
		t.Fatalf("update is not JSON: %v", err)
	}
	return u
}

// The page, its modules and its socket are served at /debug/pipeline with
// headers that keep the page to its own origin; only GET is answered.
func TestServesThePageAndItsFiles(t *testing.T) {
	srv := serveHub(t, New(Options{}))
	for _, tc := range []struct {
		path, ctype, contains string
	}{
		{Path, "text/html", `<script type="module" src="/debug/pipeline/static/app.js">`},
		{Path + "/static/app.js", "javascript", "new WebSocket("},
		{Path + "/static/diagram.js", "javascript", "export class Diagram"},
		{Path + "/static/trail.js", "javascript", "export function renderTrail"},
		{Path + "/static/dom.js", "javascript", "textContent"},
		{Path + "/static/style.css", "text/css", ".diagram"},
	} {
		resp, err := http.Get(srv.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Type"), tc.ctype) || !strings.Contains(string(body), tc.contains) {
			t.Errorf("GET %s: %d %s, body contains %q: %v", tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), tc.contains, strings.Contains(string(body), tc.contains))
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || resp.Header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("GET %s: CSP %q, X-Frame-Options %q", tc.path, csp, resp.Header.Get("X-Frame-Options"))
		}
	}
	resp, err := http.Post(srv.URL+Path, "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST %s: %d, want 405", Path, resp.StatusCode)
	}
}

// kcm dev serves the view on plain HTTP on 127.0.0.1: with LoopbackOnly a
// request naming another host (a DNS-rebinding page) is refused, and the
// socket refuses a handshake from another origin in every mode.
func TestRefusesForeignHostsAndOrigins(t *testing.T) {
	srv := serveHub(t, New(Options{LoopbackOnly: true}))
	for host, want := range map[string]int{"evil.example": 403, "evil.example:80": 403, "localhost:1": 200, "127.0.0.1": 200, "[::1]:8080": 200, "127.9.9.9": 200} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+Path, nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
	_, resp, err := dial(t, srv, http.Header{"Origin": {"https://evil.example"}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign origin: err %v, response %v; want a 403", err, resp)
	}
	c, _, err := dial(t, srv, http.Header{"Origin": {srv.URL}})
	if err != nil {
		t.Fatalf("own origin refused: %v", err)
	}
	c.Close()
}

// Over a real WebSocket: a browser gets an update at once when it
// connects, then one per period; following an object brings its trail; a
// bad command is reported back, not fatal.
func TestWebSocketUpdatesAndFollow(t *testing.T) {
	clk := clock.NewFake(t0)
	h := newHub(clk, Options{})
	srv := serveHub(t, h)
	c, _, err := dial(t, srv, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	first := readUpdate(t, c)
	if first.View.Now != t0.UnixMilli() || first.Follow != nil {
		t.Fatalf("first update %+v", first)
	}
	p := newPipeline(h.Tap())
	p.socket.Emit(tap.Event{Op: "ADDED", Resource: "pods", Key: "ns/a", RV: "1"})
	if err := c.WriteJSON(map[string]any{"follow": target{Resource: "pods", Key: "ns/a"}, "select": "socket:pods"}); err != nil {
		t.Fatal(err)
	}
	u := readUpdate(t, c) // sent at once for the command
	if u.Follow == nil || len(u.Follow.Steps) != 1 || u.Follow.Steps[0].Op != "ADDED" || u.Selected != "socket:pods" {
		t.Fatalf("update after follow: %+v", u)
	}
	if err := c.WriteMessage(websocket.TextMessage, []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	if u := readUpdate(t, c); !strings.Contains(u.Problem, "bad command") || u.Follow == nil {
		t.Fatalf("update after a bad command: problem %q, follow %v", u.Problem, u.Follow)
	}
	if err := c.WriteJSON(map[string]any{"select": "odd \x01 \u2028 \"stage\""}); err != nil {
		t.Fatal(err)
	}
	if u := readUpdate(t, c); u.Selected != "odd \x01 \u2028 \"stage\"" {
		t.Fatalf("selected came back as %q", u.Selected)
	}
	if err := c.WriteJSON(map[string]any{"follow": nil}); err != nil {
		t.Fatal(err)
	}
	if u := readUpdate(t, c); u.Follow != nil {
		t.Fatalf("still following after follow:null: %+v", u.Follow)
	}
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	if err := clk.BlockUntilWaiters(ctx, 1); err != nil { // Run's period timer
		t.Fatal(err)
	}
	clk.Step(500 * time.Millisecond)
	if u := readUpdate(t, c); u.View.Now != t0.Add(500*time.Millisecond).UnixMilli() {
		t.Fatalf("periodic update at %d", u.View.Now)
	}
}

// Over a real socket: a browser that never reads is disconnected once an
// update cannot be written within WriteTimeout (its TCP buffers full),
// and all the while the pipeline's reports go on at full speed.
func TestARealBrowserThatNeverReadsIsDisconnected(t *testing.T) {
	h := New(Options{Period: 5 * time.Millisecond, WriteTimeout: 200 * time.Millisecond, Detail: 2000, History: 2000})
	srv := serveHub(t, h)
	c, _, err := dial(t, srv, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.WriteJSON(map[string]any{"select": "socket:pods"}); err != nil { // big updates fill the buffers sooner
		t.Fatal(err)
	}
	p := newPipeline(h.Tap())
	long := strings.Repeat("x", 200)
	waitFor(t, "the silent browser to be disconnected", func() bool {
		for i := range 2000 { // every report returns at once, reader or not
			p.socket.Emit(tap.Event{Op: "MODIFIED", Resource: "pods", Key: "ns/" + long, RV: long, UID: string(rune('a' + i%26))})
		}
		return h.connected() == 0
	})
}
