package fakeapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/fakeapi"
	"github.com/kcmlab/kcm/kube/rest"
)

// getWith sends a GET with an Authorization header ("" for none) and
// returns the status code.
func getWith(t *testing.T, c *http.Client, url, authz string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// With Tokens, only a token issued since the last revocation is accepted;
// Unauthorized401 revokes them all, and the client's credentials recover
// by Invalidate (a refresh).
func TestTokensAndUnauthorized(t *testing.T) {
	tokens := fakeapi.NewTokens("s3cret")
	inj := fakeapi.NewInjector(1, fakeapi.Rates{fakeapi.Unauthorized401: 1}, 0)
	inj.SetEnabled(false)
	s := newServer(t, fakeapi.Options{Tokens: tokens, Faults: inj})
	creds := tokens.Credentials()
	authz, _ := creds.Authorization(context.Background())
	url := s.URL() + "/api/v1/pods"
	if code := getWith(t, http.DefaultClient, url, ""); code != 401 {
		t.Fatalf("no token: %d, want 401", code)
	}
	if code := getWith(t, http.DefaultClient, url, "Bearer s3cret-99"); code != 401 {
		t.Fatalf("a token never issued: %d, want 401", code)
	}
	if code := getWith(t, http.DefaultClient, url, authz); code != 200 {
		t.Fatalf("an issued token: %d, want 200", code)
	}
	inj.SetEnabled(true)
	if code := getWith(t, http.DefaultClient, url, authz); code != 401 {
		t.Fatalf("Unauthorized401: %d", code)
	}
	inj.SetEnabled(false)
	if code := getWith(t, http.DefaultClient, url, authz); code != 401 {
		t.Fatalf("a revoked token: %d, want 401", code)
	}
	creds.Invalidate()
	authz, _ = creds.Authorization(context.Background())
	if code := getWith(t, http.DefaultClient, url, authz); code != 200 {
		t.Fatalf("a refreshed token: %d, want 200", code)
	}
}

// ForbiddenWatch403 strikes watches only.
func TestForbiddenWatch(t *testing.T) {
	inj := fakeapi.NewInjector(1, fakeapi.Rates{fakeapi.ForbiddenWatch403: 1}, 0)
	s := newServer(t, fakeapi.Options{Faults: inj})
	if code, _ := get(t, s.URL()+"/api/v1/pods"); code != 200 {
		t.Fatalf("LIST: %d", code)
	}
	if code, l := get(t, s.URL()+"/api/v1/pods?watch=true"); code != 403 || l.Reason != "Forbidden" {
		t.Fatalf("WATCH: %d %s, want 403 Forbidden", code, l.Reason)
	}
}

// Redirect307 sends the client to another host, which counts what reaches
// it: kcm's client follows without credentials; a client that copies its
// Authorization header onto the redirect is caught.
func TestRedirectElsewhere(t *testing.T) {
	for _, useTLS := range []bool{false, true} {
		tokens := fakeapi.NewTokens("s3cret")
		inj := fakeapi.NewInjector(1, fakeapi.Rates{fakeapi.Redirect307: 1}, 0)
		s := newServer(t, fakeapi.Options{TLS: useTLS, Tokens: tokens, Redirects: true, Faults: inj})
		c, err := rest.NewClient(&rest.Config{Host: s.URL(), QPS: -1, Credentials: tokens.Credentials(),
			TLS: rest.TLSConfig{CAData: fakeapi.CAPEM()}}, rest.WithRetryPolicy(rest.RetryPolicy{MaxAttempts: 1}))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = listPods(ctx, c)
		cancel()
		c.CloseIdleConnections()
		if !rest.IsUnauthorized(err) {
			t.Fatalf("tls=%v: list redirected elsewhere: %v, want the other host's 401", useTLS, err)
		}
		if e := s.Elsewhere(); e.Requests != 1 || e.WithAuthorization != 0 || e.WithSecret != 0 {
			t.Fatalf("tls=%v: the other host received %+v, want one request without credentials", useTLS, e)
		}
		leaky := h2Client(t)
		leaky.CheckRedirect = func(req *http.Request, via []*http.Request) error {
			req.Header.Set("Authorization", via[0].Header.Get("Authorization"))
			return nil
		}
		getWith(t, leaky, s.URL()+"/api/v1/pods", "Bearer "+tokens.Issue())
		if e := s.Elsewhere(); e.WithAuthorization != 1 || e.WithSecret != 1 {
			t.Fatalf("tls=%v: a leaking client went unnoticed: %+v", useTLS, e)
		}
	}
}
