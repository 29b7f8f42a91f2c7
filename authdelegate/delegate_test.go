package authdelegate

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/kcmlab/kcm/testenv"
)

// pki is a client CA and a front-proxy CA with their certificates.
type pki struct {
	clientCA, proxyCA               *testenv.CA
	admin, alice, proxy, otherProxy tls.Certificate
}

func newPKI(t *testing.T) *pki {
	t.Helper()
	p := &pki{}
	var err error
	if p.clientCA, err = testenv.NewCA("client-ca"); err != nil {
		t.Fatal(err)
	}
	if p.proxyCA, err = testenv.NewCA("front-proxy-ca"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dst        *tls.Certificate
		ca         *testenv.CA
		cn, groups string
	}{
		{&p.admin, p.clientCA, "admin", "system:masters"},
		{&p.alice, p.clientCA, "alice", "team"},
		{&p.proxy, p.proxyCA, "front-proxy", ""},
		{&p.otherProxy, p.proxyCA, "someone-else", ""},
	} {
		var groups []string
		if c.groups != "" {
			groups = []string{c.groups}
		}
		if *c.dst, _, _, err = c.ca.ClientCertificate(c.cn, groups...); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// TestRules: each way in, and each way refused, with the HTTP answer
// kube-controller-manager gives.
func TestRules(t *testing.T) {
	p := newPKI(t)
	api := newFakeAPI()
	api.tokens["good"] = User{Name: "bob", Groups: []string{"system:authenticated"}}
	api.tokens["root"] = User{Name: "root", Groups: []string{"system:masters"}}
	api.allow["bob"] = []string{"/metrics"}
	api.allow["alice"] = []string{"/metrics"}
	api.allow["carol"] = []string{"/carol"}
	api.allow["system:anonymous"] = []string{"/public"}
	td := newTestDelegate(t, api, DefaultReviewBurst, p.clientCA.CertPEM(), p.proxyCA.CertPEM())
	proxied := func(path, user string, cert tls.Certificate) func() *testRequest {
		return func() *testRequest {
			r := request(path, "", cert)
			r.Header.Set("X-Remote-User", user)
			return &testRequest{r}
		}
	}
	for _, tc := range []struct {
		name string
		req  func() *testRequest
		code int
	}{
		{"anonymous health", plain("/healthz", ""), 200},
		{"anonymous readyz", plain("/readyz", ""), 200},
		{"anonymous livez", plain("/livez", ""), 200},
		{"anonymous metrics", plain("/metrics", ""), 403},
		{"anonymous, allowed by RBAC", plain("/public", ""), 200},
		{"token allowed", plain("/metrics", "good"), 200},
		{"token, other path", plain("/configz", "good"), 403},
		{"token refused", plain("/metrics", "bad"), 401},
		{"token refused, health path", plain("/healthz", "bad"), 401},
		{"system:masters token, no review", plain("/configz", "root"), 200},
		{"client certificate allowed", withCert("/metrics", p.alice), 200},
		{"client certificate, system:masters", withCert("/debug/pprof/", p.admin), 200},
		{"front-proxy certificate as a client certificate", withCert("/metrics", p.proxy), 401},
		{"front proxy names carol", proxied("/carol", "carol", p.proxy), 200},
		{"a proxy not allowed", proxied("/carol", "carol", p.otherProxy), 401},
		{"a client certificate cannot act as proxy: alice", proxied("/carol", "carol", p.alice), 403},
		{"headers without a certificate: anonymous", proxied2("/carol", "carol"), 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := td.serve(tc.req().r)
			if w.Code != tc.code {
				t.Errorf("%d %q, want %d", w.Code, w.Body.String(), tc.code)
			}
			if w.Code == 200 && (w.Header().Get("Seen-Remote-User") != "" || w.Header().Get("Seen-Authorization") != "") {
				t.Errorf("the handler saw the credentials headers: %v", w.Header())
			}
		})
	}
	if got := api.count(subjectAccessReviewPath); got == 0 {
		t.Error("no SubjectAccessReview was sent")
	}
}

type testRequest struct{ r *http.Request }

func plain(path, token string) func() *testRequest {
	return func() *testRequest { return &testRequest{request(path, token)} }
}

func withCert(path string, c tls.Certificate) func() *testRequest {
	return func() *testRequest { return &testRequest{request(path, "", c)} }
}

// proxied2: the front-proxy headers from a client with no certificate
// at all; they are ignored (anonymous).
func proxied2(path, user string) func() *testRequest {
	return func() *testRequest {
		r := request(path, "")
		r.Header.Set("X-Remote-User", user)
		r.Header.Set("X-Remote-Group", "system:masters")
		return &testRequest{r}
	}
}

// TestTokenCache: an authenticated answer and a refusal are each cached
// for --authentication-token-webhook-cache-ttl by the injected clock, and
// asked again after it; an error is not cached.
func TestTokenCache(t *testing.T) {
	api := newFakeAPI()
	api.tokens["good"] = User{Name: "root", Groups: []string{"system:masters"}}
	td := newTestDelegate(t, api, DefaultReviewBurst, nil, nil)
	get := func(token string) int { return td.serve(request("/metrics", token)).Code }
	for _, tc := range []struct {
		token   string
		code    int
		step    time.Duration
		reviews int // TokenReviews so far, after the request
	}{
		{"good", 200, 0, 1},
		{"good", 200, DefaultTokenCacheTTL - time.Nanosecond, 1}, // still cached
		{"good", 200, time.Nanosecond, 2},                        // aged out: asked again
		{"bad", 401, 0, 3},
		{"bad", 401, DefaultTokenCacheTTL - time.Nanosecond, 3}, // the refusal is cached too
		{"bad", 401, time.Nanosecond, 4},
	} {
		td.clk.Step(tc.step)
		if code := get(tc.token); code != tc.code {
			t.Errorf("token %q after %v: %d, want %d", tc.token, tc.step, code, tc.code)
		}
		if n := api.count(tokenReviewPath); n != tc.reviews {
			t.Errorf("token %q after %v: %d TokenReviews, want %d", tc.token, tc.step, n, tc.reviews)
		}
	}
	api.setDown(true)
	td.clk.Step(DefaultTokenCacheTTL)
	for i := range 3 {
		if code := get("good"); code != 401 {
			t.Errorf("apiserver down, request %d: %d, want 401", i, code)
		}
	}
	if n := api.count(tokenReviewPath); n != 7 {
		t.Errorf("apiserver down: %d TokenReviews in all, want 7 (errors are not cached)", n)
	}
	api.setDown(false)
	if code := get("good"); code != 200 {
		t.Errorf("apiserver back: %d, want 200", code)
	}
}

// TestAccessCache: an allowed answer is cached for the authorized TTL, a
// refusal for the unauthorized TTL, an error never; with the apiserver
// down a cached allow lasts its TTL and then nothing gets in (fail
// closed).
func TestAccessCache(t *testing.T) {
	p := newPKI(t)
	api := newFakeAPI()
	api.allow["alice"] = []string{"/metrics"}
	td := newTestDelegate(t, api, DefaultReviewBurst, p.clientCA.CertPEM(), nil)
	td.sar.authorizedTTL, td.sar.deniedTTL = 30*time.Second, 5*time.Second
	get := func(path string) int { return td.serve(request(path, "", p.alice)).Code }
	for _, tc := range []struct {
		path    string
		step    time.Duration
		code    int
		reviews int
	}{
		{"/metrics", 0, 200, 1},
		{"/metrics", 30*time.Second - time.Nanosecond, 200, 1},
		{"/metrics", time.Nanosecond, 200, 2},
		{"/configz", 0, 403, 3},
		{"/configz", 5*time.Second - time.Nanosecond, 403, 3},
		{"/configz", time.Nanosecond, 403, 4},
	} {
		td.clk.Step(tc.step)
		if code := get(tc.path); code != tc.code {
			t.Errorf("%s after %v: %d, want %d", tc.path, tc.step, code, tc.code)
		}
		if n := api.count(subjectAccessReviewPath); n != tc.reviews {
			t.Errorf("%s after %v: %d SubjectAccessReviews, want %d", tc.path, tc.step, n, tc.reviews)
		}
	}
	// The allow of /metrics was cached at the last step but 2; it has
	// 30 s - 5 s left. The apiserver goes away.
	api.setDown(true)
	td.clk.Step(25*time.Second - time.Nanosecond)
	if code := get("/metrics"); code != 200 {
		t.Errorf("apiserver down, allow cached: %d, want 200", code)
	}
	td.clk.Step(time.Nanosecond)
	for i := range 3 {
		if code := get("/metrics"); code != 403 {
			t.Errorf("apiserver down, cached allow aged out, request %d: %d, want 403", i, code)
		}
	}
	if code := get("/healthz"); code != 200 {
		t.Errorf("apiserver down: /healthz %d, want 200", code)
	}
}

// TestReviewFlood: distinct random tokens, each unknown, cost at most the
// gate's burst of TokenReviews while the clock stands still, and the
// refill rate's worth per second after; every one of them is refused.
func TestReviewFlood(t *testing.T) {
	api := newFakeAPI()
	const burst = 50
	td := newTestDelegate(t, api, burst, nil, nil)
	for i := range 1000 {
		if code := td.serve(request("/metrics", fmt.Sprintf("random-%d", i))).Code; code != 401 {
			t.Fatalf("random token %d: %d, want 401", i, code)
		}
	}
	if n := api.count(tokenReviewPath); n != burst {
		t.Errorf("1000 random tokens, clock still: %d TokenReviews, want %d (the burst)", n, burst)
	}
	td.clk.Step(time.Second)
	for i := range 1000 {
		td.serve(request("/metrics", fmt.Sprintf("again-%d", i)))
	}
	// The bucket refills at 200 a second, up to the burst.
	if n := api.count(tokenReviewPath); n != 2*burst {
		t.Errorf("one second later: %d TokenReviews, want %d", n, 2*burst)
	}
}
