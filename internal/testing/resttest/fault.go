package resttest

import (
	"errors"
	"slices"
	"strings"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// Faults and interceptors, in the shape of controller-runtime's
// pkg/client/interceptor: a function that sees a request before the
// tracker does and may answer it instead. Here they are chosen per verb,
// resource and object, and by count:
//
//	s.Fail(resttest.On("create", "pods").Nth(2), resttest.Failure(500, "InternalError", "etcd timeout"))
//	s.Fail(resttest.On("update", "replicasets/status"), resttest.Failure(409, "Conflict", "modified"))
//	s.Intercept(resttest.On("delete", "configmaps").Named("ns/c"), func(Action) error { return resttest.NoOp })

// NoOp, returned by an interceptor, answers the request as if the server
// had carried it out, and changes nothing: a delete answers Success and
// the object stays, a write answers with the object as stored (a create,
// with its body).
var NoOp = errors.New("resttest: answered without acting")

// Match selects actions by verb, resource, subresource, namespace and
// name ("" matches any), and by their count among the matching actions.
// Build one with On.
type Match struct {
	verb, resource, sub string
	namespace, name     string
	named               bool
	from, to            int // counts (from 1) it fires at; to == 0: no end
}

// On matches the actions of verb ("" any) on resource, which may name a
// subresource: "pods", "replicasets/status", "namespaces/finalize". By
// default it fires at every matching action.
func On(verb, resource string) Match {
	res, sub, _ := strings.Cut(resource, "/")
	return Match{verb: verb, resource: res, sub: sub, from: 1}
}

// Named restricts m to one object: "ns/name", or "name" for a
// cluster-scoped one (the target of Action.String).
func (m Match) Named(target string) Match {
	m.named = true
	m.namespace, m.name, _ = strings.Cut(target, "/")
	if m.name == "" && !strings.Contains(target, "/") {
		m.namespace, m.name = "", target
	}
	return m
}

// Nth fires at the n-th matching action only (from 1).
func (m Match) Nth(n int) Match { m.from, m.to = n, n; return m }

// From fires at the n-th matching action and every one after it.
func (m Match) From(n int) Match { m.from, m.to = n, 0; return m }

// Times fires at the first n matching actions.
func (m Match) Times(n int) Match { m.from, m.to = 1, n; return m }

func (m Match) selects(a Action) bool {
	switch {
	case m.verb != "" && m.verb != a.Verb,
		m.resource != "" && m.resource != a.Resource,
		m.sub != a.Subresource && (m.sub != "" || m.resource != ""),
		m.named && (m.namespace != a.Namespace || m.name != a.Name):
		return false
	}
	return true
}

func (m Match) firesAt(n int) bool { return n >= m.from && (m.to == 0 || n <= m.to) }

// interceptor is one registered hook and how many actions it matched.
type interceptor struct {
	m    Match
	fn   func(Action) error
	seen int
}

// Intercept runs fn for the actions m selects, in arrival order, before
// the tracker serves them. fn may change the server's objects (Add,
// Remove): it runs without the server's lock. It returns nil to let the
// action go on (to later interceptors, then the tracker), NoOp, or an
// error that becomes the answer: a *rest.StatusError's Status as it is,
// any other error as a 500 with its message. Interceptors run in the
// order they were added. The returned func removes the interceptor.
func (s *Server) Intercept(m Match, fn func(Action) error) (remove func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := &interceptor{m: m, fn: fn}
	s.hooks = append(s.hooks, h)
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.hooks = slices.DeleteFunc(s.hooks, func(x *interceptor) bool { return x == h })
	}
}

// Fail answers the actions m selects with st; the returned func removes
// the fault.
func (s *Server) Fail(m Match, st rest.Status) (remove func()) {
	return s.Intercept(m, func(Action) error { return rest.StatusErrorFrom("", "", st) })
}

// Failure is the Status of a failure: code, reason and message.
func Failure(code int32, reason, message string) rest.Status {
	return rest.Status{TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure",
		Code: code, Reason: reason, Message: message}
}

// intercept runs the hooks for a; it returns the error one of them
// answered with, or nil. Called without s.mu held.
func (s *Server) intercept(a Action) error {
	s.mu.Lock()
	var fire []*interceptor
	for _, h := range s.hooks {
		if h.m.selects(a) {
			h.seen++
			if h.m.firesAt(h.seen) {
				fire = append(fire, h)
			}
		}
	}
	s.mu.Unlock()
	for _, h := range fire {
		if err := h.fn(a); err != nil {
			return err
		}
	}
	return nil
}
