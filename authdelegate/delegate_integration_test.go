//go:build !nocluster

package authdelegate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/clientcmd"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// notInCluster is the InCluster of a test: never in a pod.
func notInCluster() (*rest.Config, error) { return nil, clientcmd.ErrNotInCluster }

// newOnCluster is New with both kubeconfigs pointing at cl, with the
// options edited by edit and the given clock.
func newOnCluster(t *testing.T, cl *testenv.Cluster, clk clock.Clock, edit func(*Options)) *Delegate {
	t.Helper()
	o := NewOptions()
	o.AuthenticationKubeconfig, o.AuthorizationKubeconfig = cl.KubeconfigPath(), cl.KubeconfigPath()
	if edit != nil {
		edit(&o)
	}
	d, err := New(context.Background(), Config{Options: o, Clock: clk, Logger: zerolog.Nop(), InCluster: notInCluster})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}

// code is the answer of d's handler to a GET of path with the token.
func code(d *Delegate, path, token string) int {
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	d.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })).ServeHTTP(w, r)
	return w.Code
}

// TestFailsClosedWhenTheAPIServerStops: on a real apiserver, a token
// allowed get on /metrics reads it; then the apiserver stops. The cached
// answers keep that one request working until they age out on the
// injected clock — the SubjectAccessReview's after
// --authorization-webhook-cache-authorized-ttl (403), the TokenReview's
// after --authentication-token-webhook-cache-ttl (401) — and a token
// never seen before is refused at once. The health paths stay open.
func TestFailsClosedWhenTheAPIServerStops(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cl, err := testenv.Start(ctx, testenv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Stop()
	ns := "default"
	known := cl.ServiceAccountToken(t, ns, "known")
	fresh := cl.ServiceAccountToken(t, ns, "fresh")
	for _, sa := range []string{"known", "fresh"} {
		cl.GrantNonResource(t, "metrics-"+sa, testenv.Subject{Kind: "ServiceAccount", Name: sa, Namespace: ns}, "get", "/metrics")
	}
	clk := clock.NewFake(time.Now())
	d := newOnCluster(t, cl, clk, func(o *Options) {
		o.TokenCacheTTL, o.AuthorizedTTL = time.Minute, 10*time.Second
	})
	if got := code(d, "/metrics", known); got != http.StatusOK {
		t.Fatalf("apiserver up, allowed token: %d, want 200", got)
	}
	if err := cl.StopAPIServer(); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		advance time.Duration
		token   string
		path    string
		want    int
	}{
		{0, known, "/metrics", 200},                                // both answers cached
		{0, fresh, "/metrics", 401},                                // never seen: the TokenReview fails
		{0, "", "/healthz", 200},                                   // always allowed
		{10*time.Second - time.Nanosecond, known, "/metrics", 200}, // the allow still cached
		{time.Nanosecond, known, "/metrics", 403},                  // the allow aged out; the SubjectAccessReview fails
		{0, known, "/metrics", 403},                                // and is not cached: still refused
		{50 * time.Second, known, "/metrics", 401},                 // the token's review aged out too
		{0, "", "/metrics", 403},                                   // anonymous
		{0, "", "/livez", 200},
	} {
		clk.Step(step.advance)
		if got := code(d, step.path, step.token); got != step.want {
			t.Errorf("apiserver stopped, after %v more, %s with token %.8q…: %d, want %d", step.advance, step.path, step.token, got, step.want)
		}
	}
}

// TestRandomTokenFloodIsBounded: 10 000 requests, each with a random
// bearer token, from 50 clients at once, against the real apiserver: every
// one is refused (401), and the apiserver receives at most
// DefaultReviewBurst TokenReviews while the injected clock stands still —
// counted both by kcm and by kube-apiserver's own
// apiserver_request_total.
func TestRandomTokenFloodIsBounded(t *testing.T) {
	cl := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	before, err := cl.APIRequests(ctx, "POST", "authentication.k8s.io", "tokenreviews")
	if err != nil {
		t.Fatal(err)
	}
	d := newOnCluster(t, cl, clock.NewFake(time.Now()), nil)
	const requests, clients = 10000, 50
	codes := make(chan int, requests)
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for range requests / clients {
				b := make([]byte, 16)
				_, _ = rand.Read(b)
				codes <- code(d, "/metrics", hex.EncodeToString(b))
			}
		})
	}
	wg.Wait()
	close(codes)
	refused := 0
	for c := range codes {
		if c == http.StatusUnauthorized {
			refused++
		}
	}
	if refused != requests {
		t.Errorf("%d of %d random tokens refused with 401", refused, requests)
	}
	after, err := cl.APIRequests(ctx, "POST", "authentication.k8s.io", "tokenreviews")
	if err != nil {
		t.Fatal(err)
	}
	sent, _ := d.Reviews()
	t.Logf("%d requests with random tokens: %d TokenReviews sent by kcm, %d served by kube-apiserver", requests, sent, after-before)
	if sent > DefaultReviewBurst || after-before > DefaultReviewBurst {
		t.Errorf("%d requests with random tokens cost %d TokenReviews (kcm) / %d (kube-apiserver); the bound is %d",
			requests, sent, after-before, DefaultReviewBurst)
	}
	if after-before != int(sent) {
		t.Errorf("kcm sent %d TokenReviews, kube-apiserver served %d", sent, after-before)
	}
}

// TestInAPodTheServiceAccountIsUsed: with neither kubeconfig flag, in a
// pod (InCluster answers), the pod's config asks the apiserver, as
// kube-controller-manager's does: a token allowed get on /metrics reads
// it, another is forbidden; outside a pod no token is looked at
// (anonymous: 403).
func TestInAPodTheServiceAccountIsUsed(t *testing.T) {
	cl := testenv.Shared(t)
	ns := cl.Namespace(t)
	reader := cl.ServiceAccountToken(t, ns, "reader")
	other := cl.ServiceAccountToken(t, ns, "other")
	cl.GrantNonResource(t, "metrics-"+ns, testenv.Subject{Kind: "ServiceAccount", Name: "reader", Namespace: ns}, "get", "/metrics")
	inPod, err := New(context.Background(), Config{Options: NewOptions(), Clock: clock.NewFake(time.Now()), Logger: zerolog.Nop(),
		InCluster: func() (*rest.Config, error) { return cl.Config(), nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(inPod.Close)
	outside, err := New(context.Background(), Config{Options: NewOptions(), Logger: zerolog.Nop(), InCluster: notInCluster})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		d     *Delegate
		token string
		want  int
	}{
		{"in a pod, allowed", inPod, reader, 200},
		{"in a pod, not allowed", inPod, other, 403},
		{"in a pod, no token", inPod, "", 403},
		{"outside, allowed token", outside, reader, 403},
	} {
		if got := code(tc.d, "/metrics", tc.token); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}
