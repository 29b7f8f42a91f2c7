package fakeapi

import (
	"fmt"
	"strconv"
	"sync"
)

// The resume check: a client must never resume a watch after a change it
// could not read. When a fault keeps a live change's frame from the
// client (the connection dropped or stalled before it, the frame cut,
// replaced by bytes the client cannot read, or by an ERROR), the client's
// last resourceVersion is older than that change; its next watch of the
// same scope must start from there (or it must list again). A client that
// skipped the broken frame and read on would resume at or after the
// change and miss it for good, or until a relist happens to repair it:
// the cache then converges by luck, which convergence alone cannot tell.
//
// Only the latest watch of a scope (resource and namespace) counts: a
// fault on a watch the client already left, say after an idle timeout,
// says nothing of where the client resumes. A LIST of the scope, or a
// watch that starts with the current state (resourceVersion ""/"0",
// sendInitialEvents), clears the check. Server.ResumeViolations reports
// what it found; it assumes one client per scope (a test with two
// informers on one scope should ignore it).

type scope struct {
	res int
	ns  string
}

// lostAt is the first change a watch (seq) could not deliver.
type lostAt struct {
	seq uint64
	rv  int64
}

type resumes struct {
	mu         sync.Mutex
	seq        map[scope]uint64
	pending    map[scope]lostAt
	violations []string
}

func newResumes() *resumes {
	return &resumes{seq: map[scope]uint64{}, pending: map[scope]lostAt{}}
}

// watchStarted numbers a new watch of wr's scope, checking where it
// resumes against the change its predecessor lost.
func (r *resumes) watchStarted(wr watchRequest) uint64 {
	sc := scope{wr.res, wr.ns}
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.pending[sc]; ok {
		delete(r.pending, sc)
		from, err := strconv.ParseInt(wr.rv, 10, 64)
		if p.seq == r.seq[sc] && !wr.initial && err == nil && from > 0 && from >= p.rv && len(r.violations) < 10 {
			r.violations = append(r.violations, fmt.Sprintf(
				"watch %d of %q resumed at resourceVersion %d, but the change at %d never reached the client on watch %d",
				p.seq+1, wr.ns, from, p.rv, p.seq))
		}
	}
	r.seq[sc]++
	return r.seq[sc]
}

// lost notes that the change at rv (0: no change) did not reach the client
// on watch wr.
func (r *resumes) lost(wr watchRequest, rv int64) {
	if rv <= 0 {
		return
	}
	sc := scope{wr.res, wr.ns}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.pending[sc]; !ok && wr.seq == r.seq[sc] {
		r.pending[sc] = lostAt{seq: wr.seq, rv: rv}
	}
}

// listed clears the check of a scope: the client lists again.
func (r *resumes) listed(res int, ns string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.pending, scope{res, ns})
}

// ResumeViolations returns the watches (up to 10) that resumed after a
// change that never reached the client (see resume.go).
func (s *Server) ResumeViolations() []string {
	s.resumes.mu.Lock()
	defer s.resumes.mu.Unlock()
	return append([]string(nil), s.resumes.violations...)
}
