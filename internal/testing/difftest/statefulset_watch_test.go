package difftest

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// setWatchFeed plays pod events into a SetWatch the way its pod watch
// does, without a cluster.
type setWatchFeed struct {
	w  *SetWatch
	rv int
}

func newSetWatchFeed() *setWatchFeed {
	return &setWatchFeed{w: &SetWatch{changed: make(chan struct{}), sets: map[string]*api.StatefulSet{},
		pods: map[string]*api.Pod{}, claims: map[string]*api.PersistentVolumeClaim{},
		revisions: map[string]*api.ControllerRevision{}, deleting: map[string]bool{}, podDeletes: map[string]int{},
		events:    map[string]setEvent{},
		replacing: map[string]strayPod{}, dropReady: map[string]bool{}}}
}

// pod sends an event for pod name with uid at rev, ready or not, marked
// for deletion or not.
func (f *setWatchFeed) pod(t rest.EventType, name, uid, rev string, ready, terminating bool) {
	f.podGrace(t, name, uid, rev, ready, terminating, nil)
}

// podGrace is pod with the deletionGracePeriodSeconds of a pod marked for
// deletion.
func (f *setWatchFeed) podGrace(t rest.EventType, name, uid, rev string, ready, terminating bool, grace *int64) {
	f.rv++
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, UID: uid, ResourceVersion: strconv.Itoa(f.rv),
		Labels: map[string]string{revisionHashLabel: rev}}}
	if ready {
		p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
	}
	if terminating {
		p.DeletionTimestamp = &api.Time{}
		p.DeletionGracePeriodSeconds = grace
	}
	f.w.mu.Lock()
	defer f.w.mu.Unlock()
	f.w.logPod(t, f.w.pods[name], p, false)
	setOrDelete(f.w.pods, name, p, t == rest.Deleted)
}

func (f *setWatchFeed) event(name, pod string, count int) {
	f.eventLine(name, "web Normal SuccessfulCreate: Create Pod "+pod+" in StatefulSet web successful", count)
}

func (f *setWatchFeed) eventLine(name, line string, count int) {
	f.w.mu.Lock()
	defer f.w.mu.Unlock()
	f.w.events[name] = setEvent{line: line, count: count}
}

func (f *setWatchFeed) steps() string {
	var lines []string
	for _, s := range f.w.Steps() {
		lines = append(lines, s.Line)
	}
	return strings.Join(lines, "|")
}

// TestSetWatchStrayDeletion: a pod deleted without being marked for
// deletion first, or first marked with grace 0 (kwok's second deletion by
// name, which hits the controller's replacement), is not a step, nor is the re-creation of that
// name at the same revision, nor the replacement's Ready when the lost pod
// had been logged Ready; its creation Event leaves the counts. A pod
// deleted gracefully, and a re-creation at another revision, are steps.
func TestSetWatchStrayDeletion(t *testing.T) {
	const want = "delete pod web-2|create pod web-2 rev r2|ready pod web-2"
	// Lost before it was Ready.
	f := newSetWatchFeed()
	f.pod(rest.Added, "web-2", "u1", "r1", true, false)
	f.w.Steps()
	f.pod(rest.Modified, "web-2", "u1", "r1", true, true)
	f.pod(rest.Deleted, "web-2", "u1", "r1", true, true)
	f.pod(rest.Added, "web-2", "u2", "r2", false, false)
	f.pod(rest.Deleted, "web-2", "u2", "r2", false, false) // stray
	f.pod(rest.Added, "web-2", "u3", "r2", false, false)
	f.pod(rest.Modified, "web-2", "u3", "r2", true, false)
	if got := f.steps(); got != want {
		t.Errorf("lost before Ready: steps %s, want %s", got, want)
	}
	f.event("e1", "web-2", 1) // the build's
	f.event("e2", "web-2", 2) // the roll's creation and the re-creation
	if lines, total := f.w.Events(); total != 2 || len(lines) != 2 || !strings.HasSuffix(lines[1], "(count 1)") {
		t.Errorf("Events %v (total %d); want two of count 1", lines, total)
	}
	if got := f.w.Strays(); !slices.Equal(got, []string{"web-2"}) {
		t.Errorf("Strays() = %v, want [web-2]", got)
	}

	// Lost after it was logged Ready.
	f = newSetWatchFeed()
	f.pod(rest.Added, "web-2", "u1", "r1", true, false)
	f.w.Steps()
	f.pod(rest.Modified, "web-2", "u1", "r1", true, true)
	f.pod(rest.Deleted, "web-2", "u1", "r1", true, true)
	f.pod(rest.Added, "web-2", "u2", "r2", false, false)
	f.pod(rest.Modified, "web-2", "u2", "r2", true, false)
	f.pod(rest.Deleted, "web-2", "u2", "r2", true, false) // stray
	f.pod(rest.Added, "web-2", "u3", "r2", false, false)
	f.pod(rest.Modified, "web-2", "u3", "r2", true, false)
	if got := f.steps(); got != want {
		t.Errorf("lost after Ready: steps %s, want %s", got, want)
	}

	// Lost with its deletion seen, as kube-apiserver writes a grace-0
	// deletion of a scheduled pod: marked with grace 0, then gone.
	zero, thirty := int64(0), int64(30)
	f = newSetWatchFeed()
	f.pod(rest.Added, "web-2", "u1", "r1", true, false)
	f.w.Steps()
	f.podGrace(rest.Modified, "web-2", "u1", "r1", true, true, &thirty)
	f.podGrace(rest.Modified, "web-2", "u1", "r1", true, true, &zero) // kwok's first deletion
	f.podGrace(rest.Deleted, "web-2", "u1", "r1", true, true, &zero)
	f.pod(rest.Added, "web-2", "u2", "r2", false, false)
	f.pod(rest.Modified, "web-2", "u2", "r2", true, false)
	f.podGrace(rest.Modified, "web-2", "u2", "r2", true, true, &zero) // stray
	f.podGrace(rest.Deleted, "web-2", "u2", "r2", true, true, &zero)
	f.pod(rest.Added, "web-2", "u3", "r2", false, false)
	f.pod(rest.Modified, "web-2", "u3", "r2", true, false)
	if got := f.steps(); got != want {
		t.Errorf("lost with a grace-0 mark: steps %s, want %s", got, want)
	}
	if got := f.w.Strays(); !slices.Equal(got, []string{"web-2"}) {
		t.Errorf("lost with a grace-0 mark: Strays() = %v, want [web-2]", got)
	}

	// Re-created at another revision: a step.
	f = newSetWatchFeed()
	f.pod(rest.Added, "web-2", "u1", "r1", false, false)
	f.pod(rest.Deleted, "web-2", "u1", "r1", false, false) // stray
	f.pod(rest.Added, "web-2", "u2", "r2", false, false)
	if got, want := f.steps(), "create pod web-2 rev r1|create pod web-2 rev r2"; got != want {
		t.Errorf("re-created at another revision: steps %s, want %s", got, want)
	}
}

// TestSetWatchDeleteEventCounts: a "Delete Pod" Event counts at most the
// pod's deletions in the step log (a second deletion of a pod already
// terminating changes nothing, but the recorder counts its Event); a
// missing Event still shows, and other Events keep their counts.
func TestSetWatchDeleteEventCounts(t *testing.T) {
	f := newSetWatchFeed()
	for _, pod := range []string{"web-2", "web-3"} {
		f.pod(rest.Added, pod, "u-"+pod, "r1", true, false)
		f.pod(rest.Modified, pod, "u-"+pod, "r1", true, true)
		f.pod(rest.Deleted, pod, "u-"+pod, "r1", true, true)
	}
	f.pod(rest.Added, "web-2", "u-web-2b", "r1", false, false)
	f.pod(rest.Modified, "web-2", "u-web-2b", "r1", false, true)
	f.pod(rest.Deleted, "web-2", "u-web-2b", "r1", false, true)
	del := func(pod string) string {
		return "web Normal SuccessfulDelete: Delete Pod " + pod + " in StatefulSet web successful"
	}
	f.eventLine("d2", del("web-2"), 3) // two deletions, one of them twice
	f.eventLine("d3", del("web-3"), 1)
	f.eventLine("d4", del("web-4"), 1) // no deletion seen
	f.event("c2", "web-2", 3)
	want := []string{del("web-2") + " (count 2)", del("web-3") + " (count 1)",
		"web Normal SuccessfulCreate: Create Pod web-2 in StatefulSet web successful (count 3)"}
	slices.Sort(want)
	if lines, total := f.w.Events(); !slices.Equal(lines, want) || total != 6 {
		t.Errorf("Events() = %q (total %d),\nwant %q (total 6)", lines, total, want)
	}
}
