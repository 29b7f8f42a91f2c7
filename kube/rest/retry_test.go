package rest

import (
	"context"
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
	"github.com/rs/zerolog"
)

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
	if d, ok := c.shouldRetry(context.Background(), &request{verb: "POST"}, se, 1); !ok || d != 3*time.Second {
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

func (l *rcLockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
