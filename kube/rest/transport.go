package rest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// newTLSConfig builds the client TLS configuration for cfg: the cluster CA
// (or the system roots when none is given), the server-name override, and
// the client certificate — static from the config, or fetched from the
// credentials at handshake time so that exec plugins can rotate it.
func newTLSConfig(cfg *Config) (*tls.Config, error) {
	tc := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         cfg.TLS.ServerName,
		InsecureSkipVerify: cfg.TLS.Insecure, //nolint:gosec // only when the kubeconfig says so
	}
	if len(cfg.TLS.CAData) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(cfg.TLS.CAData) {
			return nil, fmt.Errorf("%s: certificate authority data holds no PEM certificate", cfg.Source)
		}
		tc.RootCAs = pool
	}
	var static *tls.Certificate
	if len(cfg.TLS.CertData) > 0 || len(cfg.TLS.KeyData) > 0 {
		cert, err := tls.X509KeyPair(cfg.TLS.CertData, cfg.TLS.KeyData)
		if err != nil {
			return nil, fmt.Errorf("%s: client certificate/key: %w", cfg.Source, err)
		}
		static = &cert
	}
	creds := cfg.Credentials
	if static == nil && creds == nil {
		return tc, nil
	}
	tc.GetClientCertificate = func(cri *tls.CertificateRequestInfo) (*tls.Certificate, error) {
		if creds != nil {
			c, err := creds.ClientCertificate(cri.Context())
			if err != nil {
				return nil, err
			}
			if c != nil {
				return c, nil
			}
		}
		if static != nil {
			return static, nil
		}
		return &tls.Certificate{}, nil // no certificate: the server may still accept a token
	}
	return tc, nil
}

// TransportTimeouts are the timings of the HTTP transport that a Client and
// the clients derived from it (WithOptions) share. A zero field keeps its
// default (DefaultTransportTimeouts).
type TransportTimeouts struct {
	// Dial bounds opening a TCP connection.
	Dial time.Duration
	// TLSHandshake bounds the TLS handshake, so a server that accepts
	// connections and never answers the ClientHello costs one timeout.
	TLSHandshake time.Duration
	// HTTP2ReadIdle: an HTTP/2 connection that received no frame for this
	// long is pinged (client-go: HTTP2_READ_IDLE_TIMEOUT_SECONDS).
	HTTP2ReadIdle time.Duration
	// HTTP2PingTimeout: a ping that is not answered within this long
	// closes the connection and fails its streams (client-go:
	// HTTP2_PING_TIMEOUT_SECONDS), so a connection that went silent (lost
	// pings, a black-holed peer) is not used for ever.
	HTTP2PingTimeout time.Duration
}

// DefaultTransportTimeouts are client-go's: dial 30 s, TLS handshake 10 s,
// HTTP/2 ping after 30 s without a frame, answered within 15 s.
var DefaultTransportTimeouts = TransportTimeouts{Dial: 30 * time.Second, TLSHandshake: 10 * time.Second,
	HTTP2ReadIdle: 30 * time.Second, HTTP2PingTimeout: 15 * time.Second}

// WithTransportTimeouts replaces fields of DefaultTransportTimeouts (tests
// shrink them; real time, not the client's clock: they are deadlines
// handed to the standard library).
func WithTransportTimeouts(t TransportTimeouts) Option { return func(c *Client) { c.transport = t } }

// withDefaults fills zero fields from DefaultTransportTimeouts.
func (t TransportTimeouts) withDefaults() TransportTimeouts {
	d := DefaultTransportTimeouts
	for _, f := range []struct{ v, def *time.Duration }{{&t.Dial, &d.Dial}, {&t.TLSHandshake, &d.TLSHandshake},
		{&t.HTTP2ReadIdle, &d.HTTP2ReadIdle}, {&t.HTTP2PingTimeout, &d.HTTP2PingTimeout}} {
		if *f.v <= 0 {
			*f.v = *f.def
		}
	}
	return t
}

// readBufferSize is the read buffer of each HTTP/1.1 connection. A LIST
// or a watch arrives as a chunked body, often a chunk per object (the
// apiserver's streaming encoder, podgen's server), and net/http reads a
// body no further than the chunk its 4 KiB default buffer ends in: about
// one read system call per object, 7 % of the CPU of a typed 50k-pod sync.
// With 64 KiB one read takes whatever the socket holds, up to a dozen
// objects, for 60 KiB more memory per open connection. HTTP/2
// connections keep their own framing and are not affected.
const readBufferSize = 64 << 10

// newTransport returns the one HTTP transport a cluster's clients share:
// HTTP/2 with health-check pings (a dead connection is noticed in ~45 s even
// when no request is in flight), keep-alive, and bounded dial and TLS
// handshake times (tt, zero fields meaning the defaults).
func newTransport(tc *tls.Config, tt TransportTimeouts) *http.Transport {
	tt = tt.withDefaults()
	dialer := &net.Dialer{Timeout: tt.Dial, KeepAlive: 30 * time.Second}
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		TLSClientConfig:       tc,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   25,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   tt.TLSHandshake,
		ExpectContinueTimeout: time.Second,
		HTTP2:                 &http.HTTP2Config{SendPingTimeout: tt.HTTP2ReadIdle, PingTimeout: tt.HTTP2PingTimeout},
		ReadBufferSize:        readBufferSize,
	}
}

// authTransport adds User-Agent to every request and Authorization to the
// requests for the configured server only. Go's http.Client drops the
// Authorization header when it follows a redirect to another host, but a
// round-tripper sees each hop as a fresh request: without the origin check
// it would put the token back on a 302 to anywhere (the CVE-2020-8559
// pattern), and on a redirect from https down to plain http.
type authTransport struct {
	next      http.RoundTripper
	auth      auth
	userAgent string
	// origin is the configured server: scheme and host:port, lower case.
	origin origin
}

// origin is a URL's scheme and host:port, ports made explicit, so that
// "https://h" and "https://h:443" compare equal.
type origin struct{ scheme, hostport string }

// originOf returns u's origin.
func originOf(u *url.URL) origin {
	scheme := strings.ToLower(u.Scheme)
	switch scheme {
	case "wss":
		scheme = "https"
	case "ws":
		scheme = "http"
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if scheme == "https" {
			port = "443"
		}
	}
	return origin{scheme: scheme, hostport: net.JoinHostPort(strings.ToLower(u.Hostname()), port)}
}

// mayAuthenticate reports whether credentials may be sent to u: only to the
// configured scheme, host and port. Plain http is thereby allowed only when
// the configured server is itself http.
func (o origin) mayAuthenticate(u *url.URL) bool { return u != nil && originOf(u) == o }

// RoundTrip implements http.RoundTripper.
func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("User-Agent", t.userAgent)
	if !t.origin.mayAuthenticate(req.URL) {
		// A redirect left the configured server: go on anonymously, and
		// drop whatever a caller may have set.
		req.Header.Del("Authorization")
		return t.next.RoundTrip(req)
	}
	h, err := t.auth.authorization(req.Context())
	if err != nil {
		return nil, err
	}
	if h != "" {
		req.Header.Set("Authorization", h)
	}
	return t.next.RoundTrip(req)
}

// auth is a Credentials kept as its methods' function values. fmt prints a
// func as an address whatever the verb and however deep it finds it, so no
// rendering of a Client, not even a raw one through an unexported field of
// a type that holds a Client, reaches the secret behind it. The zero auth
// is anonymous.
type auth struct {
	header     func(context.Context) (string, error)
	invalidate func()
}

func newAuth(c Credentials) auth {
	if c == nil {
		return auth{}
	}
	return auth{header: c.Authorization, invalidate: c.Invalidate}
}

func (a auth) anonymous() bool { return a.header == nil }

// authorization returns the Authorization header value ("" for none).
func (a auth) authorization(ctx context.Context) (string, error) {
	if a.header == nil {
		return "", nil
	}
	h, err := a.header(ctx)
	if err != nil {
		return "", fmt.Errorf("%w: %w", errCredentials, err)
	}
	return h, nil
}

// invalidateNow drops cached credentials after a 401.
func (a auth) invalidateNow() {
	if a.invalidate != nil {
		a.invalidate()
	}
}

// errCredentials marks failures to obtain credentials: never retried, since
// the request never left.
var errCredentials = errors.New("cannot get credentials")

// isConnRefused reports a failure that happened before the request was sent,
// so even a non-idempotent request may be retried.
func isConnRefused(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// contextError prefers the context's error when the context is done, so
// callers see context.Canceled rather than a transport's wording of it.
func contextError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
