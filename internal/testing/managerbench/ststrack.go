package managerbench

import (
	"context"
	"fmt"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// LabelRevisionHash is the label in which the StatefulSet controller
// records the revision a pod was made from (apps/v1
// StatefulSetRevisionLabel, "controller-revision-hash").
const LabelRevisionHash = "controller-revision-hash"

// STSCounts are the events seen for one StatefulSet (or all of them): its
// pods' events, of which the creations (ADDED: the manager's creates) and
// the removals (DELETED), the writes to its status (MODIFIED events that
// leave metadata.generation as it was: the manager's status writes), the
// changes of its spec (the harness's), and its ControllerRevisions
// created.
type STSCounts struct {
	PodEvents, PodCreates, PodDeletes int
	StatusWrites, SpecWrites          int
	Revisions                         int
}

// Sub is c − o, the counts of a window given the counts at its start.
func (c STSCounts) Sub(o STSCounts) STSCounts {
	return STSCounts{PodEvents: c.PodEvents - o.PodEvents, PodCreates: c.PodCreates - o.PodCreates,
		PodDeletes: c.PodDeletes - o.PodDeletes, StatusWrites: c.StatusWrites - o.StatusWrites,
		SpecWrites: c.SpecWrites - o.SpecWrites, Revisions: c.Revisions - o.Revisions}
}

// stsPod is the tracked state of one pod: Ready now, and the revision its
// controller-revision-hash label names.
type stsPod struct {
	ready    bool
	revision string
}

// stsSet is the tracked state of one StatefulSet.
type stsSet struct {
	counts     STSCounts
	generation int64 // metadata.generation of the last event
	status     api.StatefulSetStatus
	pods       map[string]stsPod // pod name → state
}

// stsTracker follows, from watch events of pods, StatefulSets and
// ControllerRevisions, what the StatefulSet benchmark measures: when each
// pod turned Ready, when the sets' statuses were written, how many events
// each set's pods, status and revisions had, and what each set's status
// and pods say now. It is fed by three watches (observe*) and read by the
// scenario (Wait, Totals, Set, ...); all its state is guarded by mu.
type stsTracker struct {
	watchState
	inScope func(ns string) bool
	sets    map[string]*stsSet // namespace/name → state
	total   STSCounts
	// lastReady is when a pod last turned Ready, lastStatus when a set's
	// status was last written.
	lastReady, lastStatus time.Time
}

func newSTSTracker(inScope func(ns string) bool) *stsTracker {
	return &stsTracker{inScope: inScope, sets: map[string]*stsSet{}}
}

// set returns the state of key, creating it. Callers hold mu.
func (t *stsTracker) set(key string) *stsSet {
	s := t.sets[key]
	if s == nil {
		s = &stsSet{pods: map[string]stsPod{}}
		t.sets[key] = s
	}
	return s
}

// count adds f's counts to the set's and the total. Callers hold mu.
func (t *stsTracker) count(s *stsSet, f func(*STSCounts)) {
	f(&s.counts)
	f(&t.total)
}

// observePod records a pod event seen at at, for the set its app label
// names (a set's pods carry its template's labels).
func (t *stsTracker) observePod(typ rest.EventType, p *api.Pod, at time.Time) {
	if !t.inScope(p.Namespace) {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.set(p.Namespace + "/" + p.Labels[labelApp])
	t.count(s, func(c *STSCounts) {
		c.PodEvents++
		switch typ {
		case rest.Added:
			c.PodCreates++
		case rest.Deleted:
			c.PodDeletes++
		}
	})
	if typ == rest.Deleted {
		delete(s.pods, p.Name)
	} else {
		ready := api.IsPodReady(p)
		if ready && !s.pods[p.Name].ready {
			t.lastReady = at
		}
		s.pods[p.Name] = stsPod{ready: ready, revision: p.Labels[LabelRevisionHash]}
	}
	t.notify()
}

// observeSet records a StatefulSet event: its status now, and whether it
// was a status write (the generation unchanged) or a change of its spec.
func (t *stsTracker) observeSet(typ rest.EventType, set *api.StatefulSet, at time.Time) {
	if !t.inScope(set.Namespace) {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.set(set.Namespace + "/" + set.Name)
	if typ == rest.Modified {
		if set.Generation == s.generation {
			t.count(s, func(c *STSCounts) { c.StatusWrites++ })
			t.lastStatus = at
		} else {
			t.count(s, func(c *STSCounts) { c.SpecWrites++ })
		}
	}
	s.generation, s.status = set.Generation, set.Status
	if typ == rest.Deleted {
		s.generation, s.status = 0, api.StatefulSetStatus{}
	}
	t.notify()
}

// observeRevision counts a ControllerRevision created, for the set its
// app label names (revisions carry the template's labels).
func (t *stsTracker) observeRevision(typ rest.EventType, r *api.ControllerRevision, _ time.Time) {
	if !t.inScope(r.Namespace) || typ != rest.Added {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.count(t.set(r.Namespace+"/"+r.Labels[labelApp]), func(c *STSCounts) { c.Revisions++ })
	t.notify()
}

// STSView is a read-only view of a stsTracker's state under its lock,
// given to the conditions of Wait.
type STSView struct{ t *stsTracker }

// ReadyPods counts the set key's pods that are Ready now; with revision
// non-empty, only those labelled with that revision.
func (v STSView) ReadyPods(key, revision string) int32 {
	s := v.t.sets[key]
	if s == nil {
		return 0
	}
	var n int32
	for _, p := range s.pods {
		if p.ready && (revision == "" || p.revision == revision) {
			n++
		}
	}
	return n
}

// Status is the set key's status as last seen, and its generation then
// (0: never seen).
func (v STSView) Status(key string) (api.StatefulSetStatus, int64) {
	if s := v.t.sets[key]; s != nil {
		return s.status, s.generation
	}
	return api.StatefulSetStatus{}, 0
}

// Ready reports whether the set key is complete at generation minGen or
// later: its status, written for its current generation, says want
// replicas, all ready, and want of its pods are Ready.
func (v STSView) Ready(key string, want int32, minGen int64) bool {
	st, gen := v.Status(key)
	return gen >= minGen && st.ObservedGeneration == gen && st.Replicas == want && st.ReadyReplicas == want &&
		v.ReadyPods(key, "") == want
}

// Rolled is Ready with the update finished: the current revision is the
// update revision, all want replicas are updated, and want Ready pods are
// labelled with it.
func (v STSView) Rolled(key string, want int32, minGen int64) bool {
	st, _ := v.Status(key)
	return v.Ready(key, want, minGen) && st.UpdateRevision != "" && st.CurrentRevision == st.UpdateRevision &&
		st.UpdatedReplicas == want && v.ReadyPods(key, st.UpdateRevision) == want
}

// stsConverged reports whether every set of keys is Ready (rolled: Rolled)
// at generation minGen or later.
func stsConverged(v STSView, keys []string, want int32, minGen int64, rolled bool) bool {
	for _, k := range keys {
		if rolled && !v.Rolled(k, want, minGen) || !rolled && !v.Ready(k, want, minGen) {
			return false
		}
	}
	return true
}

// stsProgress says how many sets of keys are complete, for a wait that
// timed out.
func stsProgress(v STSView, keys []string, want int32, minGen int64, rolled bool) string {
	done, pods := 0, int32(0)
	for _, k := range keys {
		if rolled && v.Rolled(k, want, minGen) || !rolled && v.Ready(k, want, minGen) {
			done++
		}
		pods += v.ReadyPods(k, "")
	}
	what := "Ready"
	if rolled {
		what = "rolled"
	}
	return fmt.Sprintf("%d of %d StatefulSets %s, %d of %d pods Ready", done, len(keys), what, pods, int32(len(keys))*want)
}

// Wait returns once cond holds, checking it after every event; it fails
// when ctx ends or a watch has failed.
func (t *stsTracker) Wait(ctx context.Context, what string, cond func(STSView) bool) error {
	return t.waitFor(ctx, what, func() bool { return cond(STSView{t}) })
}

// STSTimes are the tracker's last moments: a pod turned Ready, a set's
// status was written (zero: never).
type STSTimes struct {
	LastReady, LastStatus time.Time
}

// Times returns the last moments seen so far.
func (t *stsTracker) Times() STSTimes {
	t.mu.Lock()
	defer t.mu.Unlock()
	return STSTimes{LastReady: t.lastReady, LastStatus: t.lastStatus}
}

// Progress is stsProgress on the tracker's state now.
func (t *stsTracker) Progress(keys []string, want int32, minGen int64, rolled bool) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return stsProgress(STSView{t}, keys, want, minGen, rolled)
}

// Totals returns the events counted over every set in scope.
func (t *stsTracker) Totals() STSCounts {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total
}

// Set returns the events counted for the set key.
func (t *stsTracker) Set(key string) STSCounts {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.sets[key]; s != nil {
		return s.counts
	}
	return STSCounts{}
}
