package authdelegate

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
)

// t0 is the fake clocks' start.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// errDown is what fakeAPI answers while down.
var errDown = errors.New("connection refused")

// fakeAPI answers TokenReviews from tokens (token → user; absent: not
// authenticated) and SubjectAccessReviews from allow (user → paths), and
// counts both. While down it answers every review with errDown.
type fakeAPI struct {
	mu      sync.Mutex
	tokens  map[string]User
	allow   map[string][]string
	deny    map[string]bool // users explicitly denied (status.denied)
	down    bool
	reviews map[string]int // path → count
}

func newFakeAPI() *fakeAPI {
	return &fakeAPI{tokens: map[string]User{}, allow: map[string][]string{}, deny: map[string]bool{}, reviews: map[string]int{}}
}

func (f *fakeAPI) setDown(down bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down = down
}

func (f *fakeAPI) count(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reviews[path]
}

func (f *fakeAPI) RawPost(_ context.Context, path string, body []byte) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reviews[path]++
	if f.down {
		return nil, errDown
	}
	switch path {
	case tokenReviewPath:
		var tr tokenReview
		if err := json.Unmarshal(body, &tr); err != nil {
			return nil, err
		}
		if u, ok := f.tokens[tr.Spec.Token]; ok {
			tr.Status.Authenticated = true
			tr.Status.User.Username, tr.Status.User.Groups = u.Name, u.Groups
		}
		return json.Marshal(tr)
	case subjectAccessReviewPath:
		var r subjectAccessReview
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		for _, p := range f.allow[r.Spec.User] {
			if p == r.Spec.NonResourceAttributes.Path {
				r.Status.Allowed = true
			}
		}
		r.Status.Denied = !r.Status.Allowed && f.deny[r.Spec.User]
		return json.Marshal(r)
	}
	return nil, errors.New("unexpected path " + path)
}

// testDelegate is a Delegate on api with the default TTLs (10 s), a
// client CA and a front-proxy CA, with its own fake clock.
type testDelegate struct {
	*Delegate
	clk   *clock.Fake
	api   *fakeAPI
	token *tokenAuthenticator
	sar   *sarAuthorizer
	proxy *headerAuthenticator
}

func newTestDelegate(t *testing.T, api *fakeAPI, burst int, clientCA, proxyCA []byte) *testDelegate {
	t.Helper()
	clk := clock.NewFake(t0)
	d := &Delegate{log: zerolog.Nop(), clk: clk}
	td := &testDelegate{Delegate: d, clk: clk, api: api}
	ca, pca := &caBundle{}, &caBundle{}
	if err := ca.set(clientCA); err != nil {
		t.Fatal(err)
	}
	if err := pca.set(proxyCA); err != nil {
		t.Fatal(err)
	}
	td.proxy = &headerAuthenticator{ca: pca, clk: clk}
	td.proxy.cfg.Store(&headerConfig{allowedNames: []string{"front-proxy"}, usernameHeaders: []string{"X-Remote-User"},
		groupHeaders: []string{"X-Remote-Group"}, extraHeaderPrefixes: []string{"X-Remote-Extra-"}})
	td.token = newTokenAuthenticator(api, clk, DefaultTokenCacheTTL, newGate(clk, DefaultReviewQPS, burst, DefaultReviewInFlight),
		func(error, time.Duration) { d.tokenReviews.Add(1) })
	td.sar = newSARAuthorizer(api, clk, DefaultAuthorizedTTL, DefaultUnauthorizedTTL,
		newGate(clk, DefaultReviewQPS, burst, DefaultReviewInFlight), func(error, time.Duration) { d.sars.Add(1) })
	paths, err := newPathMatcher(DefaultAlwaysAllowPaths)
	if err != nil {
		t.Fatal(err)
	}
	d.authn = chain{td.proxy, &certAuthenticator{ca: ca, clk: clk}, td.token}
	d.authz = union{privilegedGroups{PrivilegedGroup}, alwaysAllowPaths{paths}, td.sar}
	return td
}

// serve answers every allowed request with 200 "ok" and the user the
// handler saw in X-Remote-User (which must be empty: headers are
// stripped).
func (td *testDelegate) serve(r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	td.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Seen-Remote-User", r.Header.Get("X-Remote-User"))
		w.Header().Set("Seen-Authorization", r.Header.Get("Authorization"))
		_, _ = w.Write([]byte("ok"))
	})).ServeHTTP(w, r)
	return w
}

// request is a GET of path with the bearer token (if any) and the client
// certificate chain (if any).
func request(path, token string, certs ...tls.Certificate) *http.Request {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	if len(certs) > 0 {
		var chain []*x509.Certificate
		for _, c := range certs {
			leaf, err := x509.ParseCertificate(c.Certificate[0])
			if err != nil {
				panic(err)
			}
			chain = append(chain, leaf)
		}
		r.TLS = &tls.ConnectionState{PeerCertificates: chain}
	}
	return r
}
