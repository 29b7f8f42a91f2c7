package decode

import (
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/protocodec"
)

// TestNamespaceName: the cached version of an object is looked up by the
// namespace and name read from its message's metadata; a message without
// them, or malformed, gives none.
func TestNamespaceName(t *testing.T) {
	msg := func(m api.ObjectMeta) []byte {
		b, err := protocodec.Marshal(&api.Pod{ObjectMeta: m, Spec: api.PodSpec{NodeName: "n"}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		name     string
		msg      []byte
		ns, want string
	}{
		{"namespaced", msg(api.ObjectMeta{Name: "web-1", GenerateName: "web-", Namespace: "prod", UID: "u"}), "prod", "web-1"},
		{"cluster-scoped", msg(api.ObjectMeta{Name: "node-1", Labels: map[string]string{"a": "b"}}), "", "node-1"},
		{"no metadata", []byte{0x12, 0x00}, "", ""},
		{"malformed", []byte{0x0a, 0x05, 0x0a}, "", ""},
		{"empty", nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns, name := namespaceName(tc.msg)
			if ns != tc.ns || name != tc.want {
				t.Errorf("namespaceName = %q, %q; want %q, %q", ns, name, tc.ns, tc.want)
			}
		})
	}
}
