package clientcmd

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// rdRecorder is a server that must never see credentials: it records
// every Authorization header it receives.
type rdRecorder struct {
	mu   sync.Mutex
	auth []string
	hits int
}

func (r *rdRecorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.hits++
	if a := req.Header.Get("Authorization"); a != "" {
		r.auth = append(r.auth, a)
	}
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"gitVersion":"v0.0.0-elsewhere","kind":"PodList","metadata":{},"items":[]}`))
}

func (r *rdRecorder) seen() (hits int, auth []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hits, append([]string(nil), r.auth...)
}

// rdRedirector answers every request with a 302 to target+path and records
// the Authorization it was sent (it is the configured server: it should
// get credentials).
func rdRedirector(target string, rec *rdRecorder) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rec.mu.Lock()
		rec.hits++
		if a := req.Header.Get("Authorization"); a != "" {
			rec.auth = append(rec.auth, a)
		}
		rec.mu.Unlock()
		http.Redirect(w, req, target+req.URL.RequestURI(), http.StatusFound)
	})
}

// TestCredentialsNeverFollowRedirectsToOtherHosts checks that a redirect
// from the apiserver to another host, or from https to plain http, never
// carries the bearer token, basic-auth password or exec-plugin token there
// (CVE-2020-8559 is the Kubernetes precedent: credentials are bound to the
// configured server). A redirect to a path on the configured server keeps
// them: it is still the same server.
func TestCredentialsNeverFollowRedirectsToOtherHosts(t *testing.T) {
	plugin := kcWritePlugin(t, kcExecCredential(ExecAPIVersionV1, map[string]string{"token": "EXECSECRET"}), "", 0)
	creds := map[string]func(t *testing.T) rest.Credentials{
		"bearer": func(*testing.T) rest.Credentials { return rest.StaticToken("BEARERSECRET") },
		"basic":  func(*testing.T) rest.Credentials { return BasicAuth{Username: "u", Password: "BASICSECRET"} },
		"exec": func(t *testing.T) rest.Credentials {
			return kcNewExec(t, plugin, ExecAPIVersionV1, ExecOptions{})
		},
	}
	type setup struct {
		// start returns the configured server's URL, its CA (nil for
		// http) and the recorder of the host that must get nothing.
		start func(t *testing.T, configured *rdRecorder) (host string, ca []byte, other *rdRecorder)
		// sameOrigin: the redirect stays on the configured server.
		sameOrigin bool
	}
	setups := map[string]setup{
		"http to another host": {start: func(t *testing.T, configured *rdRecorder) (string, []byte, *rdRecorder) {
			other := &rdRecorder{}
			o := httptest.NewServer(other)
			t.Cleanup(o.Close)
			s := httptest.NewServer(rdRedirector(o.URL, configured))
			t.Cleanup(s.Close)
			return s.URL, nil, other
		}},
		"http to another port of the same host": {start: func(t *testing.T, configured *rdRecorder) (string, []byte, *rdRecorder) {
			other := &rdRecorder{}
			o := httptest.NewServer(other)
			t.Cleanup(o.Close)
			s := httptest.NewServer(rdRedirector(strings.Replace(o.URL, "127.0.0.1", "localhost", 1), configured))
			t.Cleanup(s.Close)
			return strings.Replace(s.URL, "127.0.0.1", "localhost", 1), nil, other
		}},
		"https downgraded to http": {start: func(t *testing.T, configured *rdRecorder) (string, []byte, *rdRecorder) {
			other := &rdRecorder{}
			o := httptest.NewServer(other)
			t.Cleanup(o.Close)
			s := httptest.NewTLSServer(rdRedirector(o.URL, configured))
			t.Cleanup(s.Close)
			return s.URL, rdCA(s), other
		}},
		"https to another https host": {start: func(t *testing.T, configured *rdRecorder) (string, []byte, *rdRecorder) {
			other := &rdRecorder{}
			o := httptest.NewTLSServer(other)
			t.Cleanup(o.Close)
			s := httptest.NewUnstartedServer(rdRedirector(o.URL, configured))
			s.TLS = o.TLS // one certificate, so one CA trusts both
			s.StartTLS()
			t.Cleanup(s.Close)
			return s.URL, rdCA(o), other
		}},
		"same server, another path": {sameOrigin: true, start: func(t *testing.T, configured *rdRecorder) (string, []byte, *rdRecorder) {
			var s *httptest.Server
			s = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				if strings.HasPrefix(req.URL.Path, "/moved") {
					configured.ServeHTTP(w, req)
					return
				}
				http.Redirect(w, req, s.URL+"/moved"+req.URL.RequestURI(), http.StatusFound)
			}))
			t.Cleanup(s.Close)
			return s.URL, nil, &rdRecorder{}
		}},
	}
	for sname, st := range setups {
		for cname, mk := range creds {
			t.Run(sname+"/"+cname, func(t *testing.T) {
				configured := &rdRecorder{}
				host, ca, other := st.start(t, configured)
				c, err := rest.NewClient(&rest.Config{Host: host, TLS: rest.TLSConfig{CAData: ca},
					Credentials: mk(t), QPS: -1, Source: "test"}, rest.WithRetryPolicy(rest.RetryPolicy{MaxAttempts: 1}))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(c.CloseIdleConnections)
				ctx := context.Background()
				_, getErr := c.RawGet(ctx, "/version")
				pods := rest.NewResources(c, rest.Pods, decode.Raw())
				_, listErr := pods.List(ctx, rest.ListOptions{})
				w, wsErr := pods.Watch(ctx, rest.WatchOptions{Transport: rest.WebSocket})
				if wsErr == nil {
					w.Close()
				}
				hits, auth := other.seen()
				if len(auth) > 0 {
					t.Errorf("the other host received credentials %q (get: %v, list: %v, websocket: %v)", auth, getErr, listErr, wsErr)
				}
				if st.sameOrigin {
					if _, a := configured.seen(); len(a) < 2 {
						t.Errorf("a redirect within the configured server lost its credentials: %d sent", len(a))
					}
					return
				}
				if hits == 0 {
					t.Errorf("the redirect was never followed (get: %v)", getErr)
				}
				if _, a := configured.seen(); len(a) < 2 {
					t.Errorf("the configured server got no credentials (%d): the test proves nothing", len(a))
				}
			})
		}
	}
}

// rdCA returns the PEM of s's self-signed certificate.
func rdCA(s *httptest.Server) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
}
