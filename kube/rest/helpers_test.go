package rest

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"go.uber.org/goleak"
)

// Helpers of the unit tests, which run the request core against an
// in-process httptest server. Their names start with "rc" so that they
// cannot collide with those of the package's other test files.

// rcFastRetry is a retry policy on the order of milliseconds, so that
// tests of retries on the real clock wait little.
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
	return NewResources(c, ConfigMaps, decode.Typed[api.ConfigMap]()).InNamespace("ns1")
}
