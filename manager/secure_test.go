package manager

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/kcmlab/kcm/testenv"
)

// testClients is a client CA and a certificate it signed for a member of
// system:masters: the tests that read kcm's secure port without a
// cluster start kcm with --client-ca-file and present the certificate,
// which kcm authorizes without asking anyone (AlwaysAllowGroups), as
// kube-controller-manager does.
var testClients = sync.OnceValues(func() (*testPKI, error) {
	ca, err := testenv.NewCA("kcm-manager-test-ca")
	if err != nil {
		return nil, err
	}
	admin, _, _, err := ca.ClientCertificate("kcm-test-admin", "system:masters")
	if err != nil {
		return nil, err
	}
	return &testPKI{ca: ca, admin: admin}, nil
})

type testPKI struct {
	ca    *testenv.CA
	admin tls.Certificate
}

func mustTestClients(t testing.TB) *testPKI {
	t.Helper()
	p, err := testClients()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// trustTestClients points o's --client-ca-file at the test CA.
func trustTestClients(t testing.TB, o *Options) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "client-ca.crt")
	if err := os.WriteFile(path, mustTestClients(t).ca.CertPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	o.Auth.ClientCAFile = path
}

// adminTLS is the TLS configuration of a client of kcm's port that
// presents the system:masters certificate (kcm's serving certificate is
// self-signed: not verified).
func adminTLS(t testing.TB) *tls.Config {
	return &tls.Config{InsecureSkipVerify: true, Certificates: []tls.Certificate{mustTestClients(t).admin}}
}

// getWith reads url from kcm's port over TLS as cfg's client, with the
// request headers hdr.
func getWith(t testing.TB, cfg *tls.Config, url string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
	defer c.CloseIdleConnections()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// anonymousGet reads url without credentials.
func anonymousGet(t testing.TB, url string) (*http.Response, string) {
	t.Helper()
	return getWith(t, &tls.Config{InsecureSkipVerify: true}, url, nil)
}

// TestSecurePortWithoutDelegation: with no --authentication-kubeconfig
// and --authorization-kubeconfig outside a pod, as kube-controller-manager
// kcm asks nobody: the health paths are open to anyone, system:masters
// (by a certificate of --client-ca-file) is allowed everything, and every
// other request is refused — 403 for anonymous and for other users, 401
// for a certificate of another CA. A bearer token is not examined (no
// TokenReview client): anonymous.
func TestSecurePortWithoutDelegation(t *testing.T) {
	url, stop := runIdle(t, func(o *Options) { o.EnablePipelineView = true }, nil)
	defer func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
	}()
	other, err := testenv.NewCA("another-ca")
	if err != nil {
		t.Fatal(err)
	}
	stranger, _, _, err := other.ClientCertificate("stranger", "system:masters")
	if err != nil {
		t.Fatal(err)
	}
	viewer, _, _, err := mustTestClients(t).ca.ClientCertificate("viewer", "viewers")
	if err != nil {
		t.Fatal(err)
	}
	tlsWith := func(c tls.Certificate) *tls.Config {
		return &tls.Config{InsecureSkipVerify: true, Certificates: []tls.Certificate{c}}
	}
	anon := &tls.Config{InsecureSkipVerify: true}
	for _, tc := range []struct {
		name string
		cfg  *tls.Config
		hdr  map[string]string
		path string
		code int
	}{
		{"anonymous /healthz", anon, nil, "/healthz", 200},
		{"anonymous /readyz", anon, nil, "/readyz", 200},
		{"anonymous /livez", anon, nil, "/livez", 200},
		{"anonymous /metrics", anon, nil, "/metrics", 403},
		{"anonymous /configz", anon, nil, "/configz", 403},
		{"anonymous pipeline view", anon, nil, "/debug/pipeline", 403},
		{"anonymous with a bearer token", anon, map[string]string{"Authorization": "Bearer abc"}, "/metrics", 403},
		{"system:masters /metrics", adminTLS(t), nil, "/metrics", 200},
		{"system:masters /configz", adminTLS(t), nil, "/configz", 200},
		{"system:masters pipeline view", adminTLS(t), nil, "/debug/pipeline", 200},
		{"another user /metrics", tlsWith(viewer), nil, "/metrics", 403},
		{"another user /healthz", tlsWith(viewer), nil, "/healthz", 200},
		{"a certificate of another CA", tlsWith(stranger), nil, "/metrics", 401},
		{"a certificate of another CA, /healthz", tlsWith(stranger), nil, "/healthz", 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := getWith(t, tc.cfg, url+tc.path, tc.hdr)
			if resp.StatusCode != tc.code {
				t.Errorf("GET %s: %d %.200q, want %d", tc.path, resp.StatusCode, body, tc.code)
			}
		})
	}
}

// TestConfigz: /configz serves the running configuration under
// "componentconfig", as kube-controller-manager's, with the flags' values.
func TestConfigz(t *testing.T) {
	url, stop := runIdle(t, func(o *Options) { o.KubeAPIQPS = 42 }, nil)
	defer func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
	}()
	resp, body := tlsGet(t, url+"/configz")
	if resp.StatusCode != 200 {
		t.Fatalf("GET /configz: %d %q", resp.StatusCode, body)
	}
	var got struct {
		ComponentConfig struct {
			KubeAPIQPS float32
			Auth       struct{ ClientCAFile string }
		} `json:"componentconfig"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatalf("GET /configz: %v\n%s", err, body)
	}
	if got.ComponentConfig.KubeAPIQPS != 42 || got.ComponentConfig.Auth.ClientCAFile == "" {
		t.Errorf("GET /configz: %+v\n%s", got.ComponentConfig, body)
	}
}
