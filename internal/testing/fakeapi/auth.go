package fakeapi

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Credentials and routing: a bearer-token authenticator whose tokens the
// Unauthorized401 fault revokes (the client must refresh and retry, as it
// does with an exec plugin or a rotated token file), a 403 for watches
// only, and a redirect to another host that records whatever reaches it.

// Tokens is the fake's bearer-token authenticator and the identity provider
// its clients refresh from: tokens are secret+"-"+n, and the server accepts
// those issued since the last revocation. The secret must never appear in
// a log line or reach another host.
type Tokens struct {
	secret string
	mu     sync.Mutex
	issued int // the newest token's number
	floor  int // tokens numbered below it are revoked
}

// NewTokens returns an authenticator whose tokens start with secret.
func NewTokens(secret string) *Tokens { return &Tokens{secret: secret, floor: 1} }

// Secret is the text every token starts with.
func (t *Tokens) Secret() string { return t.secret }

// Issue returns a fresh token, valid until the next revocation.
func (t *Tokens) Issue() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.issued++
	return t.secret + "-" + strconv.Itoa(t.issued)
}

// accepts reports whether an Authorization header carries a valid token.
func (t *Tokens) accepts(authorization string) bool {
	tok, ok := strings.CutPrefix(authorization, "Bearer "+t.secret+"-")
	if !ok {
		return false
	}
	n, err := strconv.Atoi(tok)
	t.mu.Lock()
	defer t.mu.Unlock()
	return err == nil && n >= t.floor && n <= t.issued
}

// revoke invalidates every token issued so far.
func (t *Tokens) revoke() {
	t.mu.Lock()
	t.floor = t.issued + 1
	t.mu.Unlock()
}

// TokenCredentials are a client's credentials from a Tokens: one token at a
// time, and a fresh one after Invalidate (the client calls it on a 401).
// They implement kube/rest's Credentials.
type TokenCredentials struct {
	t   *Tokens
	mu  sync.Mutex
	cur string
}

// Credentials returns credentials holding a freshly issued token.
func (t *Tokens) Credentials() *TokenCredentials { return &TokenCredentials{t: t, cur: t.Issue()} }

// Authorization returns the header value.
func (c *TokenCredentials) Authorization(context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return "Bearer " + c.cur, nil
}

// ClientCertificate returns none: these credentials are a token.
func (c *TokenCredentials) ClientCertificate(context.Context) (*tls.Certificate, error) {
	return nil, nil
}

// Invalidate fetches a fresh token.
func (c *TokenCredentials) Invalidate() {
	tok := c.t.Issue()
	c.mu.Lock()
	c.cur = tok
	c.mu.Unlock()
}

// authenticate answers 401 and returns false unless the request carries a
// valid token (always true without Options.Tokens).
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) bool {
	if s.o.Tokens == nil || s.o.Tokens.accepts(r.Header.Get("Authorization")) {
		return true
	}
	writeStatus(w, r, http.StatusUnauthorized, "Unauthorized", "Unauthorized")
	return false
}

// authFault answers the request with an injected credentials or routing
// fault (one of the candidates requestFault drew), and reports whether it
// was one.
func (s *Server) authFault(f Fault, w http.ResponseWriter, r *http.Request, res int) bool {
	switch f {
	case Unauthorized401:
		s.o.Tokens.revoke()
		writeStatus(w, r, http.StatusUnauthorized, "Unauthorized", "Unauthorized")
	case ForbiddenWatch403:
		rs := s.o.Resources[res]
		writeStatus(w, r, http.StatusForbidden, "Forbidden", fmt.Sprintf(
			`%s is forbidden: User "system:serviceaccount:kube-system:kcm" cannot watch resource %q in API group %q (fakeapi: injected)`,
			rs.Resource, rs.Resource, rs.Group))
	case Redirect307:
		w.Header().Set("Location", s.elsewhere.url()+r.URL.RequestURI())
		w.WriteHeader(http.StatusTemporaryRedirect)
	default:
		return false
	}
	return true
}

// Elsewhere is what the other host, the target of Redirect307, received:
// requests, and among them those that carried an Authorization header or
// the token secret anywhere (headers, path, query). Both must stay 0.
type Elsewhere struct {
	Requests, WithAuthorization, WithSecret int64
}

// elsewhere is the other host: another listener (another port, so another
// origin), served over TLS with the same certificate when the server is.
// It answers every request 401, as an apiserver given no credentials
// would.
type elsewhere struct {
	srv                            *httptest.Server
	base                           string
	secret                         string
	requests, withAuth, withSecret atomic.Int64
}

func newElsewhere(useTLS bool, secret string) *elsewhere {
	e := &elsewhere{secret: secret}
	e.srv = httptest.NewUnstartedServer(http.HandlerFunc(e.serveHTTP))
	e.base = startServer(e.srv, useTLS, nil, new(atomic.Int64))
	return e
}

func (e *elsewhere) url() string { return e.base }

func (e *elsewhere) serveHTTP(w http.ResponseWriter, r *http.Request) {
	e.requests.Add(1)
	if r.Header.Get("Authorization") != "" {
		e.withAuth.Add(1)
	}
	if e.secret != "" && strings.Contains(fmt.Sprint(r.Header, r.URL.String()), e.secret) {
		e.withSecret.Add(1)
	}
	writeStatus(w, r, http.StatusUnauthorized, "Unauthorized", "fakeapi: another host; no credentials expected here")
}

// Elsewhere returns what the redirect target received (zero without
// Options.Redirects).
func (s *Server) Elsewhere() Elsewhere {
	if s.elsewhere == nil {
		return Elsewhere{}
	}
	e := s.elsewhere
	return Elsewhere{Requests: e.requests.Load(), WithAuthorization: e.withAuth.Load(), WithSecret: e.withSecret.Load()}
}
