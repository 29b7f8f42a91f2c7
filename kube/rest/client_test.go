package rest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/rs/zerolog"
)

// TestClientNeverLeaksToken: the bearer token appears in no error and no
// log line, whatever goes wrong.
func TestClientNeverLeaksToken(t *testing.T) {
	rcNoLeaks(t)
	const token = "sekrit-7f3a9c"
	var logs bytes.Buffer
	var logMu sync.Mutex
	logger := zerolog.New(zerolog.SyncWriter(&rcLockedWriter{w: &logs, mu: &logMu})).Level(zerolog.DebugLevel)
	sc := &rcScript{replies: []rcReply{
		{code: 401, body: rcStatus(401, "Unauthorized", "Unauthorized")},
		{code: 500, body: rcStatus(500, "InternalError", "boom")},
	}}
	srv := rcServer(t, sc)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	for _, host := range []string{srv.URL, closed.URL} {
		c := rcClient(t, host, func(cfg *Config) { cfg.Credentials = StaticToken(token) }, WithLogger(logger))
		_, err := c.RawGet(context.Background(), "/api")
		if err == nil {
			t.Fatalf("%s: RawGet succeeded", host)
		}
		for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
			if strings.Contains(s, token) {
				t.Fatalf("error shows the token: %s", s)
			}
		}
	}
	if got := sc.seen(); len(got) == 0 || got[0].Header.Get("Authorization") != "Bearer "+token {
		t.Fatalf("token not sent: %v", got)
	}
	logMu.Lock()
	defer logMu.Unlock()
	if !strings.Contains(logs.String(), "retrying request") {
		t.Fatalf("no retry logged; the check below would be empty: %q", logs.String())
	}
	if strings.Contains(logs.String(), token) {
		t.Fatalf("logs show the token: %s", logs.String())
	}
}

type rcLockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

// TestClientHeaders: every request carries the User-Agent and
// Authorization; writes carry Content-Type.
func TestClientHeaders(t *testing.T) {
	rcNoLeaks(t)
	sc := &rcScript{replies: []rcReply{{code: 200, body: rcCM}}}
	srv := rcServer(t, sc)
	c := rcClient(t, srv.URL, func(cfg *Config) { cfg.Credentials = StaticToken("abc") })
	if c.UserAgent() != DefaultUserAgent || c.Host() != srv.URL {
		t.Fatalf("UserAgent %q, Host %q", c.UserAgent(), c.Host())
	}
	custom := rcClient(t, srv.URL, func(cfg *Config) { cfg.UserAgent = "kcm/test"; cfg.Credentials = &rcCreds{prefix: "u"} })
	ctx := context.Background()
	if _, err := rcConfigMaps(c).Get(ctx, "cm1"); err != nil {
		t.Fatal(err)
	}
	if _, err := rcConfigMaps(custom).Update(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm1"}}); err != nil {
		t.Fatal(err)
	}
	seen := sc.seen()
	checks := []struct{ header, got, want string }{
		{"User-Agent", seen[0].Header.Get("User-Agent"), DefaultUserAgent},
		{"Authorization", seen[0].Header.Get("Authorization"), "Bearer abc"},
		{"Accept", seen[0].Header.Get("Accept"), "application/json"},
		{"User-Agent", seen[1].Header.Get("User-Agent"), "kcm/test"},
		{"Authorization", seen[1].Header.Get("Authorization"), "Bearer u0"},
		{"Content-Type", seen[1].Header.Get("Content-Type"), "application/json"},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %q, want %q", ch.header, ch.got, ch.want)
		}
	}
}

// TestClientWithOptions: a derived client shares the transport (one
// connection pool per cluster) but has its own User-Agent and limiter, as
// kube-controller-manager gives each controller its own client.
func TestClientWithOptions(t *testing.T) {
	rcNoLeaks(t)
	sc := &rcScript{replies: []rcReply{{code: 200, body: `{}`}}}
	srv := rcServer(t, sc)
	base := rcClient(t, srv.URL, func(cfg *Config) { cfg.QPS, cfg.Burst = 100, 100; cfg.Credentials = StaticToken("t") })
	ctrl := base.WithOptions("kcm/replicaset-controller", 0.001, 1)
	same := base.WithOptions("", -1, 0)
	if rcTransport(ctrl) != rcTransport(base) || rcTransport(same) != rcTransport(base) {
		t.Fatal("derived clients do not share the transport")
	}
	if ctrl.limiter == base.limiter || ctrl.limiter == nil || same.limiter != nil {
		t.Fatalf("limiters: base %p, ctrl %p, same %p", base.limiter, ctrl.limiter, same.limiter)
	}
	if ctrl.UserAgent() != "kcm/replicaset-controller" || same.UserAgent() != DefaultUserAgent || base.UserAgent() != DefaultUserAgent {
		t.Fatalf("user agents %q %q %q", base.UserAgent(), ctrl.UserAgent(), same.UserAgent())
	}
	ctx := context.Background()
	for _, c := range []*Client{base, ctrl, same} {
		if _, err := c.RawGet(ctx, "/version"); err != nil {
			t.Fatal(err)
		}
	}
	// ctrl's burst of 1 is spent; base's limiter is not affected.
	if tok := ctrl.limiter.Tokens(); tok >= 1 {
		t.Fatalf("ctrl limiter has %v tokens after one request with burst 1", tok)
	}
	if tok := base.limiter.Tokens(); tok < 98 {
		t.Fatalf("base limiter has %v tokens after one request, want ~99", tok)
	}
	seen := sc.seen()
	for i, want := range []string{DefaultUserAgent, "kcm/replicaset-controller", DefaultUserAgent} {
		if got := seen[i].Header.Get("User-Agent"); got != want {
			t.Errorf("request %d User-Agent %q, want %q", i, got, want)
		}
		if got := seen[i].Header.Get("Authorization"); got != "Bearer t" {
			t.Errorf("request %d Authorization %q", i, got)
		}
	}
}

// TestNewLimiter: kube-controller-manager's --kube-api-qps 20 and
// --kube-api-burst 30 are the defaults; negative QPS means unlimited.
func TestNewLimiter(t *testing.T) {
	tests := []struct {
		qps       float32
		burst     int
		wantNil   bool
		wantQPS   float64
		wantBurst int
	}{
		{0, 0, false, DefaultQPS, DefaultBurst},
		{0, 5, false, DefaultQPS, DefaultBurst},
		{-1, 10, true, 0, 0},
		{5, 0, false, 5, 6},
		{5, 2, false, 5, 2},
		{0.5, 0, false, 0.5, 1},
	}
	for _, tc := range tests {
		l := newLimiter(tc.qps, tc.burst)
		if (l == nil) != tc.wantNil {
			t.Fatalf("newLimiter(%v, %d) = %v", tc.qps, tc.burst, l)
		}
		if l != nil && (float64(l.Limit()) != tc.wantQPS || l.Burst() != tc.wantBurst) {
			t.Errorf("newLimiter(%v, %d): qps %v burst %d, want %v %d", tc.qps, tc.burst, l.Limit(), l.Burst(), tc.wantQPS, tc.wantBurst)
		}
		c, err := NewClient(&Config{Host: "https://example.invalid", QPS: tc.qps, Burst: tc.burst})
		if err != nil {
			t.Fatal(err)
		}
		qps, burst, ok := c.RateLimit()
		if ok == tc.wantNil || qps != tc.wantQPS || burst != tc.wantBurst {
			t.Errorf("RateLimit of a client with qps %v burst %d = %v %d %v", tc.qps, tc.burst, qps, burst, ok)
		}
	}
}

// TestClientRateLimit: the burst goes through at once, then requests wait
// for tokens on the client's clock.
func TestClientRateLimit(t *testing.T) {
	rcNoLeaks(t)
	sc := &rcScript{replies: []rcReply{{code: 200, body: `{}`}}}
	clk := clock.NewFake(rcT0)
	c := rcClient(t, rcServer(t, sc).URL, func(cfg *Config) { cfg.QPS, cfg.Burst = 0.1, 2 }, WithClock(clk)) // one token per 10 s
	ctx := context.Background()
	for i := range 2 {
		if _, err := c.RawGet(ctx, "/version"); err != nil {
			t.Fatalf("request %d of the burst: %v", i, err)
		}
	}
	if clk.Waiters() != 0 {
		t.Fatal("the burst waited")
	}
	done := make(chan error, 1)
	go func() { _, err := c.RawGet(ctx, "/version"); done <- err }()
	// The next token comes in ~10 s (the limiter's float arithmetic makes
	// it 9.99999985 s): still waiting after 9 s, through after 10.
	rcStepTo(t, clk, 9*time.Second, done)
	if n := clk.Waiters(); n != 1 {
		t.Fatalf("%d timers armed after 9 s, want the limiter's", n)
	}
	clk.Step(time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := len(sc.seen()); n != 3 {
		t.Fatalf("server saw %d requests, want 3", n)
	}
	// A caller whose deadline is nearer than the next token fails at once,
	// without reaching the server, and leaves the token for the next one.
	short, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := c.RawGet(short, "/version"); err == nil || !strings.Contains(err.Error(), "rate limiter") {
		t.Fatalf("err = %v, want a rate limiter error", err)
	}
	if n := len(sc.seen()); n != 3 {
		t.Fatalf("server saw %d requests, want 3", n)
	}
	if d := c.limiter.ReserveN(clk.Now(), 1).DelayFrom(clk.Now()); d < 9*time.Second || d > 10*time.Second {
		t.Fatalf("next token in %v, want 10s: the refused caller kept its reservation", d)
	}
}

// TestClientTimeout: Config.Timeout bounds a request.
func TestClientTimeout(t *testing.T) {
	rcNoLeaks(t)
	srv := rcServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	c := rcClient(t, srv.URL, func(cfg *Config) { cfg.Timeout = 50 * time.Millisecond })
	if _, err := c.RawGet(context.Background(), "/version"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
}

// TestNewClientRejects: a config without a usable server address.
func TestNewClientRejects(t *testing.T) {
	for _, host := range []string{"", "ftp://x", "127.0.0.1:6443", "https://"} {
		if _, err := NewClient(&Config{Host: host}); err == nil {
			t.Errorf("NewClient(%q) succeeded", host)
		}
	}
	if _, err := NewClient(nil); err == nil {
		t.Error("NewClient(nil) succeeded")
	}
	if _, err := NewClient(&Config{Host: "https://h", TLS: TLSConfig{CAData: []byte("not pem")}}); err == nil {
		t.Error("NewClient with a CA that is no PEM succeeded")
	}
}

// TestClientBasePath: a server URL with a path (an API proxy) prefixes
// every request path.
func TestClientBasePath(t *testing.T) {
	rcNoLeaks(t)
	sc := &rcScript{replies: []rcReply{{code: 200, body: `{}`}}}
	c := rcClient(t, rcServer(t, sc).URL+"/k8s/clusters/c-1/", nil)
	if _, err := c.RawGet(context.Background(), "/version"); err != nil {
		t.Fatal(err)
	}
	if got := sc.seen()[0].Path; got != "/k8s/clusters/c-1/version" {
		t.Fatalf("path %q", got)
	}
}

// TestClientPathEscaping: a name that needs escaping reaches the server as
// that name, escaped once. (Names of some kinds, ClusterRoles for instance,
// are path segments that may hold ',' or ' '.)
func TestClientPathEscaping(t *testing.T) {
	rcNoLeaks(t)
	sc := &rcScript{replies: []rcReply{{code: 200, body: `{"metadata":{"name":"a,b c"}}`}}}
	c := rcClient(t, rcServer(t, sc).URL, nil)
	roles := Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles", Kind: "ClusterRole"}
	o, err := NewResources(c, roles, decode.Raw()).Get(context.Background(), "a,b c")
	if err != nil || o.Name != "a,b c" {
		t.Fatalf("Get = %v, %v", o, err)
	}
	got := sc.seen()[0]
	if got.Path != "/apis/rbac.authorization.k8s.io/v1/clusterroles/a,b c" {
		t.Errorf("server decoded path %q", got.Path)
	}
	if got.EscapedPath != "/apis/rbac.authorization.k8s.io/v1/clusterroles/a%2Cb%20c" {
		t.Errorf("path on the wire %q", got.EscapedPath)
	}
}
