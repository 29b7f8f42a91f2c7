package deployment

import (
	"encoding/json"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

func tmpl(t *testing.T, s string) map[string]any {
	t.Helper()
	var v any
	if err := decodeNumbers([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	m, _ := v.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m
}

// TestEqualIgnoreHash follows deployment_util_test TestEqualIgnoreHash:
// templates differing only by the pod-template-hash label are equal;
// any other difference, including in fields kcm does not model, is not;
// they compare as Kubernetes' semantic equality compares the Go values the
// apiserver wrote them from: a nil slice (null) and an empty one ([]) are
// equal, a nil pointer (absent) and a pointer to an empty struct ({}) are
// not (issue 25: a container's "securityContext": {}).
func TestEqualIgnoreHash(t *testing.T) {
	base := `{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"i"}]}}`
	for _, tc := range []struct {
		name string
		a, b string
		want bool
	}{
		{"same", base, base, true},
		{"hash only on one", base, `{"metadata":{"labels":{"app":"a","pod-template-hash":"x"}},"spec":{"containers":[{"name":"c","image":"i"}]}}`, true},
		{"different hash values", `{"metadata":{"labels":{"pod-template-hash":"kcm"}}}`, `{"metadata":{"labels":{"pod-template-hash":"kube"}}}`, true},
		{"hash the only label", `{"metadata":{"labels":{"pod-template-hash":"x"}}}`, `{"metadata":{}}`, true},
		{"other label", base, `{"metadata":{"labels":{"app":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}`, false},
		{"image", base, `{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"j"}]}}`, false},
		{"unmodelled field", base, `{"metadata":{"labels":{"app":"a"}},"spec":{"affinity":{"x":1},"containers":[{"name":"c","image":"i"}]}}`, false},
		{"null and empty arrays", `{"metadata":{"creationTimestamp":null,"labels":{"app":"a"}},"spec":{"volumes":null,"containers":[{"name":"c","image":"i","env":[],"ports":[]}]}}`, base, true},
		{"empty security context is not none", `{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"i","securityContext":{}}]}}`, base, false},
		{"empty pod security context is not none", `{"metadata":{"labels":{"app":"a"}},"spec":{"securityContext":{},"containers":[{"name":"c","image":"i"}]}}`, base, false},
		{"empty objects on both sides", `{"metadata":{"labels":{"app":"a"}},"spec":{"securityContext":{},"containers":[{"name":"c","image":"i","resources":{},"securityContext":{}}]}}`,
			`{"metadata":{"labels":{"app":"a","pod-template-hash":"h"}},"spec":{"containers":[{"securityContext":{},"resources":{},"image":"i","name":"c"}],"securityContext":{}}}`, true},
		{"empty object inside an array element", `{"spec":{"containers":[{"name":"c","lifecycle":{"preStop":{}}}]}}`, `{"spec":{"containers":[{"name":"c","lifecycle":{}}]}}`, false},
		{"false is a value", `{"spec":{"hostNetwork":false}}`, `{}`, false},
		{"key order", `{"spec":{"a":1,"b":2}}`, `{"spec":{"b":2,"a":1}}`, true},
	} {
		if got := EqualIgnoreHash(tmpl(t, tc.a), tmpl(t, tc.b)); got != tc.want {
			t.Errorf("%s: EqualIgnoreHash = %v, want %v", tc.name, got, tc.want)
		}
	}
	// The inputs are not modified.
	a := tmpl(t, `{"metadata":{"labels":{"app":"a","pod-template-hash":"x"}}}`)
	EqualIgnoreHash(a, tmpl(t, `{}`))
	if a["metadata"].(map[string]any)["labels"].(map[string]any)[PodTemplateHashLabel] != "x" {
		t.Fatal("EqualIgnoreHash modified its argument")
	}
}

// TestComputeHashStable: a template always hashes to the same value
// (here a value recorded once, so that a change of the encoding, which
// would make every kcm restart roll every Deployment, fails the test);
// key order does not matter; collisionCount changes the hash; the hash is
// spelt in the safe alphabet.
func TestComputeHashStable(t *testing.T) {
	a := tmpl(t, `{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"nginx:1"}]}}`)
	b := tmpl(t, `{"spec":{"containers":[{"image":"nginx:1","name":"c"}]},"metadata":{"labels":{"app":"a"}}}`)
	h := ComputeHash(a, nil)
	if h != ComputeHash(b, nil) {
		t.Fatal("key order changes the hash")
	}
	if h != goldenHash {
		t.Fatalf("hash %q, recorded %q", h, goldenHash)
	}
	zero, one := int32(0), int32(1)
	h0, h1 := ComputeHash(a, &zero), ComputeHash(a, &one)
	if h0 == h || h1 == h0 {
		t.Fatalf("collisionCount does not change the hash: %s %s %s", h, h0, h1)
	}
	for _, r := range h + h0 + h1 {
		if !containsRune(safeAlphabet, r) {
			t.Fatalf("%q outside the safe alphabet", r)
		}
	}
	if c := ComputeHash(tmpl(t, `{"spec":{"containers":[{"name":"c","image":"nginx:2"}]}}`), nil); c == h {
		t.Fatal("a different template hashes alike")
	}
}

const goldenHash = "6b8b6968d"

func containsRune(s string, r rune) bool {
	for _, c := range s {
		if c == r {
			return true
		}
	}
	return false
}

// TestSafeEncodeString: the values apimachinery's rand.SafeEncodeString
// v0.34.4 gives for the same inputs (each byte b becomes alphabet[b%27]).
func TestSafeEncodeString(t *testing.T) {
	for in, want := range map[string]string{"0129": "456f", "3456789": "789bcdf", "": ""} {
		if got := safeEncodeString(in); got != want {
			t.Errorf("safeEncodeString(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTemplateJSON: the template is read from the object's raw JSON, with
// fields kcm does not model; an object built in code falls back to its
// typed template; broken JSON is an ErrTemplate.
func TestTemplateJSON(t *testing.T) {
	raw := []byte(`{"metadata":{"name":"d"},"spec":{"template":{"metadata":{"labels":{"app":"a"}},"spec":{"schedulingGates":[{"name":"g"}],"containers":[{"name":"c"}]}}}}`)
	d, err := decode.Typed[api.Deployment]().Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	got, err := templateJSON(d, &d.Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if string(b) != `{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c"}],"schedulingGates":[{"name":"g"}]}}` {
		t.Fatalf("template %s", b)
	}
	typed := &api.Deployment{Spec: api.DeploymentSpec{Template: api.PodTemplateSpec{Spec: api.PodSpec{Containers: []api.Container{{Name: "c"}}}}}}
	got, err = templateJSON(typed, &typed.Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(got); string(b) != `{"metadata":{"creationTimestamp":null},"spec":{"containers":[{"name":"c","resources":{}}]}}` {
		t.Fatalf("typed template %s", b)
	}
	empty := &api.Deployment{}
	empty.SetRaw([]byte(`{"spec":{}}`))
	if got, err := templateJSON(empty, &empty.Spec.Template); err != nil || len(got) != 0 {
		t.Fatalf("no template: %v %v", got, err)
	}
	bad := &api.Deployment{}
	bad.SetRaw([]byte(`{"spec":`))
	if _, err := templateJSON(bad, &bad.Spec.Template); err == nil {
		t.Fatal("broken JSON read")
	}
}
