package clientbuilder_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/rest"
)

// tokenRequest is what the fake apiserver saw of one TokenRequest.
type tokenRequest struct {
	Account, Authorization string
	Spec                   map[string]any
}

// fakeAPI answers what a Builder asks (ServiceAccounts, TokenRequests,
// the namespace) and one ConfigMap, ns1/cm1, recording who asked.
type fakeAPI struct {
	clk *clock.Fake
	// lifetime, when set, is the lifetime the fake grants whatever was
	// asked (a server whose clock is ahead).
	lifetime time.Duration

	mu sync.Mutex
	// all guarded by mu:
	namespaceMissing bool
	failTokens       bool
	accounts         []string       // created, in order
	tokens           []tokenRequest // every TokenRequest
	revoked          map[string]bool
	readers          []string // the Authorization of every ConfigMap read
}

func newFakeAPI(t *testing.T, clk *clock.Fake) (*fakeAPI, *rest.Client) {
	t.Helper()
	f := &fakeAPI{clk: clk, revoked: map[string]bool{}}
	s := httptest.NewServer(f)
	t.Cleanup(s.Close)
	root, err := rest.NewClient(&rest.Config{Host: s.URL, Credentials: rest.StaticToken("manager"), QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(root.CloseIdleConnections)
	return f, root
}

func status(w http.ResponseWriter, code int, reason string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":%q,"code":%d}`, reason, code)
}

func object(w http.ResponseWriter, code int, obj any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(obj)
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	authz := r.Header.Get("Authorization")
	f.mu.Lock()
	defer f.mu.Unlock()
	const sas = "/api/v1/namespaces/kube-system/serviceaccounts"
	switch sub, _ := strings.CutPrefix(r.URL.Path, sas); {
	case r.URL.Path == "/api/v1/namespaces/ns1/configmaps/cm1":
		f.readers = append(f.readers, authz)
		if f.revoked[authz] {
			status(w, http.StatusUnauthorized, "Unauthorized")
			return
		}
		object(w, http.StatusOK, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cm1", "namespace": "ns1"}})
	case authz != "Bearer manager":
		status(w, http.StatusForbidden, "Forbidden") // only the manager manages accounts and tokens
	case r.Method == http.MethodPost && r.URL.Path == "/api/v1/namespaces":
		f.namespaceMissing = false
		object(w, http.StatusCreated, map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "kube-system"}})
	case r.Method == http.MethodPost && r.URL.Path == sas:
		if f.namespaceMissing {
			status(w, http.StatusNotFound, "NotFound")
			return
		}
		var sa struct {
			Metadata struct{ Name string } `json:"metadata"`
		}
		_ = json.Unmarshal(body, &sa)
		f.accounts = append(f.accounts, sa.Metadata.Name)
		object(w, http.StatusCreated, map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": sa.Metadata.Name, "namespace": "kube-system"}})
	case r.Method == http.MethodGet && strings.Count(sub, "/") == 1:
		name := sub[1:]
		for _, a := range f.accounts {
			if a == name {
				object(w, http.StatusOK, map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": name, "namespace": "kube-system"}})
				return
			}
		}
		status(w, http.StatusNotFound, "NotFound")
	case r.Method == http.MethodPost && strings.HasSuffix(sub, "/token"):
		name := strings.TrimSuffix(sub[1:], "/token")
		var tr struct {
			Spec map[string]any `json:"spec"`
		}
		_ = json.Unmarshal(body, &tr)
		f.tokens = append(f.tokens, tokenRequest{Account: name, Authorization: authz, Spec: tr.Spec})
		if f.failTokens {
			status(w, http.StatusForbidden, "Forbidden")
			return
		}
		lifetime := f.lifetime
		if lifetime == 0 {
			secs, _ := tr.Spec["expirationSeconds"].(float64)
			lifetime = time.Duration(secs) * time.Second
		}
		object(w, http.StatusCreated, map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
			"spec":   tr.Spec,
			"status": map[string]any{"token": fmt.Sprintf("%s-%d", name, len(f.tokens)), "expirationTimestamp": f.clk.Now().Add(lifetime).UTC().Format(time.RFC3339)}})
	default:
		status(w, http.StatusNotFound, "NotFound")
	}
}

// snapshot returns copies of what the fake recorded.
func (f *fakeAPI) snapshot() (accounts []string, tokens []tokenRequest, readers []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.accounts...), append([]tokenRequest(nil), f.tokens...), append([]string(nil), f.readers...)
}

func (f *fakeAPI) set(fn func(f *fakeAPI)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}
