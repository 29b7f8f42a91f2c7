package reconciler

import (
	"errors"
	"io"
	"testing"
)

// TestAggregate follows apimachinery's utilerrors aggregate: nil for no
// errors, one message alone, several distinct ones bracketed and joined,
// duplicates once, nested aggregates flattened; errors.Is sees each.
func TestAggregate(t *testing.T) {
	a, b := errors.New("a"), errors.New("b")
	for _, tc := range []struct {
		errs []error
		want string
	}{
		{[]error{a}, "a"},
		{[]error{nil, a, nil}, "a"},
		{[]error{a, b}, "[a, b]"},
		{[]error{a, errors.New("a")}, "a"},
		{[]error{a, joinErrors([]error{b, errors.New("c")})}, "[a, b, c]"},
	} {
		if got := joinErrors(tc.errs).Error(); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.errs, got, tc.want)
		}
	}
	if joinErrors(nil) != nil || joinErrors([]error{nil}) != nil {
		t.Error("no errors should be nil")
	}
	err := joinErrors([]error{a, nodeNotFound{pod: "p", namespace: "ns", service: "s", node: "n"}, io.EOF})
	if !errors.Is(err, io.EOF) || !errors.Is(err, ErrNodeNotFound) || errors.Is(err, ErrStaleInformerCache) {
		t.Errorf("errors.Is through the aggregate: %v", err)
	}
	if got := (nodeNotFound{pod: "p", namespace: "ns", service: "s", node: "n"}).Error(); got != "skipping Pod p for Service ns/s: Node n Not Found" {
		t.Errorf("node not found message %q", got)
	}
}
