package clientbuilder_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl/clientbuilder"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// read gets ns1/cm1 with c.
func read(t *testing.T, c *rest.Client) error {
	t.Helper()
	_, err := rest.NewResources(c, rest.ConfigMaps, decode.Typed[api.ConfigMap]()).InNamespace("ns1").Get(context.Background(), "cm1")
	return err
}

// TestTokenFromTokenRequest: a controller's first request creates its
// missing ServiceAccount in kube-system and asks the TokenRequest API, with
// the manager's own credentials, for a one-hour token without audiences
// (the apiserver's own) or bound object; the request carries that token,
// nothing of the manager's.
func TestTokenFromTokenRequest(t *testing.T) {
	clk := clock.NewFake(t0)
	f, root := newFakeAPI(t, clk)
	b := clientbuilder.New(root, clientbuilder.Options{Clock: clk})
	defer b.Close()
	if err := read(t, b.Client("replicaset-controller", "kcm/v0 (replicaset-controller)", -1, 0)); err != nil {
		t.Fatal(err)
	}
	accounts, tokens, readers := f.snapshot()
	if !slices.Equal(accounts, []string{"replicaset-controller"}) {
		t.Errorf("ServiceAccounts created: %q, want [replicaset-controller]", accounts)
	}
	if len(tokens) != 1 {
		t.Fatalf("%d TokenRequests, want 1: %+v", len(tokens), tokens)
	}
	tr := tokens[0]
	if tr.Account != "replicaset-controller" || tr.Authorization != "Bearer manager" {
		t.Errorf("TokenRequest for %q by %q, want replicaset-controller by the manager", tr.Account, tr.Authorization)
	}
	if secs, _ := tr.Spec["expirationSeconds"].(float64); secs != 3600 || len(tr.Spec) != 1 {
		t.Errorf("TokenRequest spec %v, want only expirationSeconds 3600 (no audiences, no bound object)", tr.Spec)
	}
	if !slices.Equal(readers, []string{"Bearer replicaset-controller-1"}) {
		t.Errorf("the read carried %q, want the controller's token", readers)
	}
	// An existing account is not created again.
	if err := read(t, b.Client("deployment-controller", "kcm/v0 (deployment-controller)", -1, 0)); err != nil {
		t.Fatal(err)
	}
	if accounts, _, _ := f.snapshot(); !slices.Equal(accounts, []string{"replicaset-controller", "deployment-controller"}) {
		t.Errorf("ServiceAccounts created: %q", accounts)
	}
}

// TestRefreshBeforeExpiry: a token is replaced once 80 % of its lifetime
// has passed, not before; a lifetime under 10 minutes (the apiserver's
// clock ahead of kcm's) counts as 10 minutes.
func TestRefreshBeforeExpiry(t *testing.T) {
	for _, tc := range []struct {
		name       string
		expiration time.Duration // asked for
		granted    time.Duration // what the fake's expirationTimestamp says; 0: as asked
		refresh    time.Duration // when the next TokenRequest is due
	}{
		{name: "one hour", refresh: 48 * time.Minute},
		{name: "ten minutes asked", expiration: 10 * time.Minute, refresh: 8 * time.Minute},
		{name: "skewed: five minutes granted", granted: 5 * time.Minute, refresh: 8 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := clock.NewFake(t0)
			f, root := newFakeAPI(t, clk)
			f.lifetime = tc.granted
			b := clientbuilder.New(root, clientbuilder.Options{Clock: clk, Expiration: tc.expiration})
			defer b.Close()
			c := b.Client("endpoint-controller", "kcm/v0 (endpoint-controller)", -1, 0)
			if err := read(t, c); err != nil {
				t.Fatal(err)
			}
			clk.Step(tc.refresh - time.Second)
			if err := read(t, c); err != nil {
				t.Fatal(err)
			}
			clk.Step(time.Second)
			if err := read(t, c); err != nil {
				t.Fatal(err)
			}
			_, tokens, readers := f.snapshot()
			want := []string{"Bearer endpoint-controller-1", "Bearer endpoint-controller-1", "Bearer endpoint-controller-2"}
			if len(tokens) != 2 || !slices.Equal(readers, want) {
				t.Errorf("%d TokenRequests, reads with %q; want 2 and %q", len(tokens), readers, want)
			}
		})
	}
}

// TestOneTokenPerServiceAccount: controllers that share an account share
// its token (the node lifecycle and taint eviction controllers both ask
// for "node-controller"); each account has its own.
func TestOneTokenPerServiceAccount(t *testing.T) {
	clk := clock.NewFake(t0)
	f, root := newFakeAPI(t, clk)
	b := clientbuilder.New(root, clientbuilder.Options{Clock: clk})
	defer b.Close()
	for _, c := range []*rest.Client{
		b.Client("node-controller", "kcm/v0 (node-controller)", -1, 0),
		b.Client("node-controller", "kcm/v0 (node-controller)", 5, 10),
		b.Client("generic-garbage-collector", "kcm/v0 (generic-garbage-collector)", -1, 0),
	} {
		if err := read(t, c); err != nil {
			t.Fatal(err)
		}
	}
	_, tokens, readers := f.snapshot()
	want := []string{"Bearer node-controller-1", "Bearer node-controller-1", "Bearer generic-garbage-collector-2"}
	if len(tokens) != 2 || !slices.Equal(readers, want) {
		t.Errorf("%d TokenRequests, reads with %q; want 2 and %q", len(tokens), readers, want)
	}
	if b.TokenSource("node-controller") != b.TokenSource("node-controller") {
		t.Error("two TokenSources for one ServiceAccount")
	}
}

// TestUnauthorizedGetsANewToken: a 401 drops the token and the request
// is sent once more with a new one.
func TestUnauthorizedGetsANewToken(t *testing.T) {
	clk := clock.NewFake(t0)
	f, root := newFakeAPI(t, clk)
	f.revoked["Bearer podgc-1"] = true
	b := clientbuilder.New(root, clientbuilder.Options{Clock: clk})
	defer b.Close()
	if err := read(t, b.Client("podgc", "kcm/v0 (pod-garbage-collector)", -1, 0)); err != nil {
		t.Fatal(err)
	}
	if _, tokens, readers := f.snapshot(); len(tokens) != 2 || !slices.Equal(readers, []string{"Bearer podgc-1", "Bearer podgc-2"}) {
		t.Errorf("%d TokenRequests, reads with %q; want 2, the second read with the new token", len(tokens), readers)
	}
}

// TestFailedRefreshKeepsTheTokenUntilItExpires: when the TokenRequest
// fails, the current token is used while the apiserver accepts it, and
// the request fails after that; the ServiceAccount's namespace is created
// when it is missing.
func TestFailedRefreshKeepsTheTokenUntilItExpires(t *testing.T) {
	clk := clock.NewFake(t0)
	f, root := newFakeAPI(t, clk)
	f.namespaceMissing = true
	b := clientbuilder.New(root, clientbuilder.Options{Clock: clk})
	defer b.Close()
	c := b.Client("namespace-controller", "kcm/v0 (namespace-controller)", -1, 0)
	if err := read(t, c); err != nil {
		t.Fatal(err)
	}
	f.set(func(f *fakeAPI) { f.failTokens = true })
	clk.Step(59 * time.Minute)
	if err := read(t, c); err != nil {
		t.Fatalf("a refresh failed before the token expired: %v", err)
	}
	clk.Step(time.Minute)
	err := read(t, c)
	if !errors.Is(err, rest.ErrForbidden) {
		t.Fatalf("after the expiry: %v, want the TokenRequest's 403", err)
	}
	accounts, tokens, readers := f.snapshot()
	if !slices.Equal(accounts, []string{"namespace-controller"}) || len(tokens) != 3 || len(readers) != 2 {
		t.Errorf("accounts %q, %d TokenRequests, reads %q; want the account created, 3 and 2", accounts, len(tokens), readers)
	}
}

// TestConcurrentRequestsShareOneTokenRequest: requests that find no token
// at once wait for one TokenRequest instead of each making its own.
func TestConcurrentRequestsShareOneTokenRequest(t *testing.T) {
	clk := clock.NewFake(t0)
	f, root := newFakeAPI(t, clk)
	b := clientbuilder.New(root, clientbuilder.Options{Clock: clk})
	defer b.Close()
	c := b.Client("statefulset-controller", "kcm/v0 (statefulset-controller)", -1, 0)
	errs := make(chan error, 20)
	for range cap(errs) {
		go func() { errs <- read(t, c) }()
	}
	for range cap(errs) {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if _, tokens, readers := f.snapshot(); len(tokens) != 1 || len(readers) != cap(errs) {
		t.Errorf("%d TokenRequests for %d reads, want 1 for %d", len(tokens), len(readers), cap(errs))
	}
}
