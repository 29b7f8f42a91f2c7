package rest_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/kcmlab/kcm/kube/rest"
)

// TestIsNamespaceTerminating: the cause is found among several and
// through wrapping; another cause, no details or a plain error is not it.
func TestIsNamespaceTerminating(t *testing.T) {
	status := func(causes ...string) error {
		st := rest.Status{Code: 403, Reason: "Forbidden", Message: "no"}
		if causes != nil {
			st.Details = &rest.StatusDetails{}
			for _, c := range causes {
				st.Details.Causes = append(st.Details.Causes, rest.StatusCause{Type: c})
			}
		}
		return rest.StatusErrorFrom("POST", "/api/v1/namespaces/ns/pods", st)
	}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"the cause alone", status(rest.CauseNamespaceTerminating), true},
		{"among several", status("Other", rest.CauseNamespaceTerminating), true},
		{"wrapped", fmt.Errorf("creating pod: %w", status(rest.CauseNamespaceTerminating)), true},
		{"another cause", status("Other"), false},
		{"no details", status(), false},
		{"plain error", errors.New("dial tcp: refused"), false},
		{"nil", nil, false},
	} {
		if got := rest.IsNamespaceTerminating(tc.err); got != tc.want {
			t.Errorf("%s: IsNamespaceTerminating = %v, want %v", tc.name, got, tc.want)
		}
	}
}
