package rest

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/tap"
	"github.com/rs/zerolog"
	"golang.org/x/time/rate"
)

// Default client rate limits, as kube-controller-manager sets them
// (--kube-api-qps, --kube-api-burst).
const (
	DefaultQPS   = 20
	DefaultBurst = 30
)

// Client talks to one apiserver. Clients made from one another with
// WithOptions share a transport (so HTTP/2 connections) but each has its own
// rate limiter and User-Agent, the way kube-controller-manager hands every
// controller a client of its own.
//
// A Client is safe for concurrent use.
type Client struct {
	base      *url.URL
	hc        *http.Client // shared transport wrapped with auth; no timeout (watches are long)
	tls       *tls.Config  // for WebSocket dials
	auth      auth         // the Credentials, as function values (see auth)
	userAgent string
	limiter   *rate.Limiter // nil: unlimited
	timeout   time.Duration
	// listIdle cuts off a LIST that sends nothing for this long (0: never).
	listIdle time.Duration
	// listPage cuts off a LIST page that takes longer than this in all,
	// however steadily it sends (0: never).
	listPage time.Duration
	retry    RetryPolicy
	log      zerolog.Logger
	// maxBody bounds a non-streamed response body.
	maxBody int64
	// maxObject bounds one object of a list or one watch event (0: the
	// default).
	maxObject int
	// clock times retry backoff, rate limiting and idle timeouts.
	clock clock.Clock
	// metrics, when set, sees every request (WithRequestMetrics).
	metrics RequestMetrics
	// tap feeds the pipeline view (WithTap); write is this client's
	// tap.Write point, named after its User-Agent.
	tap   *tap.Tap
	write *tap.Point
	// transport are the timings of the HTTP transport (WithTransportTimeouts).
	transport TransportTimeouts
	// proto: reads ask for protobuf where they can (Config.ContentType).
	proto bool
}

// RetryPolicy says how a Client retries requests that may be retried:
// reads on 429, 5xx and broken connections; writes only when the server
// cannot have acted on them (429, refused connections).
type RetryPolicy struct {
	MaxAttempts int           // total attempts including the first; 1 disables retries
	Initial     time.Duration // first backoff
	Max         time.Duration // backoff cap (Retry-After may exceed it, up to MaxRetryAfter)
	// MaxRetryAfter caps how long a server-requested Retry-After is honoured.
	MaxRetryAfter time.Duration
}

// DefaultRetryPolicy: 5 attempts, 100 ms doubling to 5 s, Retry-After up to 60 s.
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 5, Initial: 100 * time.Millisecond, Max: 5 * time.Second, MaxRetryAfter: time.Minute}

// Option adjusts a Client.
type Option func(*Client)

// WithLogger sets the logger for retries and warnings.
func WithLogger(l zerolog.Logger) Option { return func(c *Client) { c.log = l } }

// DefaultListIdleTimeout is how long a LIST may go without sending a byte.
const DefaultListIdleTimeout = time.Minute

// WithListIdleTimeout replaces DefaultListIdleTimeout (0 disables it).
func WithListIdleTimeout(d time.Duration) Option { return func(c *Client) { c.listIdle = d } }

// DefaultListPageTimeout is the most one LIST request (one page, or the
// whole collection when unpaginated) may take from the moment it is sent
// (retries and the wait for response headers included) to the last byte of
// its body. The idle timeout alone cannot end a body that trickles a byte
// before each idle timeout; this deadline can.
//
// Two minutes is twice kube-apiserver's own bound on a non-long-running
// request (--request-timeout, default 1m0s, after which the server itself
// cuts the response), so a page that a healthy server still delivers is
// never cut by the client, while a trickling one holds a reflector for at
// most two minutes before it backs off and lists again. client-go sets no
// such deadline of its own and relies on the server's.
const DefaultListPageTimeout = 2 * time.Minute

// WithListPageTimeout replaces DefaultListPageTimeout (0 disables it). It
// runs on the client's clock (WithClock). Config.Timeout, when set, bounds
// the same request on real time as well; the shorter of the two wins.
func WithListPageTimeout(d time.Duration) Option { return func(c *Client) { c.listPage = d } }

// WithClock sets the clock of retry backoff, rate limiting and the idle
// timeouts of lists and watches (default clock.Real), so tests step time
// instead of waiting for it. Config.Timeout and the dial and TLS handshake
// timeouts of the transport stay on real time: they are deadlines handed
// to the standard library.
func WithClock(clk clock.Clock) Option { return func(c *Client) { c.clock = clk } }

// WithRetryPolicy replaces DefaultRetryPolicy.
func WithRetryPolicy(p RetryPolicy) Option { return func(c *Client) { c.retry = p } }

// NewClient builds the transport for cfg and a client on it.
func NewClient(cfg *Config, opts ...Option) (*Client, error) {
	if cfg == nil || cfg.Host == "" {
		return nil, errors.New("rest: config has no server address")
	}
	base, err := url.Parse(cfg.Host)
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return nil, fmt.Errorf("rest: %s: server %q is not an http(s) URL", cfg.Source, cfg.Host)
	}
	base.Path = strings.TrimSuffix(base.Path, "/")
	proto, err := checkContentType(cfg)
	if err != nil {
		return nil, err
	}
	tc, err := newTLSConfig(cfg)
	if err != nil {
		return nil, err
	}
	ua := cfg.UserAgent
	if ua == "" {
		ua = DefaultUserAgent
	}
	c := &Client{
		base:     base,
		tls:      tc,
		auth:     newAuth(cfg.Credentials),
		timeout:  cfg.Timeout,
		retry:    DefaultRetryPolicy,
		listIdle: DefaultListIdleTimeout,
		listPage: DefaultListPageTimeout,
		maxBody:  DefaultMaxResponseBytes,
		log:      zerolog.Nop(),
		clock:    clock.Real{},
		proto:    proto,
	}
	c.userAgent = ua
	c.limiter = newLimiter(cfg.QPS, cfg.Burst)
	for _, o := range opts {
		o(c)
	}
	c.write = c.tap.Point(tap.Write, c.userAgent, "")
	c.hc = &http.Client{Transport: &authTransport{next: newTransport(tc.Clone(), c.transport), auth: c.auth,
		userAgent: ua, origin: originOf(base)}}
	return c, nil
}

func newLimiter(qps float32, burst int) *rate.Limiter {
	switch {
	case qps < 0:
		return nil
	case qps == 0:
		qps, burst = DefaultQPS, DefaultBurst
	case burst <= 0:
		burst = int(qps) + 1
	}
	return rate.NewLimiter(rate.Limit(qps), burst)
}

// errRateLimit marks a request the rate limiter refused: never retried,
// since it never left and its deadline will not move.
var errRateLimit = errors.New("rate limiter")

// waitLimiter takes a token of the client's rate limiter, waiting for it on
// the client's clock. A caller whose deadline comes before the token fails
// at once, as rate.Limiter.Wait does, and gives the token back.
func (c *Client) waitLimiter(ctx context.Context) error {
	if c.limiter == nil {
		return nil
	}
	now := c.clock.Now()
	r := c.limiter.ReserveN(now, 1)
	if !r.OK() {
		return fmt.Errorf("%w: burst is zero", errRateLimit)
	}
	d := r.DelayFrom(now)
	if d <= 0 {
		return nil
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		r.CancelAt(now)
		return fmt.Errorf("%w: the next token comes in %v, after the context's deadline", errRateLimit, d)
	}
	t := c.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return nil
	case <-ctx.Done():
		r.CancelAt(c.clock.Now())
		return ctx.Err()
	}
}

// WithOptions returns a client on the same transport with its own User-Agent
// and rate limits (qps 0 keeps the defaults, negative disables limiting).
func (c *Client) WithOptions(userAgent string, qps float32, burst int) *Client {
	n := *c
	at := *c.hc.Transport.(*authTransport)
	if userAgent != "" {
		at.userAgent = userAgent
		n.userAgent = userAgent
		n.write = n.tap.Point(tap.Write, userAgent, "")
	}
	n.hc = &http.Client{Transport: &at}
	n.limiter = newLimiter(qps, burst)
	return &n
}

// RateLimit returns the client's request rate limit: its QPS and burst,
// or ok false when it is unlimited.
func (c *Client) RateLimit() (qps float64, burst int, ok bool) {
	if c.limiter == nil {
		return 0, 0, false
	}
	return float64(c.limiter.Limit()), c.limiter.Burst(), true
}

// Host returns the server's base URL.
func (c *Client) Host() string { return c.base.String() }

// ContentType returns the encoding this client's reads ask for:
// ContentTypeProtobuf or ContentTypeJSON (Config.ContentType).
func (c *Client) ContentType() string {
	if c.proto {
		return ContentTypeProtobuf
	}
	return ContentTypeJSON
}

// UserAgent returns the User-Agent this client sends.
func (c *Client) UserAgent() string { return c.userAgent }

// request is one API call before it is sent.
type request struct {
	verb        string
	path        string
	query       url.Values
	body        []byte
	contentType string
	accept      string
	// idempotent requests may be retried on any transient failure.
	idempotent bool
	// stream: no client-side timeout (watches); the caller closes the body.
	stream bool
	// discard: the body is not read (a DELETE of a collection answers with
	// every deleted object): drained up to the limit, never an error.
	discard bool
}

func (r *request) url(base *url.URL) string {
	u := joinPath(base, r.path)
	u.RawQuery = r.query.Encode()
	return u.String()
}

// joinPath appends path, already escaped (Resource.Path escapes names), to
// base's path. Setting RawPath keeps it from being escaped a second time: a
// name "a,b" is sent as "a%2Cb", not "a%252Cb".
func joinPath(base *url.URL, path string) url.URL {
	u := *base
	u.RawPath = base.EscapedPath() + path
	p, err := url.PathUnescape(u.RawPath)
	if err != nil {
		u.RawPath, p = "", base.Path+path
	}
	u.Path = p
	return u
}

// do sends r with rate limiting and retries, and returns a 2xx response
// whose body the caller must close. Any other outcome is an error: a
// *StatusError for answers from the server.
func (c *Client) do(ctx context.Context, r *request) (*http.Response, error) {
	attempts := max(c.retry.MaxAttempts, 1)
	var last error
	for attempt := 1; ; attempt++ {
		resp, err := c.once(ctx, r)
		if err == nil {
			return resp, nil
		}
		last = err
		wait, retry := c.shouldRetry(ctx, r, err, attempt)
		if !retry || attempt >= attempts {
			return nil, last
		}
		c.log.Debug().Str("verb", r.verb).Str("path", r.path).Int("attempt", attempt).
			Dur("wait", wait).Err(err).Msg("retrying request")
		t := c.clock.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C():
		}
	}
}

// once sends r a single time.
func (c *Client) once(ctx context.Context, r *request) (*http.Response, error) {
	start := c.clock.Now()
	if err := c.waitLimiter(ctx); err != nil {
		return nil, contextError(ctx, err)
	}
	c.observeLimiter(r.verb, start)
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.verb, r.url(c.base), body)
	if err != nil {
		return nil, fmt.Errorf("rest: build request %s %s: %w", r.verb, r.path, err)
	}
	req.Header.Set("Accept", r.accept)
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	start = c.clock.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		c.observeRequest(r.verb, 0, start)
		return nil, contextError(ctx, fmt.Errorf("%s %s: %w", r.verb, r.path, err))
	}
	c.observeRequest(r.verb, resp.StatusCode, start)
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, nil
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized {
		c.auth.invalidateNow()
	}
	return nil, newStatusError(r.verb, r.path, resp.StatusCode, resp.Header, data)
}

// shouldRetry decides whether err after the given attempt is worth another
// try, and how long to wait first. Only ctx ending (the caller's context,
// or the client's Timeout laid over it) is a stop: a dial or TLS handshake
// that timed out also wraps context.DeadlineExceeded, but it is a
// transport failure like any other.
func (c *Client) shouldRetry(ctx context.Context, r *request, err error, attempt int) (time.Duration, bool) {
	if ctx.Err() != nil || errors.Is(err, errCredentials) || errors.Is(err, errRateLimit) {
		return 0, false
	}
	backoff := c.backoff(attempt)
	var se *StatusError
	if errors.As(err, &se) {
		code := int(se.Status.Code)
		switch {
		case code == http.StatusUnauthorized && attempt == 1:
			return 0, !c.auth.anonymous() // credentials were invalidated: one fresh try
		case code == http.StatusTooManyRequests, code >= 500 && r.idempotent && code != http.StatusNotImplemented:
			if se.RetryAfter > 0 {
				return min(se.RetryAfter, c.retry.MaxRetryAfter), true
			}
			return backoff, true
		}
		return 0, false
	}
	// Transport failure: the request may or may not have reached the server.
	return backoff, r.idempotent || isConnRefused(err)
}

// backoff is exponential with full jitter over [d/2, d].
func (c *Client) backoff(attempt int) time.Duration {
	d := c.retry.Initial << (attempt - 1)
	if d <= 0 || d > c.retry.Max {
		d = c.retry.Max
	}
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2)
}

// doBytes runs r and returns the whole body of a 2xx response, at most
// the client's maxBody bytes (ErrResponseTooLarge beyond).
func (c *Client) doBytes(ctx context.Context, r *request) ([]byte, error) {
	data, _, err := c.doBody(ctx, r)
	return data, err
}

// doBody is doBytes that also returns the response's Content-Type.
func (c *Client) doBody(ctx context.Context, r *request) ([]byte, string, error) {
	if c.timeout > 0 && !r.stream {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	resp, err := c.do(ctx, r)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	limit := c.maxBody
	if limit <= 0 {
		limit = DefaultMaxResponseBytes
	}
	if r.discard {
		// Nobody reads it: drain what the limit allows, so the connection
		// can be reused, and drop the rest with the connection.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, limit))
		return nil, "", nil
	}
	if resp.ContentLength > limit {
		return nil, "", fmt.Errorf("%s %s: %w: %d bytes announced, the limit is %d", r.verb, r.path, ErrResponseTooLarge,
			resp.ContentLength, limit)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, "", contextError(ctx, fmt.Errorf("%s %s: reading response: %w", r.verb, r.path, err))
	}
	if int64(len(data)) > limit {
		return nil, "", fmt.Errorf("%s %s: %w: more than %d bytes", r.verb, r.path, ErrResponseTooLarge, limit)
	}
	return data, resp.Header.Get("Content-Type"), nil
}

// RawGet fetches an absolute API path (e.g. "/version", "/readyz") and
// returns the body. It is retried like any read.
func (c *Client) RawGet(ctx context.Context, path string) ([]byte, error) {
	return c.doBytes(ctx, &request{verb: http.MethodGet, path: path, accept: "application/json, */*", idempotent: true})
}

// CloseIdleConnections closes the shared transport's idle keep-alive
// connections (for every client derived from the same one).
func (c *Client) CloseIdleConnections() { c.hc.CloseIdleConnections() }

// DefaultMaxResponseBytes bounds the body of a non-streamed response (a GET,
// discovery, the answer to a write): 64 MiB, the same bound as one object in
// a list or watch stream, far above the apiserver's own limits on an object.
const DefaultMaxResponseBytes = 64 << 20

// WithMaxResponseBytes replaces DefaultMaxResponseBytes.
func WithMaxResponseBytes(n int64) Option { return func(c *Client) { c.maxBody = n } }

// WithMaxObjectBytes replaces DefaultMaxObjectBytes, the bound on one object
// of a list and one watch event (n <= 0: the default). A longer one fails
// the list or the watch with an error wrapping api.ErrDecode that names the
// limit.
func WithMaxObjectBytes(n int) Option { return func(c *Client) { c.maxObject = n } }
