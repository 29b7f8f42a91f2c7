package clientbuilder

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// ErrNoToken: the apiserver answered a TokenRequest without a token or an
// expirationTimestamp.
var ErrNoToken = errors.New("clientbuilder: TokenRequest answered without a token")

// TokenSource is the rest.Credentials of one ServiceAccount: a bearer
// token from the TokenRequest API, cached and replaced once 80 % of its
// lifetime has passed (client-go's cached token source around
// kube-controller-manager's tokenSourceImpl).
type TokenSource struct {
	b    *Builder
	name string
	// fetching admits one TokenRequest at a time; waiting callers give
	// up with their context.
	fetching chan struct{}

	mu sync.Mutex
	// token, refreshAt (when it is due for replacement) and expires (the
	// apiserver's expirationTimestamp) are guarded by mu.
	token     string
	refreshAt time.Time
	expires   time.Time
}

func newTokenSource(b *Builder, name string) *TokenSource {
	return &TokenSource{b: b, name: name, fetching: make(chan struct{}, 1)}
}

// Name returns the ServiceAccount's name.
func (s *TokenSource) Name() string { return s.name }

// current returns the cached token while it is not due for replacement.
func (s *TokenSource) current(now time.Time) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.token, s.token != "" && now.Before(s.refreshAt)
}

// Authorization implements rest.Credentials: "Bearer <token>", asking the
// apiserver for a new token when the cached one is due.
func (s *TokenSource) Authorization(ctx context.Context) (string, error) {
	if tok, ok := s.current(s.b.o.Clock.Now()); ok {
		return "Bearer " + tok, nil
	}
	select {
	case s.fetching <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-s.fetching }()
	// Another caller may have fetched it while this one waited.
	if tok, ok := s.current(s.b.o.Clock.Now()); ok {
		return "Bearer " + tok, nil
	}
	tok, expires, err := s.fetch(ctx)
	now := s.b.o.Clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if s.token != "" && now.Before(s.expires) {
			s.b.o.Logger.Warn().Err(err).Str("serviceAccount", s.b.o.Namespace+"/"+s.name).
				Time("expires", s.expires).Msg("cannot renew the controller's token; using the current one until it expires")
			return "Bearer " + s.token, nil
		}
		return "", err
	}
	lifetime := max(expires.Sub(now), MinLifetime)
	s.token, s.expires = tok, now.Add(lifetime)
	s.refreshAt = now.Add(lifetime - lifetime*LeewayPercent/100)
	return "Bearer " + tok, nil
}

// ClientCertificate implements rest.Credentials: none, a token only.
func (*TokenSource) ClientCertificate(context.Context) (*tls.Certificate, error) { return nil, nil }

// Invalidate implements rest.Credentials: after a 401, the next request
// asks for a new token.
func (s *TokenSource) Invalidate() {
	s.mu.Lock()
	s.token, s.refreshAt, s.expires = "", time.Time{}, time.Time{}
	s.mu.Unlock()
}

// fetch makes sure the ServiceAccount exists and asks for a token of it.
func (s *TokenSource) fetch(ctx context.Context) (token string, expires time.Time, err error) {
	if err := s.ensureServiceAccount(ctx); err != nil {
		return "", time.Time{}, err
	}
	ns := s.b.o.Namespace
	req, err := decode.Raw().Decode(fmt.Appendf(nil,
		`{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":%d}}`,
		int64(s.b.o.Expiration/time.Second)))
	if err != nil {
		return "", time.Time{}, err
	}
	// decode.Raw, JSON only: the TokenRequest's answer is parsed as JSON.
	out, err := rest.NewResources(s.b.root, rest.ServiceAccounts, decode.Raw()).InNamespace(ns).
		CreateSubresource(ctx, s.name, "token", req)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("clientbuilder: token for %s/%s: %w", ns, s.name, err)
	}
	var tr struct {
		Status struct {
			Token               string    `json:"token"`
			ExpirationTimestamp time.Time `json:"expirationTimestamp"`
		} `json:"status"`
	}
	if err := json.Unmarshal(out.Raw(), &tr); err != nil {
		return "", time.Time{}, fmt.Errorf("clientbuilder: token for %s/%s: %w", ns, s.name, err)
	}
	if tr.Status.Token == "" || tr.Status.ExpirationTimestamp.IsZero() {
		return "", time.Time{}, fmt.Errorf("%w: %s/%s", ErrNoToken, ns, s.name)
	}
	return tr.Status.Token, tr.Status.ExpirationTimestamp, nil
}

// ensureServiceAccount reads the ServiceAccount and creates it when it is
// missing; when its namespace is missing too, it tries to create that
// first (an error there is left to the second create to report, as the
// manager may lack the right).
func (s *TokenSource) ensureServiceAccount(ctx context.Context) error {
	ns := s.b.o.Namespace
	accounts := rest.NewResources(s.b.root, rest.ServiceAccounts, decode.Typed[api.ServiceAccount]()).InNamespace(ns)
	_, err := accounts.Get(ctx, s.name)
	if !rest.IsNotFound(err) {
		if err != nil {
			return fmt.Errorf("clientbuilder: ServiceAccount %s/%s: %w", ns, s.name, err)
		}
		return nil
	}
	create := func() error {
		_, err := accounts.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: s.name}})
		if rest.IsAlreadyExists(err) {
			return nil // created meanwhile, by another manager perhaps
		}
		return err
	}
	err = create()
	if rest.IsNotFound(err) {
		_, nerr := rest.NewResources(s.b.root, rest.Namespaces, decode.Typed[api.Namespace]()).
			Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: ns}})
		if nerr != nil && !rest.IsAlreadyExists(nerr) {
			s.b.o.Logger.Warn().Err(nerr).Str("namespace", ns).Msg("cannot create the controllers' namespace")
		}
		err = create()
	}
	if err != nil {
		return fmt.Errorf("clientbuilder: creating ServiceAccount %s/%s: %w", ns, s.name, err)
	}
	s.b.o.Logger.Info().Str("serviceAccount", ns+"/"+s.name).Msg("created the controller's ServiceAccount")
	return nil
}
