//go:build !nocluster

package manager

import (
	"crypto/tls"
	"net/http"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// bearerTransport adds a bearer token to every request.
type bearerTransport struct {
	token string
	next  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func bearer(token string, next *http.Transport) http.RoundTripper {
	return bearerTransport{token, next}
}

// adminToken is the cluster's bearer token of a system:masters member.
func adminToken(t testing.TB, cl *testenv.Cluster) string {
	t.Helper()
	tok, ok := cl.Config().Credentials.(rest.StaticToken)
	if !ok {
		t.Fatalf("testenv's credentials are %T, not a static token", cl.Config().Credentials)
	}
	return string(tok)
}

// TestSecurePortDelegatesToTheAPIServer: kcm started with
// --authentication-kubeconfig and --authorization-kubeconfig on the real
// apiserver, as kube-controller-manager: /metrics without credentials is
// forbidden to system:anonymous; a ServiceAccount token whose RBAC allows
// get on /metrics reads it (TokenReview, then SubjectAccessReview); one
// without that RBAC gets 403; a made-up token 401; a client certificate of
// the cluster's client CA (looked up in extension-apiserver-authentication,
// no --client-ca-file) is authenticated, and authorized by its own RBAC;
// the health paths answer without credentials.
func TestSecurePortDelegatesToTheAPIServer(t *testing.T) {
	cl := testenv.Shared(t)
	ns := cl.Namespace(t)
	suffix := ns // unique per run
	reader := cl.ServiceAccountToken(t, ns, "metrics-reader")
	nobody := cl.ServiceAccountToken(t, ns, "nobody")
	cl.GrantNonResource(t, "kcm-test-metrics-sa-"+suffix,
		testenv.Subject{Kind: "ServiceAccount", Name: "metrics-reader", Namespace: ns}, "get", "/metrics")
	certUser := "kcm-test-cert-user-" + suffix
	cl.GrantNonResource(t, "kcm-test-metrics-user-"+suffix, testenv.Subject{Kind: "User", Name: certUser}, "get", "/metrics")
	certAllowed, _, _, err := cl.ClientCA().ClientCertificate(certUser)
	if err != nil {
		t.Fatal(err)
	}
	certOther, _, _, err := cl.ClientCA().ClientCertificate("kcm-test-cert-other-" + suffix)
	if err != nil {
		t.Fatal(err)
	}
	// What managerbench reads kcm's heap profile and /metrics with.
	certMaster, _, _, err := cl.ClientCA().ClientCertificate("kcm-test-scraper", "system:masters")
	if err != nil {
		t.Fatal(err)
	}

	o := NewOptions(NewControllerDescriptors())
	o.LeaderElection.LeaderElect = false
	o.Controllers.Controllers = []string{"serviceaccount-controller"}
	in := startManager(t, cl, o, "kcm-secure")
	in.waitLog(t, "caches synced")

	anon := &tls.Config{InsecureSkipVerify: true}
	withCert := func(c tls.Certificate) *tls.Config {
		return &tls.Config{InsecureSkipVerify: true, Certificates: []tls.Certificate{c}}
	}
	tok := func(s string) map[string]string { return map[string]string{"Authorization": "Bearer " + s} }
	for _, tc := range []struct {
		name string
		cfg  *tls.Config
		hdr  map[string]string
		path string
		want []int
	}{
		{"no credentials", anon, nil, "/metrics", []int{401, 403}},
		{"no credentials, /healthz", anon, nil, "/healthz", []int{200}},
		{"no credentials, /readyz", anon, nil, "/readyz", []int{200}},
		{"no credentials, /livez", anon, nil, "/livez", []int{200}},
		{"token with get /metrics", anon, tok(reader), "/metrics", []int{200}},
		{"token with get /metrics, /configz", anon, tok(reader), "/configz", []int{403}},
		{"token without RBAC", anon, tok(nobody), "/metrics", []int{403}},
		{"a made-up token", anon, tok("not-a-token"), "/metrics", []int{401}},
		{"the admin token (system:masters)", anon, tok(adminToken(t, cl)), "/configz", []int{200}},
		{"cluster CA certificate with RBAC", withCert(certAllowed), nil, "/metrics", []int{200}},
		{"cluster CA certificate without RBAC", withCert(certOther), nil, "/metrics", []int{403}},
		{"cluster CA certificate in system:masters, heap profile", withCert(certMaster), nil, "/debug/pprof/heap?debug=1", []int{200}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := getWith(t, tc.cfg, in.url+tc.path, tc.hdr)
			for _, w := range tc.want {
				if resp.StatusCode == w {
					return
				}
			}
			t.Errorf("GET %s: %d %.300q, want one of %v", tc.path, resp.StatusCode, body, tc.want)
		})
	}
	// The reviews are counted under k8s.io/apiserver's names.
	_, metrics := getWith(t, anon, in.url+"/metrics", tok(adminToken(t, cl)))
	for _, m := range []string{`apiserver_delegated_authn_request_total{code="201"}`, `apiserver_delegated_authz_request_total{code="201"}`,
		`apiserver_delegated_authn_request_duration_seconds_count{code="201"}`} {
		if !strings.Contains(metrics, m) {
			t.Errorf("/metrics lacks %s", m)
		}
	}
	// The certificate without RBAC was authenticated: its 403 names the user.
	if _, body := getWith(t, withCert(certOther), in.url+"/metrics", nil); !strings.Contains(body, "kcm-test-cert-other-"+suffix) {
		t.Errorf("the 403 of a cluster CA certificate does not name its user: %.200q", body)
	}
}
