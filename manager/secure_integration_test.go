//go:build !nocluster

package manager

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

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

func bearer(token string, next *http.Transport) http.RoundTripper { return bearerTransport{token, next} }

// adminToken is the cluster's bearer token of a system:masters member.
func adminToken(t testing.TB, cl *testenv.Cluster) string {
	t.Helper()
	tok, ok := cl.Config().Credentials.(rest.StaticToken)
	if !ok {
		t.Fatalf("testenv's credentials are %T, not a static token", cl.Config().Credentials)
	}
	return string(tok)
}

// adminClient is a REST client of the cluster as its admin.
func adminClient(t testing.TB, cl *testenv.Cluster) *rest.Client {
	t.Helper()
	c, err := rest.NewClient(cl.Config())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// post creates obj at path as the admin and decodes the answer into out.
func post(t testing.TB, c *rest.Client, path string, obj, out any) {
	t.Helper()
	body, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	data, err := c.RawPost(ctx, path, body)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatal(err)
		}
	}
}

// serviceAccountToken creates a ServiceAccount in ns and returns a token
// for it from the TokenRequest API.
func serviceAccountToken(t testing.TB, c *rest.Client, ns, name string) string {
	t.Helper()
	post(t, c, "/api/v1/namespaces/"+ns+"/serviceaccounts",
		map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": name}}, nil)
	var tr struct {
		Status struct{ Token string } `json:"status"`
	}
	post(t, c, "/api/v1/namespaces/"+ns+"/serviceaccounts/"+name+"/token",
		map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": map[string]any{}}, &tr)
	if tr.Status.Token == "" {
		t.Fatal("TokenRequest returned no token")
	}
	return tr.Status.Token
}

// allowMetrics binds a ClusterRole with get on the non-resource URL
// /metrics (what deploy/'s kcm-metrics-reader grants) to the subject. The
// cluster-scoped objects stay until the test cluster goes.
func allowMetrics(t testing.TB, c *rest.Client, name string, subject map[string]any) {
	t.Helper()
	post(t, c, "/apis/rbac.authorization.k8s.io/v1/clusterroles", map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]any{"name": name},
		"rules": []any{map[string]any{"nonResourceURLs": []string{"/metrics"}, "verbs": []string{"get"}}},
	}, nil)
	post(t, c, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": map[string]any{"name": name},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
		"subjects": []any{subject},
	}, nil)
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
	c := adminClient(t, cl)
	suffix := fmt.Sprintf("%d", time.Now().UnixNano())
	reader := serviceAccountToken(t, c, ns, "metrics-reader")
	nobody := serviceAccountToken(t, c, ns, "nobody")
	allowMetrics(t, c, "kcm-test-metrics-sa-"+suffix,
		map[string]any{"kind": "ServiceAccount", "name": "metrics-reader", "namespace": ns})
	certUser := "kcm-test-cert-user-" + suffix
	allowMetrics(t, c, "kcm-test-metrics-user-"+suffix,
		map[string]any{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": certUser})
	certAllowed, _, _, err := cl.ClientCA().ClientCertificate(certUser)
	if err != nil {
		t.Fatal(err)
	}
	certOther, _, _, err := cl.ClientCA().ClientCertificate("kcm-test-cert-other-" + suffix)
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
	// The certificate without RBAC was authenticated: its 403 names the user.
	if _, body := getWith(t, withCert(certOther), in.url+"/metrics", nil); !strings.Contains(body, "kcm-test-cert-other-"+suffix) {
		t.Errorf("the 403 of a cluster CA certificate does not name its user: %q", body)
	}
}
