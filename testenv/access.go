package testenv

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// accessTimeout bounds the requests of the helpers below.
const accessTimeout = 30 * time.Second

// ServiceAccountToken creates the ServiceAccount ns/name (if it does not
// exist) and returns a token for it from the TokenRequest API: a bearer
// token the apiserver's TokenReview accepts, as
// system:serviceaccount:<ns>:<name>.
func (c *Cluster) ServiceAccountToken(t TB, ns, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), accessTimeout)
	defer cancel()
	sa := map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": name}}
	err := c.client.do(ctx, http.MethodPost, "/api/v1/namespaces/"+ns+"/serviceaccounts", sa, nil)
	var se *StatusError
	if err != nil && !(errors.As(err, &se) && se.Code == http.StatusConflict) {
		t.Fatalf("testenv: create ServiceAccount %s/%s: %v", ns, name, err)
	}
	var tr struct {
		Status struct {
			Token string `json:"token"`
		} `json:"status"`
	}
	req := map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": map[string]any{}}
	if err := c.client.do(ctx, http.MethodPost, "/api/v1/namespaces/"+ns+"/serviceaccounts/"+name+"/token", req, &tr); err != nil {
		t.Fatalf("testenv: TokenRequest for %s/%s: %v", ns, name, err)
	}
	if tr.Status.Token == "" {
		t.Fatalf("testenv: TokenRequest for %s/%s returned no token", ns, name)
	}
	return tr.Status.Token
}

// Subject is an RBAC subject: Kind "User", "Group" or "ServiceAccount"
// (with Namespace).
type Subject struct {
	Kind, Name, Namespace string
}

// GrantNonResource creates a ClusterRole name allowing verb on the
// non-resource URLs paths and binds it to subject; both are deleted when
// the test ends (best effort: a test that stopped the apiserver leaves
// them to the cluster's end).
func (c *Cluster) GrantNonResource(t TB, name string, subject Subject, verb string, paths ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), accessTimeout)
	defer cancel()
	const rbac = "/apis/rbac.authorization.k8s.io/v1/"
	role := map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]any{"name": name},
		"rules": []any{map[string]any{"nonResourceURLs": paths, "verbs": []string{verb}}}}
	s := map[string]any{"kind": subject.Kind, "name": subject.Name}
	if subject.Kind == "ServiceAccount" {
		s["namespace"] = subject.Namespace
	} else {
		s["apiGroup"] = "rbac.authorization.k8s.io"
	}
	binding := map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
		"metadata": map[string]any{"name": name},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
		"subjects": []any{s}}
	if err := c.client.do(ctx, http.MethodPost, rbac+"clusterroles", role, nil); err != nil {
		t.Fatalf("testenv: create ClusterRole %s: %v", name, err)
	}
	if err := c.client.do(ctx, http.MethodPost, rbac+"clusterrolebindings", binding, nil); err != nil {
		t.Fatalf("testenv: create ClusterRoleBinding %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), accessTimeout)
		defer cancel()
		for _, p := range []string{rbac + "clusterrolebindings/" + name, rbac + "clusterroles/" + name} {
			_ = c.client.do(ctx, http.MethodDelete, p, nil, nil)
		}
	})
}

// requestTotal matches one apiserver_request_total sample line.
var requestTotal = regexp.MustCompile(`^apiserver_request_total\{([^}]*)\} ([0-9.e+]+)$`)

// APIRequests returns how many requests kube-apiserver has served with
// verb (e.g. "POST") on resource in group (e.g. "authentication.k8s.io",
// "tokenreviews") since it started, summed over every code: its own
// apiserver_request_total, read from its /metrics.
func (c *Cluster) APIRequests(ctx context.Context, verb, group, resource string) (int, error) {
	var body string
	if err := c.client.do(ctx, http.MethodGet, "/metrics", nil, &body); err != nil {
		return 0, fmt.Errorf("testenv: kube-apiserver /metrics: %w", err)
	}
	total := 0.0
	for _, line := range strings.Split(body, "\n") {
		m := requestTotal.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		labels := m[1]
		if !strings.Contains(labels, `verb="`+verb+`"`) || !strings.Contains(labels, `group="`+group+`"`) ||
			!strings.Contains(labels, `resource="`+resource+`"`) {
			continue
		}
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			return 0, fmt.Errorf("testenv: kube-apiserver /metrics: %q: %w", line, err)
		}
		total += v
	}
	return int(total), nil
}
