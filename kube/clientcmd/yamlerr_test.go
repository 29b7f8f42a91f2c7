package clientcmd

import (
	"errors"
	"strings"
	"testing"
)

// TestKubeconfigYAMLErrorsNeverQuoteValues feeds kubeconfigs whose YAML is
// broken right at a secret: an alias, an anchor, a tag, a type mismatch, a
// bad map key, a duplicate key. The error must name the file, the line
// and the field, and never the value (yaml.v3 quotes anchor names, tags
// and values in several of its messages).
func TestKubeconfigYAMLErrorsNeverQuoteValues(t *testing.T) {
	const secret = "Secr3t"
	user := func(s string) string { return kcDoc("    server: https://h\n", "    username: u\n"+s) }
	tests := []struct {
		name string
		doc  string
		// want are substrings of the message; "" means none beyond the file.
		want []string
	}{
		{"alias to an undefined anchor", user("    password: *Secr3t\n"),
			[]string{"line 17: password: an alias to an undefined anchor"}},
		{"alias on the first line", "current-context: *Secr3t\n",
			[]string{"line 1: current-context: an alias to an undefined anchor"}},
		{"anchor whose value contains itself", "clusters:\n- name: c\n  cluster:\n    extensions:\n    - name: x\n      extension: &Secr3t [*Secr3t]\n",
			[]string{"line 6: extension: an anchor whose value contains itself"}},
		{"tag that does not fit the value", user("    password: !!int Secr3t\n"), []string{"a value that does not fit its tag"}},
		{"custom tag on a wrong type", user("    exec:\n      args: !Secr3t x\n"),
			[]string{"line 18: args: unexpected tagged value, want a list"}},
		{"type error quoting the value", user("    exec:\n      args: Secr3t\n"),
			[]string{"line 18: args: unexpected !!str value, want a list"}},
		{"undefined tag handle", user("    password: !e!Secr3t x\n"), []string{"line 16: found undefined tag handle"}},
		{"invalid map key", "clusters:\n- name: c\n  cluster:\n    extensions:\n    - name: x\n      extension:\n        ? [Secr3t]\n        : 1\n",
			[]string{"an invalid mapping key"}},
		{"duplicate key that is a secret", "clusters:\n- name: c\n  cluster:\n    extensions:\n    - name: x\n      extension:\n        Secr3t: 1\n        Secr3t: 2\n",
			[]string{"line 8: a mapping key defined twice (first at line 7)"}},
		{"duplicate password", user("    password: a\n    password: Secr3t\n"),
			[]string{"line 18: password: defined twice (first at line 17)"}},
		{"unterminated quote", user("    password: \"Secr3t\n"), []string{"unexpected end of stream"}},
		{"control character", user("    password: Secr3t\x01\n"), []string{"control characters are not allowed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, path, err := kcLoadDoc(t, t.TempDir(), tt.doc)
			if err == nil {
				t.Fatal("loaded a broken kubeconfig")
			}
			msg := err.Error()
			if strings.Contains(msg, secret) {
				t.Errorf("the error quotes the value: %s", msg)
			}
			if !strings.Contains(msg, path) {
				t.Errorf("the error does not name the file %s: %s", path, msg)
			}
			if !errors.Is(err, ErrInvalidKubeconfig) {
				t.Errorf("error does not match ErrInvalidKubeconfig: %v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error lacks %q: %s", w, msg)
				}
			}
		})
	}
}
