package rest

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"
)

// Unit tests of the request core against an in-process httptest server. The
// helpers of these tests start with "rc" so that they cannot collide with
// those of the package's other test files.

// rcFastRetry is a retry policy on the order of milliseconds, so that tests
// of retries do not sleep.
var rcFastRetry = RetryPolicy{MaxAttempts: 4, Initial: time.Millisecond, Max: 4 * time.Millisecond, MaxRetryAfter: 5 * time.Millisecond}

// rcAdvance moves clk forward a millisecond at a time whenever a timer is
// armed on it, until done is closed: the backoffs of a retrying request
// pass without waiting for real time, and clk.Since(start) adds them up.
func rcAdvance(clk *clock.Fake, done <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-done; cancel() }()
	for clk.BlockUntilWaiters(ctx, 1) == nil {
		clk.Step(time.Millisecond)
	}
}

// rcNoLeaks checks, after everything else the test registered has been
// cleaned up, that the test left no goroutine behind. It must be called
// first: cleanups run last-registered first.
func rcNoLeaks(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// rcServer starts an HTTP server for the test.
func rcServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

// rcClient returns a client for host with rate limiting off and
// rcFastRetry; edit adjusts the config first.
func rcClient(t *testing.T, host string, edit func(*Config), opts ...Option) *Client {
	t.Helper()
	cfg := &Config{Host: host, QPS: -1, Source: "unit test"}
	if edit != nil {
		edit(cfg)
	}
	c, err := NewClient(cfg, append([]Option{WithRetryPolicy(rcFastRetry)}, opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	t.Cleanup(rcTransport(c).CloseIdleConnections)
	return c
}

// rcTransport returns the HTTP transport under c's authentication layer.
func rcTransport(c *Client) *http.Transport {
	return c.hc.Transport.(*authTransport).next.(*http.Transport)
}

// rcReply is one scripted answer.
type rcReply struct {
	code   int
	body   string
	header map[string]string
}

// rcSeen is what the server saw of one request.
type rcSeen struct {
	Method, Path, EscapedPath, Query string
	Header                           http.Header
	Body                             string
}

// rcScript answers the n-th request with replies[n], repeating the last
// reply once the script runs out, and records every request.
type rcScript struct {
	replies []rcReply
	mu      sync.Mutex
	reqs    []rcSeen // guarded by mu
}

func (s *rcScript) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.reqs)
	s.reqs = append(s.reqs, rcSeen{Method: r.Method, Path: r.URL.Path, EscapedPath: r.URL.EscapedPath(),
		Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: string(body)})
	s.mu.Unlock()
	rep := s.replies[min(n, len(s.replies)-1)]
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(rep.code)
	io.WriteString(w, rep.body)
}

func (s *rcScript) seen() []rcSeen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]rcSeen(nil), s.reqs...)
}

// rcStatus is the body of a meta/v1 Status failure.
func rcStatus(code int, reason, msg string) string {
	return fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":%q,"reason":%q,"code":%d}`, msg, reason, code)
}

const rcCM = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","namespace":"ns1","resourceVersion":"7"},"data":{"k":"v"}}`

// rcCreds counts calls; Invalidate hands out a new token generation.
type rcCreds struct {
	prefix string
	fail   error // returned by Authorization when set
	mu     sync.Mutex
	gen    int // current token is prefix + gen; guarded by mu
	inval  int // Invalidate calls; guarded by mu
	calls  int // Authorization calls; guarded by mu
}

func (c *rcCreds) Authorization(context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if c.fail != nil {
		return "", c.fail
	}
	return fmt.Sprintf("Bearer %s%d", c.prefix, c.gen), nil
}

func (c *rcCreds) ClientCertificate(context.Context) (*tls.Certificate, error) { return nil, nil }

func (c *rcCreds) Invalidate() {
	c.mu.Lock()
	c.gen++
	c.inval++
	c.mu.Unlock()
}

func (c *rcCreds) invalidations() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inval
}

func rcConfigMaps(c *Client) *Resources[*api.ConfigMap] {
	return NewResources(c, ConfigMaps, api.Typed[api.ConfigMap]()).InNamespace("ns1")
}

// TestClientRetries: which failures are retried and how often. Reads are
// retried on 5xx (except 501) and 429; writes only on 429, which the
// apiserver's max-in-flight filter answers before doing anything (API
// concepts, "Retry-After"), so a retry cannot act twice.
func TestClientRetries(t *testing.T) {
	get := func(ctx context.Context, c *Client) error { _, err := c.RawGet(ctx, "/version"); return err }
	post := func(ctx context.Context, c *Client) error {
		_, err := rcConfigMaps(c).Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm1"}})
		return err
	}
	put := func(ctx context.Context, c *Client) error {
		_, err := rcConfigMaps(c).Update(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm1", ResourceVersion: "6"}})
		return err
	}
	patch := func(ctx context.Context, c *Client) error {
		_, err := rcConfigMaps(c).Patch(ctx, "cm1", MergePatch, []byte(`{}`), PatchOptions{})
		return err
	}
	del := func(ctx context.Context, c *Client) error {
		return rcConfigMaps(c).Delete(ctx, "cm1", DeleteOptions{})
	}
	delPrecond := func(ctx context.Context, c *Client) error {
		uid := "u1"
		return rcConfigMaps(c).Delete(ctx, "cm1", DeleteOptions{Preconditions: &Preconditions{UID: &uid}})
	}
	ok := rcReply{code: 200, body: rcCM}
	s503 := rcReply{code: 503, body: rcStatus(503, "ServiceUnavailable", "apiserver is shutting down")}
	s500 := rcReply{code: 500, body: rcStatus(500, "InternalError", "etcd leader changed")}
	s429 := rcReply{code: 429, body: rcStatus(429, "TooManyRequests", "too many requests, please try again later"),
		header: map[string]string{"Retry-After": "1"}}
	tests := []struct {
		name    string
		op      func(context.Context, *Client) error
		replies []rcReply
		want    int                     // requests the server sees
		check   func(*testing.T, error) // nil: success expected
	}{
		{"GET 503 then ok", get, []rcReply{s503, ok}, 2, nil},
		{"GET 500 until MaxAttempts", get, []rcReply{s500}, rcFastRetry.MaxAttempts, func(t *testing.T, err error) {
			var se *StatusError
			if !errors.As(err, &se) || se.Status.Code != 500 || se.Status.Message != "etcd leader changed" {
				t.Fatalf("err = %v, want the server's 500 Status", err)
			}
			if !errors.Is(err, ErrServerError) {
				t.Fatalf("errors.Is(%v, ErrServerError) = false", err)
			}
		}},
		{"GET 501 not retried", get, []rcReply{{code: 501, body: rcStatus(501, "", "no")}}, 1, rcWantCode(501)},
		{"GET 404 not retried", get, []rcReply{{code: 404, body: rcStatus(404, "NotFound", "gone fishing")}}, 1, rcWantCode(404)},
		{"GET 429 then ok", get, []rcReply{s429, ok}, 2, nil},
		{"POST 503 not retried", post, []rcReply{s503, ok}, 1, rcWantCode(503)},
		{"POST 500 not retried", post, []rcReply{s500, ok}, 1, rcWantCode(500)},
		{"POST 429 retried after Retry-After", post, []rcReply{s429, {code: 201, body: rcCM}}, 2, nil},
		{"POST 429 until MaxAttempts", post, []rcReply{s429}, rcFastRetry.MaxAttempts, func(t *testing.T, err error) {
			if !IsTooManyRequests(err) {
				t.Fatalf("err = %v, want TooManyRequests", err)
			}
		}},
		{"PUT 503 not retried", put, []rcReply{s503, ok}, 1, rcWantCode(503)},
		{"PUT 409 not retried", put, []rcReply{{code: 409, body: rcStatus(409, "Conflict", "stale")}}, 1, func(t *testing.T, err error) {
			if !IsConflict(err) {
				t.Fatalf("err = %v, want Conflict", err)
			}
		}},
		{"PATCH 503 not retried", patch, []rcReply{s503, ok}, 1, rcWantCode(503)},
		{"DELETE 503 retried", del, []rcReply{s503, ok}, 2, nil},
		{"DELETE with preconditions 503 not retried", delPrecond, []rcReply{s503, ok}, 1, rcWantCode(503)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rcNoLeaks(t)
			sc := &rcScript{replies: tc.replies}
			clk := clock.NewFake(rcT0)
			c := rcClient(t, rcServer(t, sc).URL, nil, WithClock(clk))
			done := make(chan struct{})
			go rcAdvance(clk, done)
			err := tc.op(context.Background(), c)
			close(done)
			// Retry-After: 1 must be capped by MaxRetryAfter (5 ms).
			waited, most := clk.Since(rcT0), time.Duration(tc.want-1)*rcFastRetry.MaxRetryAfter
			if waited > most {
				t.Errorf("backed off %v in all, more than %v: Retry-After not capped by MaxRetryAfter", waited, most)
			}
			if tc.want > 1 && waited == 0 {
				t.Error("retried without backing off on the client's clock")
			}
			if tc.check == nil && err != nil {
				t.Fatalf("err = %v, want success", err)
			}
			if tc.check != nil {
				if err == nil {
					t.Fatal("err = nil, want an error")
				}
				tc.check(t, err)
			}
			if got := len(sc.seen()); got != tc.want {
				t.Fatalf("server saw %d requests, want %d", got, tc.want)
			}
		})
	}
}

func rcWantCode(code int32) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var se *StatusError
		if !errors.As(err, &se) || se.Status.Code != code {
			t.Fatalf("err = %v, want a StatusError with code %d", err, code)
		}
	}
}

// TestClientBackoff: exponential from Initial, capped at Max, jittered into
// [d/2, d]; Retry-After is capped by MaxRetryAfter.
func TestClientBackoff(t *testing.T) {
	c := &Client{retry: RetryPolicy{MaxAttempts: 100, Initial: 100 * time.Millisecond, Max: time.Second, MaxRetryAfter: 3 * time.Second}}
	want := c.retry.Initial
	for attempt := 1; attempt <= 100; attempt++ { // far past where the shift overflows
		if attempt > 1 {
			want = min(2*want, c.retry.Max)
		}
		for range 5 {
			if d := c.backoff(attempt); d < want/2 || d > want {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", attempt, d, want/2, want)
			}
		}
	}
	se := &StatusError{Status: Status{Code: 429}, RetryAfter: time.Hour}
	if d, ok := c.shouldRetry(&request{verb: "POST"}, se, 1); !ok || d != 3*time.Second {
		t.Fatalf("shouldRetry(429, Retry-After 1h) = %v, %v; want 3s (MaxRetryAfter), true", d, ok)
	}
}

// TestClientUnauthorizedRefreshesCredentials: a 401 invalidates the
// credentials and the request is tried once more with fresh ones (a rotated
// service-account token, an expired exec-plugin token).
func TestClientUnauthorizedRefreshesCredentials(t *testing.T) {
	rcNoLeaks(t)
	var auths []string
	var mu sync.Mutex
	srv := rcServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer fresh1" {
			w.WriteHeader(401)
			io.WriteString(w, rcStatus(401, "Unauthorized", "Unauthorized"))
			return
		}
		io.WriteString(w, `{"gitVersion":"v1.34.4"}`)
	}))
	creds := &rcCreds{prefix: "fresh"}
	c := rcClient(t, srv.URL, func(cfg *Config) { cfg.Credentials = creds })
	v, err := c.ServerVersion(context.Background())
	if err != nil || v != "v1.34.4" {
		t.Fatalf("ServerVersion = %q, %v", v, err)
	}
	if got := creds.invalidations(); got != 1 {
		t.Fatalf("Invalidate called %d times, want 1", got)
	}
	if want := []string{"Bearer fresh0", "Bearer fresh1"}; fmt.Sprint(auths) != fmt.Sprint(want) {
		t.Fatalf("Authorization headers %q, want %q", auths, want)
	}
}

// TestClientUnauthorizedGivesUp: fresh credentials that are still refused
// are not retried again (no 401 loop), even for a read.
func TestClientUnauthorizedGivesUp(t *testing.T) {
	rcNoLeaks(t)
	sc := &rcScript{replies: []rcReply{{code: 401, body: rcStatus(401, "Unauthorized", "Unauthorized")}}}
	creds := &rcCreds{prefix: "t"}
	c := rcClient(t, rcServer(t, sc).URL, func(cfg *Config) { cfg.Credentials = creds })
	_, err := c.RawGet(context.Background(), "/api")
	if !IsUnauthorized(err) {
		t.Fatalf("err = %v, want Unauthorized", err)
	}
	if n := len(sc.seen()); n != 2 {
		t.Fatalf("server saw %d requests, want 2 (the first and one with fresh credentials)", n)
	}
	if got := creds.invalidations(); got != 2 {
		t.Fatalf("Invalidate called %d times, want 2 (once per 401)", got)
	}
}

// TestClientCredentialsError: when no credentials can be had (an exec
// plugin fails) nothing is sent and nothing is retried.
func TestClientCredentialsError(t *testing.T) {
	rcNoLeaks(t)
	sc := &rcScript{replies: []rcReply{{code: 200, body: `{}`}}}
	pluginErr := errors.New("exec plugin exited with status 1")
	creds := &rcCreds{fail: pluginErr}
	c := rcClient(t, rcServer(t, sc).URL, func(cfg *Config) { cfg.Credentials = creds })
	_, err := c.RawGet(context.Background(), "/version")
	if !errors.Is(err, pluginErr) {
		t.Fatalf("err = %v, want the plugin's error", err)
	}
	creds.mu.Lock()
	calls := creds.calls
	creds.mu.Unlock()
	if calls != 1 {
		t.Fatalf("Authorization called %d times, want 1 (no retry)", calls)
	}
	if _, werr := rcConfigMaps(c).Watch(context.Background(), WatchOptions{Transport: WebSocket}); !errors.Is(werr, pluginErr) {
		t.Fatalf("WebSocket watch err = %v, want the plugin's error", werr)
	}
	if n := len(sc.seen()); n != 0 {
		t.Fatalf("server saw %d requests, want 0", n)
	}
}

// rcSignalWriter is a log sink that signals each written line.
type rcSignalWriter struct {
	lines chan string
}

func (w rcSignalWriter) Write(p []byte) (int, error) {
	select {
	case w.lines <- string(p):
	default:
	}
	return len(p), nil
}

// TestClientContextCanceledDuringBackoff: cancelling while the client waits
// between attempts ends the call at once with the context's error.
func TestClientContextCanceledDuringBackoff(t *testing.T) {
	rcNoLeaks(t)
	sc := &rcScript{replies: []rcReply{{code: 503, body: rcStatus(503, "ServiceUnavailable", "later")}}}
	logs := rcSignalWriter{lines: make(chan string, 1)}
	c := rcClient(t, rcServer(t, sc).URL, nil,
		WithRetryPolicy(RetryPolicy{MaxAttempts: 5, Initial: time.Hour, Max: time.Hour, MaxRetryAfter: time.Hour}),
		WithLogger(zerolog.New(logs).Level(zerolog.DebugLevel)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := c.RawGet(ctx, "/version"); done <- err }()
	select {
	case line := <-logs.lines: // logged just before the backoff wait
		if !strings.Contains(line, "retrying request") {
			t.Fatalf("unexpected log line %s", line)
		}
	case err := <-done:
		t.Fatalf("RawGet returned %v before backing off", err)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("RawGet still waiting 10s after cancel")
	}
	if n := len(sc.seen()); n != 1 {
		t.Fatalf("server saw %d requests, want 1", n)
	}
}

// rcCountingRT counts round trips and can fail the first few with a dial
// error before reaching the network.
type rcCountingRT struct {
	next       http.RoundTripper
	failDials  int32 // this many first round trips fail as refused dials
	roundTrips atomic.Int32
}

func (rt *rcCountingRT) RoundTrip(r *http.Request) (*http.Response, error) {
	if n := rt.roundTrips.Add(1); n <= rt.failDials {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
	}
	return rt.next.RoundTrip(r)
}

// rcCount wraps c's transport in a counter.
func rcCount(c *Client, failDials int32) *rcCountingRT {
	at := c.hc.Transport.(*authTransport)
	rt := &rcCountingRT{next: at.next, failDials: failDials}
	at.next = rt
	return rt
}

// TestClientRetriesRefusedWrite: a refused connection means the request
// never left, so even a POST is retried.
func TestClientRetriesRefusedWrite(t *testing.T) {
	rcNoLeaks(t)
	t.Run("server closed", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		srv.Close() // nothing listens there any more
		c := rcClient(t, srv.URL, nil)
		rt := rcCount(c, 0)
		_, err := rcConfigMaps(c).Create(context.Background(), &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "x"}})
		if err == nil || !isConnRefused(err) {
			t.Fatalf("err = %v, want a refused dial", err)
		}
		if n := rt.roundTrips.Load(); n != int32(rcFastRetry.MaxAttempts) {
			t.Fatalf("%d attempts, want %d", n, rcFastRetry.MaxAttempts)
		}
	})
	t.Run("refused then up", func(t *testing.T) {
		sc := &rcScript{replies: []rcReply{{code: 201, body: rcCM}}}
		c := rcClient(t, rcServer(t, sc).URL, nil)
		rt := rcCount(c, 2)
		if _, err := rcConfigMaps(c).Create(context.Background(), &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm1"}}); err != nil {
			t.Fatalf("Create: %v", err)
		}
		if n, m := rt.roundTrips.Load(), len(sc.seen()); n != 3 || m != 1 {
			t.Fatalf("%d attempts and %d requests served, want 3 and 1", n, m)
		}
	})
}

// TestClientBrokenConnection: a connection that breaks after the request was
// sent may have been acted on: reads are retried, writes are not.
func TestClientBrokenConnection(t *testing.T) {
	rcNoLeaks(t)
	var served atomic.Int32
	srv := rcServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		io.Copy(io.Discard, r.Body)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close() // no answer at all
		}
	}))
	c := rcClient(t, srv.URL, nil)
	if _, err := rcConfigMaps(c).Create(context.Background(), &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "x"}}); err == nil {
		t.Fatal("Create succeeded on a broken connection")
	}
	if n := served.Swap(0); n != 1 {
		t.Fatalf("POST reached the server %d times, want exactly 1", n)
	}
	if _, err := c.RawGet(context.Background(), "/version"); err == nil {
		t.Fatal("GET succeeded on a broken connection")
	}
	if n := served.Load(); n != int32(rcFastRetry.MaxAttempts) {
		t.Fatalf("GET reached the server %d times, want %d", n, rcFastRetry.MaxAttempts)
	}
}

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

func (l *rcLockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
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
	o, err := NewResources(c, roles, api.Raw()).Get(context.Background(), "a,b c")
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

// TestResourcesRequests: method, path, query, headers and body of each
// verb (API concepts: "Standard API terminology", "Patch operations").
func TestResourcesRequests(t *testing.T) {
	ctx := context.Background()
	yes := true
	var grace int64 = 0
	tests := []struct {
		name                        string
		op                          func(*Client) error
		method, path, query, accept string
		contentType                 string
		body                        []string // substrings of the body
	}{
		{name: "get", op: func(c *Client) error { _, err := rcConfigMaps(c).Get(ctx, "cm1"); return err },
			method: "GET", path: "/api/v1/namespaces/ns1/configmaps/cm1", accept: acceptJSON},
		{name: "get metadata only", op: func(c *Client) error {
			_, err := NewResources(c, ConfigMaps, api.Raw()).InNamespace("ns1").MetadataOnly().Get(ctx, "cm1")
			return err
		}, method: "GET", path: "/api/v1/namespaces/ns1/configmaps/cm1", accept: acceptMetaObject},
		{name: "get cluster-scoped ignores namespace", op: func(c *Client) error {
			_, err := NewResources(c, Nodes, api.Raw()).InNamespace("ns1").Get(ctx, "n1")
			return err
		}, method: "GET", path: "/api/v1/nodes/n1", accept: acceptJSON},
		{name: "create in client namespace", op: func(c *Client) error {
			_, err := rcConfigMaps(c).Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm1"}, Data: map[string]string{"a": "b"}})
			return err
		}, method: "POST", path: "/api/v1/namespaces/ns1/configmaps", accept: acceptJSON, contentType: contentTypeJSON,
			body: []string{`"name":"cm1"`, `"data":{"a":"b"}`}},
		{name: "create in object namespace", op: func(c *Client) error {
			_, err := rcConfigMaps(c).Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm1", Namespace: "other"}})
			return err
		}, method: "POST", path: "/api/v1/namespaces/other/configmaps", accept: acceptJSON, contentType: contentTypeJSON},
		{name: "update", op: func(c *Client) error {
			_, err := rcConfigMaps(c).Update(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm1", ResourceVersion: "41"}})
			return err
		}, method: "PUT", path: "/api/v1/namespaces/ns1/configmaps/cm1", accept: acceptJSON, contentType: contentTypeJSON,
			body: []string{`"resourceVersion":"41"`}},
		{name: "update status", op: func(c *Client) error {
			_, err := NewResources(c, Pods, api.Typed[api.Pod]()).UpdateStatus(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "ns2"}})
			return err
		}, method: "PUT", path: "/api/v1/namespaces/ns2/pods/p/status", accept: acceptJSON, contentType: contentTypeJSON},
		{name: "namespace finalize", op: func(c *Client) error {
			o, err := api.NewRawObject(map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "ns9"}})
			if err != nil {
				return err
			}
			_, err = NewResources(c, Namespaces, api.Raw()).UpdateSubresource(ctx, o, "finalize")
			return err
		}, method: "PUT", path: "/api/v1/namespaces/ns9/finalize", accept: acceptJSON, contentType: contentTypeJSON,
			body: []string{`"name":"ns9"`}},
		{name: "merge patch of status", op: func(c *Client) error {
			_, err := rcConfigMaps(c).Patch(ctx, "cm1", MergePatch, []byte(`{"data":{"a":null}}`), PatchOptions{FieldManager: "kcm"}, "status")
			return err
		}, method: "PATCH", path: "/api/v1/namespaces/ns1/configmaps/cm1/status", query: "fieldManager=kcm", accept: acceptJSON,
			contentType: string(MergePatch), body: []string{`{"data":{"a":null}}`}},
		{name: "apply with force", op: func(c *Client) error {
			_, err := NewResources(c, Deployments, api.Raw()).InNamespace("ns1").Patch(ctx, "d", ApplyPatch, []byte("x: 1"), PatchOptions{FieldManager: "m", Force: true})
			return err
		}, method: "PATCH", path: "/apis/apps/v1/namespaces/ns1/deployments/d", query: "fieldManager=m&force=true", accept: acceptJSON,
			contentType: string(ApplyPatch)},
		{name: "delete", op: func(c *Client) error {
			return rcConfigMaps(c).Delete(ctx, "cm1", DeleteOptions{PropagationPolicy: PropagationForeground, GracePeriodSeconds: &grace})
		}, method: "DELETE", path: "/api/v1/namespaces/ns1/configmaps/cm1", accept: acceptJSON, contentType: contentTypeJSON,
			body: []string{`"kind":"DeleteOptions"`, `"apiVersion":"v1"`, `"propagationPolicy":"Foreground"`, `"gracePeriodSeconds":0`}},
		{name: "delete collection", op: func(c *Client) error {
			return rcConfigMaps(c).DeleteCollection(ctx, DeleteOptions{DryRun: []string{"All"}}, ListOptions{LabelSelector: "app=web"})
		}, method: "DELETE", path: "/api/v1/namespaces/ns1/configmaps", query: "labelSelector=app%3Dweb", accept: acceptJSON,
			contentType: contentTypeJSON, body: []string{`"dryRun":["All"]`}},
		{name: "list metadata only", op: func(c *Client) error {
			_, err := NewResources(c, Pods, api.Raw()).MetadataOnly().List(ctx, ListOptions{Limit: 500, ResourceVersion: "0"})
			return err
		}, method: "GET", path: "/api/v1/pods", query: "limit=500&resourceVersion=0", accept: acceptMetaList},
		{name: "watch bookmarks", op: func(c *Client) error {
			w, err := rcConfigMaps(c).Watch(ctx, WatchOptions{ListOptions: ListOptions{ResourceVersion: "5", AllowWatchBookmarks: true,
				TimeoutSeconds: 290, SendInitialEvents: &yes, ResourceVersionMatch: "NotOlderThan"}})
			if err == nil {
				w.Close()
			}
			return err
		}, method: "GET", path: "/api/v1/namespaces/ns1/configmaps",
			query:  "allowWatchBookmarks=true&resourceVersion=5&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&timeoutSeconds=290&watch=true",
			accept: acceptJSON},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rcNoLeaks(t)
			body := rcCM
			if strings.HasPrefix(tc.name, "list") {
				body = `{"kind":"List","metadata":{},"items":[]}`
			}
			sc := &rcScript{replies: []rcReply{{code: 200, body: body}}}
			c := rcClient(t, rcServer(t, sc).URL, nil)
			if err := tc.op(c); err != nil {
				t.Fatal(err)
			}
			seen := sc.seen()
			if len(seen) != 1 {
				t.Fatalf("%d requests", len(seen))
			}
			got := seen[0]
			if got.Method != tc.method || got.Path != tc.path || got.Query != tc.query {
				t.Errorf("request %s %s?%s, want %s %s?%s", got.Method, got.Path, got.Query, tc.method, tc.path, tc.query)
			}
			if a := got.Header.Get("Accept"); a != tc.accept {
				t.Errorf("Accept %q, want %q", a, tc.accept)
			}
			if ct := got.Header.Get("Content-Type"); ct != tc.contentType {
				t.Errorf("Content-Type %q, want %q", ct, tc.contentType)
			}
			for _, sub := range tc.body {
				if !strings.Contains(got.Body, sub) {
					t.Errorf("body %s lacks %s", got.Body, sub)
				}
			}
		})
	}
}

// TestResourcesGetEmptyName: an empty name would address the collection;
// Get refuses it without a request.
func TestResourcesGetEmptyName(t *testing.T) {
	c, err := NewClient(&Config{Host: "http://127.0.0.1:1", QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rcConfigMaps(c).Get(context.Background(), ""); err == nil || !strings.Contains(err.Error(), "empty name") {
		t.Fatalf("err = %v", err)
	}
}

// TestResourcesDecodeError: a 2xx whose body is not the object fails with
// ErrDecode.
func TestResourcesDecodeError(t *testing.T) {
	rcNoLeaks(t)
	sc := &rcScript{replies: []rcReply{{code: 200, body: `<html>`}}}
	c := rcClient(t, rcServer(t, sc).URL, nil)
	if _, err := rcConfigMaps(c).Get(context.Background(), "cm1"); !errors.Is(err, api.ErrDecode) {
		t.Fatalf("err = %v, want ErrDecode", err)
	}
}

// TestUpdateKeepsUnknownFields: a typed read-modify-write sends back the
// fields the struct does not model, as read (kcm's design rule: unknown
// fields survive a read-modify-write).
func TestUpdateKeepsUnknownFields(t *testing.T) {
	rcNoLeaks(t)
	const stored = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","namespace":"ns1","resourceVersion":"7",` +
		`"labels":{"a":"1","b":"2"},"futureMeta":{"x":9007199254740993}},"data":{"k":"v","drop":"me"},"futureTop":[1,2,3]}`
	sc := &rcScript{replies: []rcReply{{code: 200, body: stored}}}
	c := rcClient(t, rcServer(t, sc).URL, nil)
	ctx := context.Background()
	cm, err := rcConfigMaps(c).Get(ctx, "cm1")
	if err != nil {
		t.Fatal(err)
	}
	cp, err := api.DeepCopy(cm)
	if err != nil {
		t.Fatal(err)
	}
	cp.Data["k"] = "v2"
	delete(cp.Data, "drop")
	delete(cp.Labels, "b")
	if _, err := rcConfigMaps(c).Update(ctx, cp); err != nil {
		t.Fatal(err)
	}
	sent := sc.seen()[1].Body
	var got map[string]any
	if err := jsonx.UnmarshalNumbers([]byte(sent), &got); err != nil {
		t.Fatal(err)
	}
	// creationTimestamp null: a zero meta/v1 Time encodes as null, as
	// client-go's does; the apiserver ignores it on update.
	want := `{"apiVersion":"v1","data":{"k":"v2"},"futureTop":[1,2,3],"kind":"ConfigMap","metadata":{"creationTimestamp":null,"futureMeta":{"x":9007199254740993},` +
		`"labels":{"a":"1"},"name":"cm1","namespace":"ns1","resourceVersion":"7"}}`
	if b, _ := jsonx.Marshal(got); string(b) != want {
		t.Fatalf("PUT body\n got %s\nwant %s", b, want)
	}
}

// TestDiscovery: resources of a group version, subresources left out.
func TestDiscovery(t *testing.T) {
	rcNoLeaks(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/api/v1", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"kind":"APIResourceList","groupVersion":"v1","resources":[`+
			`{"name":"pods","namespaced":true,"kind":"Pod","verbs":["get"]},{"name":"pods/status","namespaced":true,"kind":"Pod"},`+
			`{"name":"nodes","namespaced":false,"kind":"Node"}]}`)
	})
	mux.HandleFunc("/apis/example.com/v1alpha1", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"groupVersion":"example.com/v1alpha1","resources":[{"name":"widgets","namespaced":true,"kind":"Widget"}]}`)
	})
	mux.HandleFunc("/apis/bad/v1", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `[`) })
	mux.HandleFunc("/version", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"gitVersion":"v1.34.4"}`) })
	c := rcClient(t, rcServer(t, mux).URL, nil)
	ctx := context.Background()
	core, err := c.DiscoverResources(ctx, "v1")
	if err != nil {
		t.Fatal(err)
	}
	want := []Resource{{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true}, {Version: "v1", Resource: "nodes", Kind: "Node"}}
	if fmt.Sprint(core) != fmt.Sprint(want) {
		t.Fatalf("core: %+v", core)
	}
	w, err := c.ResourceForKind(ctx, "example.com/v1alpha1", "Widget")
	if err != nil || w != (Resource{Group: "example.com", Version: "v1alpha1", Resource: "widgets", Kind: "Widget", Namespaced: true}) {
		t.Fatalf("ResourceForKind = %+v, %v", w, err)
	}
	if _, err := c.ResourceForKind(ctx, "example.com/v1alpha1", "Gadget"); !IsNotFound(err) {
		t.Fatalf("unknown kind: %v, want NotFound", err)
	}
	if _, err := c.DiscoverResources(ctx, "missing/v1"); !IsNotFound(err) {
		t.Fatalf("unknown group: %v, want NotFound", err)
	}
	if _, err := c.DiscoverResources(ctx, "bad/v1"); !errors.Is(err, api.ErrDecode) {
		t.Fatalf("malformed list: %v, want ErrDecode", err)
	}
	if v, err := c.ServerVersion(ctx); err != nil || v != "v1.34.4" {
		t.Fatalf("ServerVersion = %q, %v", v, err)
	}
}
