package resttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// answer is one HTTP answer of the server, decoded.
type answer struct {
	code int
	body map[string]any
}

// str returns the string at the path of keys, "" if absent.
func (a answer) str(path ...string) string {
	var v any = a.body
	for _, k := range path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// do sends one raw request to s.
func do(t *testing.T, s *Server, method, path, contentType, body string, header ...string) answer {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, s.URL()+path, bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := answer{code: resp.StatusCode}
	if err := json.Unmarshal(b, &a.body); err != nil {
		t.Fatalf("%s %s: answer %q: %v", method, path, b, err)
	}
	return a
}

func i32(n int32) *int32   { return &n }
func i64(n int64) *int64   { return &n }
func ptr(s string) *string { return &s }

// rsNamed is a ReplicaSet in namespace ns.
func rsNamed(name, rv string) *api.ReplicaSet {
	return &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name, UID: "uid-" + name, ResourceVersion: rv,
		Generation: 1, Labels: map[string]string{"app": name}},
		Spec: api.ReplicaSetSpec{Replicas: i32(1)}}
}

func replicaSets(s *Server) *rest.Resources[*api.ReplicaSet] {
	return rest.NewResources(s.Client(), rest.ReplicaSets, decode.Typed[api.ReplicaSet]()).InNamespace("ns")
}

// fakeTB records what Expect reports.
type fakeTB struct {
	testing.TB
	errors []string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
