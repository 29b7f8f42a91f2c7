package managerbench

import (
	"context"
	"fmt"
	"time"

	"github.com/kcmlab/kcm/ctrl/resourcequota/quota"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/resource"
	"github.com/kcmlab/kcm/kube/rest"
)

// rqState is the tracked state of one ResourceQuota: its status.used as
// last seen, and since when that has been the usage its namespace should
// report (zero: it is not, or nothing is expected yet).
type rqState struct {
	namespace string
	used      api.ResourceList
	correctAt time.Time
}

// rqTracker follows, from a watch of ResourceQuotas, what the quotas
// benchmark waits on: for every quota, whether its status.used equals the
// usage the harness expects in its namespace (the pods it created and
// has not deleted), and since when; and how many times the quotas were
// written after being created (the manager's status writes: the harness
// never updates a quota). The harness states what it expects with expect
// before it changes the cluster; all state is guarded by mu.
type rqTracker struct {
	watchState
	want   map[string]resource.List // namespace → the usage its quotas should report
	quotas map[string]*rqState      // namespace/name → state
	writes int                      // MODIFIED events of quotas
}

func newRQTracker() *rqTracker {
	return &rqTracker{want: map[string]resource.List{}, quotas: map[string]*rqState{}}
}

// correct reports whether used is exactly want: the same names, equal
// quantities whatever their form ("1" and "1000m" are equal). An
// unparsable quantity is never correct. Callers hold mu.
func correct(used api.ResourceList, want resource.List) bool {
	if want == nil {
		return false
	}
	got, err := resource.ParseList(used)
	return err == nil && quota.Equals(got, want)
}

// judge sets s.correctAt to at when s has just become correct, and
// clears it when s is not. Callers hold mu.
func (t *rqTracker) judge(s *rqState, at time.Time) {
	switch ok := correct(s.used, t.want[s.namespace]); {
	case !ok:
		s.correctAt = time.Time{}
	case s.correctAt.IsZero():
		s.correctAt = at
	}
}

// expect sets the usage the quotas of each namespace of want should
// report from now on (at); a quota that already reports it counts as
// correct from at, one that does not as not yet correct.
func (t *rqTracker) expect(want map[string]resource.List, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for ns, l := range want {
		t.want[ns] = l
	}
	for _, s := range t.quotas {
		if _, ok := want[s.namespace]; ok {
			s.correctAt = time.Time{}
			t.judge(s, at)
		}
	}
	t.notify()
}

// observeQuota records a quota event seen at at.
func (t *rqTracker) observeQuota(typ rest.EventType, q *api.ResourceQuota, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := q.Namespace + "/" + q.Name
	if typ == rest.Deleted {
		delete(t.quotas, key)
		t.notify()
		return
	}
	if typ == rest.Modified {
		t.writes++
	}
	s := t.quotas[key]
	if s == nil {
		s = &rqState{namespace: q.Namespace}
		t.quotas[key] = s
	}
	s.used = q.Status.Used
	t.judge(s, at)
	t.notify()
}

// Writes is how many times quotas were written since the tracker began.
func (t *rqTracker) Writes() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.writes
}

// RQView is a read-only view of an rqTracker's state under its lock,
// given to the conditions of Wait.
type RQView struct{ t *rqTracker }

// Correct reports whether the quota key reports its namespace's expected
// usage.
func (v RQView) Correct(key string) bool {
	s := v.t.quotas[key]
	return s != nil && !s.correctAt.IsZero()
}

// CorrectOf counts the quotas of keys that report their expected usage.
func (v RQView) CorrectOf(keys []string) int {
	n := 0
	for _, k := range keys {
		if v.Correct(k) {
			n++
		}
	}
	return n
}

// AllCorrect reports whether every quota of keys reports its expected
// usage.
func (v RQView) AllCorrect(keys []string) bool { return v.CorrectOf(keys) == len(keys) }

// Wait returns once cond holds, checking it after every event; it fails
// when ctx ends or the watch has failed.
func (t *rqTracker) Wait(ctx context.Context, what string, cond func(RQView) bool) error {
	return t.waitFor(ctx, what, func() bool { return cond(RQView{t}) })
}

// Times are the first and the last moment a quota of keys became
// correct, by the latest expect; zero when none of them is correct now.
func (t *rqTracker) Times(keys []string) (first, last time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, k := range keys {
		if s := t.quotas[k]; s != nil && !s.correctAt.IsZero() {
			first, last = earliest(first, s.correctAt), latest(last, s.correctAt)
		}
	}
	return first, last
}

// Progress says how many quotas of keys are correct and shows one that is
// not, for a wait that timed out.
func (t *rqTracker) Progress(keys []string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := RQView{t}
	out := fmt.Sprintf("%d of %d quotas report the expected usage", v.CorrectOf(keys), len(keys))
	for _, k := range keys {
		if v.Correct(k) {
			continue
		}
		s := t.quotas[k]
		if s == nil {
			return out + "; " + k + " never seen"
		}
		return out + fmt.Sprintf("; %s reports %v, want %v", k, s.used, t.want[s.namespace].Strings())
	}
	return out
}
