package authdelegate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/kcmlab/kcm/clock"
)

// ErrInvalidToken: the apiserver reviewed the bearer token and did not
// authenticate it (k8s.io/apiserver's bearertoken "invalid bearer token").
var ErrInvalidToken = errors.New("invalid bearer token")

// ErrReviewFailed: a TokenReview or SubjectAccessReview was sent and got
// no usable answer (the apiserver unreachable, an error status such as
// 403 for a kcm without system:auth-delegator, an undecodable body). The
// request is refused and the failure logged as a warning.
var ErrReviewFailed = errors.New("review failed")

// Poster sends a JSON body to an absolute API path and returns the
// answer: kube/rest's Client.RawPost. Tests pass a fake.
type Poster interface {
	RawPost(ctx context.Context, path string, body []byte) ([]byte, error)
}

// tokenReviewPath is where TokenReviews are created.
const tokenReviewPath = "/apis/authentication.k8s.io/v1/tokenreviews"

type tokenReview struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Spec       tokenReviewSpec   `json:"spec"`
	Status     tokenReviewStatus `json:"status,omitzero"`
}

type tokenReviewSpec struct {
	Token string `json:"token"`
}

type tokenReviewStatus struct {
	Authenticated bool `json:"authenticated,omitempty"`
	User          struct {
		Username string              `json:"username,omitempty"`
		UID      string              `json:"uid,omitempty"`
		Groups   []string            `json:"groups,omitempty"`
		Extra    map[string][]string `json:"extra,omitempty"`
	} `json:"user,omitzero"`
	Error string `json:"error,omitempty"`
}

// tokenResult is one cached answer: a user, or a reviewed rejection.
type tokenResult struct {
	user User
	ok   bool
}

// tokenAuthenticator checks a bearer token with a TokenReview
// (k8s.io/apiserver's webhook token authenticator behind its token
// cache): both answers, authenticated and not, are cached for ttl; an
// error (the apiserver could not be asked) is never cached. Concurrent
// requests with the same token share one review, and the gate bounds
// the reviews of tokens nobody has seen.
type tokenAuthenticator struct {
	post  Poster
	ttl   time.Duration
	cache *ttlCache[tokenResult]
	gate  *gate
	group singleflight.Group
	clk   clock.Clock
	// reviewed is told of every TokenReview sent: its error and how long
	// it took (the count and the metrics).
	reviewed func(err error, took time.Duration)
}

func newTokenAuthenticator(post Poster, clk clock.Clock, ttl time.Duration, g *gate, reviewed func(error, time.Duration)) *tokenAuthenticator {
	if reviewed == nil {
		reviewed = func(error, time.Duration) {}
	}
	return &tokenAuthenticator{post: post, ttl: ttl, cache: newTTLCache[tokenResult](clk, DefaultCacheSize), gate: g,
		clk: clk, reviewed: reviewed}
}

// bearerToken returns the token of an "Authorization: Bearer <token>"
// header; other schemes and an empty token are no bearer token.
func bearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// authenticate implements authenticator.
func (a *tokenAuthenticator) authenticate(r *http.Request) (User, bool, error) {
	token, ok := bearerToken(r)
	if !ok {
		return User{}, false, nil
	}
	u, err := a.check(r.Context(), token)
	if err != nil {
		return User{}, false, err
	}
	r.Header.Del("Authorization") // as upstream: the handler never sees the token
	return u, true, nil
}

// check returns the token's user, ErrInvalidToken, or why it could not be
// reviewed.
func (a *tokenAuthenticator) check(ctx context.Context, token string) (User, error) {
	sum := sha256.Sum256([]byte(token))
	key := hex.EncodeToString(sum[:])
	if res, ok := a.cache.get(key); ok {
		return res.result()
	}
	v, err, _ := a.group.Do(key, func() (any, error) {
		if res, ok := a.cache.get(key); ok {
			return res, nil
		}
		res, err := a.review(ctx, token)
		if err != nil {
			return nil, err
		}
		a.cache.add(key, res, a.ttl)
		return res, nil
	})
	if err != nil {
		return User{}, err
	}
	return v.(tokenResult).result()
}

func (r tokenResult) result() (User, error) {
	if !r.ok {
		return User{}, ErrInvalidToken
	}
	return r.user, nil
}

// review sends one TokenReview through the gate.
func (a *tokenAuthenticator) review(ctx context.Context, token string) (tokenResult, error) {
	// The review outlives no request but is bounded on its own: a shared
	// review must not fail because the first of its callers left.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ReviewTimeout)
	defer cancel()
	release, err := a.gate.enter(ctx)
	if err != nil {
		return tokenResult{}, fmt.Errorf("TokenReview: %w", err)
	}
	defer release()
	body, err := json.Marshal(tokenReview{APIVersion: "authentication.k8s.io/v1", Kind: "TokenReview", Spec: tokenReviewSpec{Token: token}})
	if err != nil {
		return tokenResult{}, fmt.Errorf("TokenReview: %w", err)
	}
	start := a.clk.Now()
	data, err := a.post.RawPost(ctx, tokenReviewPath, body)
	a.reviewed(err, a.clk.Since(start))
	if err != nil {
		return tokenResult{}, fmt.Errorf("%w: TokenReview: %w", ErrReviewFailed, err)
	}
	var tr tokenReview
	if err := json.Unmarshal(data, &tr); err != nil {
		return tokenResult{}, fmt.Errorf("%w: TokenReview: decoding the answer: %w", ErrReviewFailed, err)
	}
	if !tr.Status.Authenticated {
		return tokenResult{}, nil
	}
	s := tr.Status.User
	return tokenResult{ok: true, user: User{Name: s.Username, UID: s.UID, Groups: s.Groups, Extra: s.Extra}}, nil
}
