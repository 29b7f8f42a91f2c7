package rest

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/kcmlab/kcm/kube/api/decode"
)

// A TokenRequest is a POST to serviceaccounts/<name>/token in the
// Resources' namespace, with the object as its body; the answer is decoded.
func TestCreateSubresource(t *testing.T) {
	rcNoLeaks(t)
	var method, path, body string
	s := rcServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		method, path, body = r.Method, r.URL.Path, string(b)
		_, _ = io.WriteString(w, `{"kind":"TokenRequest","metadata":{"name":"kcm"},"status":{"token":"t"}}`)
	}))
	c := rcClient(t, s.URL, nil)
	req, err := decode.Raw().Decode([]byte(`{"kind":"TokenRequest","spec":{"expirationSeconds":600}}`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := NewResources(c, ServiceAccounts, decode.Raw()).InNamespace("kube-system").CreateSubresource(context.Background(), "kcm", "token", req)
	if err != nil {
		t.Fatal(err)
	}
	if method != http.MethodPost || path != "/api/v1/namespaces/kube-system/serviceaccounts/kcm/token" ||
		body != `{"kind":"TokenRequest","spec":{"expirationSeconds":600}}` {
		t.Fatalf("sent %s %s %s", method, path, body)
	}
	if out.Name != "kcm" {
		t.Fatalf("answer decoded as %+v", out.ObjectMeta)
	}
}
