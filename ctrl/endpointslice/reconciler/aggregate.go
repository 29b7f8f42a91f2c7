package reconciler

import (
	"fmt"
	"strings"
)

// aggregate is several errors of one reconcile reported as one, written
// as apimachinery's utilerrors aggregate writes them — one message alone,
// several distinct ones as "[a, b]" (nested aggregates flattened,
// duplicates once) — so that the FailedToUpdateEndpointSlices Event reads
// as kube-controller-manager's. errors.Is and errors.As see every error.
type aggregate []error

// joinErrors returns nil for no errors, else an aggregate of the non-nil
// ones (utilerrors.NewAggregate).
func joinErrors(errs []error) error {
	var out aggregate
	for _, e := range errs {
		if e != nil {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func (a aggregate) Error() string {
	if len(a) == 1 {
		return a[0].Error()
	}
	var msgs []string
	seen := map[string]bool{}
	a.visit(func(err error) {
		if m := err.Error(); !seen[m] {
			seen[m] = true
			msgs = append(msgs, m)
		}
	})
	if len(msgs) == 1 {
		return msgs[0]
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}

// visit calls fn on every error, descending into nested aggregates.
func (a aggregate) visit(fn func(error)) {
	for _, e := range a {
		if inner, ok := e.(aggregate); ok {
			inner.visit(fn)
			continue
		}
		fn(e)
	}
}

// Unwrap lets errors.Is and errors.As look at each error.
func (a aggregate) Unwrap() []error { return a }

// nodeNotFound reports a pod left out because its node is not cached,
// with upstream's message; it is ErrNodeNotFound.
type nodeNotFound struct{ pod, namespace, service, node string }

func (e nodeNotFound) Error() string {
	return fmt.Sprintf("skipping Pod %s for Service %s/%s: Node %s Not Found", e.pod, e.namespace, e.service, e.node)
}

func (e nodeNotFound) Is(target error) bool { return target == ErrNodeNotFound }
