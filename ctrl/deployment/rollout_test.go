package deployment

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

func recreateDeployment(image string) *api.Deployment {
	d := newDeployment("web", 3, image)
	d.Spec.Strategy = api.DeploymentStrategy{Type: api.RecreateDeploymentStrategyType}
	return d
}

func podOf(rs *api.ReplicaSet, name string, phase api.PodPhase) *api.Pod {
	t := true
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: rs.Namespace, UID: "uid-" + name,
		Labels:          rs.Spec.Template.Labels,
		OwnerReferences: []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: &t}}},
		Status: api.PodStatus{Phase: phase}}
}

// TestRecreateGating follows recreate.go: old ReplicaSets go to 0 first;
// the new one is created only when no old ReplicaSet reports replicas and
// no pod of one is still running (oldPodsRunning: Succeeded and Failed
// pods do not count, Pending, Running and Unknown do).
func TestRecreateGating(t *testing.T) {
	old := newRS(recreateDeployment("v1"), "web-old", 1, 3, -time.Hour)
	d := recreateDeployment("v2")
	f := newFixture(t)
	f.load([]*api.Deployment{d}, old)

	// 1: scale the old one down, nothing created.
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if got := f.rsSizes(); !slices.Equal(got, []string{"web-old=0"}) {
		t.Fatalf("step 1 writes %q", got)
	}
	if ev := f.eventList(); !slices.Equal(ev, []string{"Normal ScalingReplicaSet Scaled down replica set web-old from 3 to 0"}) {
		t.Fatalf("step 1 events %q", ev)
	}
	f.apply(false) // status still says 3 replicas

	// 2: old replicas still reported: wait.
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if got := f.rsSizes(); len(got) != 0 {
		t.Fatalf("step 2 writes %q", got)
	}
	f.apply(true) // status 0; but pods may still exist
	for _, tc := range []struct {
		phase  api.PodPhase
		create bool
	}{
		{api.PodRunning, false}, {api.PodPending, false}, {api.PodUnknown, false},
		{api.PodSucceeded, true}, {api.PodFailed, true},
	} {
		f.pods = []*api.Pod{podOf(f.rsNamed("web-old"), "p", tc.phase)}
		f.api.Take()
		if _, err := f.run("ns/web"); err != nil {
			t.Fatal(err)
		}
		_, created := f.find("create replicasets")
		if created != tc.create {
			t.Errorf("old pod %s: created %v, want %v", tc.phase, created, tc.create)
		}
		if created {
			if got := f.rsSizes(); len(got) != 1 || !strings.HasSuffix(got[0], "=3") {
				t.Errorf("new ReplicaSet %q, want 3 replicas at once", got)
			}
		}
	}
	// A pod of another ReplicaSet, or of none, does not hold Recreate back.
	stranger := podOf(newRS(newDeployment("x", 1, "x"), "x-1", 1, 1, 0), "q", api.PodRunning)
	stranger.Labels = map[string]string{"app": "web"}
	f.pods = []*api.Pod{stranger}
	f.api.Take()
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if _, created := f.find("create replicasets"); !created {
		t.Error("a pod of another controller held Recreate back")
	}
}

// doubleWrite checks the first sync of a Deployment whose new ReplicaSet
// already exists with old annotations: isScalingEvent brings them up to
// date, then the rollout tries the same update from the same cached list
// and the apiserver refuses it with a Conflict, as it refuses
// kube-controller-manager's (getAllReplicaSetsAndSyncRevision runs twice
// there too). The sync is retried once the cache has the update.
func doubleWrite(t *testing.T, f *fixture) {
	t.Helper()
	_, err := f.run("ns/web")
	if !rest.IsConflict(err) {
		t.Fatalf("err %v, want the Conflict of the second annotation update", err)
	}
	if got := resttest.Lines(resttest.Select(f.api.Actions(), "update replicasets")); len(got) != 2 {
		t.Fatalf("ReplicaSet updates %q, want the two annotation updates", got)
	}
}

// TestRecreateScalesExistingNew: when the new ReplicaSet already exists
// (a rollback to an older template), Recreate scales it up instead of
// creating one, once the old ones are gone.
func TestRecreateScalesExistingNew(t *testing.T) {
	d := recreateDeployment("v1")
	back := newRS(d, "web-v1", 1, 0, -2*time.Hour)
	cur := newRS(recreateDeployment("v2"), "web-v2", 2, 0, -time.Hour)
	f := newFixture(t)
	f.load([]*api.Deployment{d}, back, cur)
	doubleWrite(t, f)
	if _, ok := f.find("create replicasets"); ok {
		t.Fatal("created a ReplicaSet")
	}
	f.apply(false)
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.find("create replicasets"); ok {
		t.Fatal("created a ReplicaSet")
	}
	got := f.rsSizes()
	if len(got) == 0 || got[len(got)-1] != "web-v1=3" {
		t.Fatalf("writes %q", got)
	}
	if rs := f.lastRSWrite("web-v1"); rs.Annotations[RevisionAnnotation] != "3" || rs.Annotations[RevisionHistoryAnnotation] != "1" {
		t.Fatalf("annotations %v", rs.Annotations)
	}
}

// lastRSWrite decodes the last write of the named ReplicaSet.
func (f *fixture) lastRSWrite(name string) *api.ReplicaSet {
	f.t.Helper()
	a, ok := f.find("update replicasets ns/" + name)
	if !ok {
		f.t.Fatalf("no write of %s: %q", name, f.writes())
	}
	rs, err := decode.Typed[api.ReplicaSet]().Decode(a.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	return rs
}

// TestRollbackByTemplate: putting an old template back makes the old
// ReplicaSet the new one (FindNewReplicaSet): it gets the next revision
// and the old number in revision-history, is scaled up by the rollout,
// and no ReplicaSet is created.
func TestRollbackByTemplate(t *testing.T) {
	d := newDeployment("web", 3, "v1")
	d.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: intstr("1"), MaxUnavailable: intstr("0")}
	v1 := newRS(d, "web-v1", 1, 0, -2*time.Hour)
	v2d := newDeployment("web", 3, "v2")
	v2 := newRS(v2d, "web-v2", 2, 3, -time.Hour)
	d.Annotations = map[string]string{RevisionAnnotation: "2"}
	f := newFixture(t)
	f.load([]*api.Deployment{d}, v1, v2)
	doubleWrite(t, f)
	if _, ok := f.find("create replicasets"); ok {
		t.Fatal("created a ReplicaSet")
	}
	ann := f.lastRSWrite("web-v1").Annotations
	if ann[RevisionAnnotation] != "3" || ann[RevisionHistoryAnnotation] != "1" {
		t.Fatalf("web-v1 annotations %v", ann)
	}
	f.apply(true)
	if f.deployments[0].Annotations[RevisionAnnotation] != "3" {
		// the revision write comes with the next sync when the RS was updated
		if _, err := f.run("ns/web"); err != nil {
			t.Fatal(err)
		}
		f.apply(true)
	}
	if got := f.deployments[0].Annotations[RevisionAnnotation]; got != "3" {
		t.Fatalf("deployment revision %q", got)
	}
	if got := specReplicas(f.rsNamed("web-v1")); got == 0 {
		t.Fatalf("web-v1 not scaled up: %v", f.sizes())
	}
}

// TestRevisionHistoryAnnotation: the history keeps earlier revisions and
// drops the oldest past 2000 characters (SetNewReplicaSetAnnotations).
func TestRevisionHistoryAnnotation(t *testing.T) {
	d := newDeployment("web", 1, "v1")
	rs := newRS(d, "web-a", 5, 1, 0)
	rs.Annotations[RevisionHistoryAnnotation] = "1,3"
	if !setNewReplicaSetAnnotations(d, rs, 7, true) || rs.Annotations[RevisionHistoryAnnotation] != "1,3,5" || rs.Annotations[RevisionAnnotation] != "7" {
		t.Fatalf("annotations %v", rs.Annotations)
	}
	long := strings.Repeat("9", 1000)
	rs.Annotations[RevisionHistoryAnnotation] = long + "," + long[:998]
	rs.Annotations[RevisionAnnotation] = "8"
	setNewReplicaSetAnnotations(d, rs, 9, true)
	if got := rs.Annotations[RevisionHistoryAnnotation]; got != long[:998]+",8" {
		t.Fatalf("history %q", got)
	}
	// Exactly 2000 characters is within the limit: "1," dropped, X kept.
	x := strings.Repeat("7", 1998)
	rs.Annotations[RevisionHistoryAnnotation] = "1," + x
	rs.Annotations[RevisionAnnotation] = "8"
	setNewReplicaSetAnnotations(d, rs, 9, true)
	if got := rs.Annotations[RevisionHistoryAnnotation]; got != x+",8" {
		t.Fatalf("history at the limit: %d characters, %q…", len(got), got[:5])
	}
	rs.Annotations[RevisionHistoryAnnotation] = x[:1997]
	rs.Annotations[RevisionAnnotation] = "8"
	setNewReplicaSetAnnotations(d, rs, 9, true)
	if got := rs.Annotations[RevisionHistoryAnnotation]; got != x[:1997]+",8" {
		t.Fatalf("history of exactly 2000: %d characters", len(got))
	}
	// Not lower: nothing changes; unreadable: left alone.
	if setNewReplicaSetAnnotations(d, rs, 9, true) {
		t.Fatal("same revision reported a change")
	}
	rs.Annotations[RevisionAnnotation] = "x"
	if setNewReplicaSetAnnotations(d, rs, 10, true) || rs.Annotations[RevisionAnnotation] != "x" {
		t.Fatal("unreadable revision overwritten")
	}
	fresh := &api.ReplicaSet{}
	if !setNewReplicaSetAnnotations(d, fresh, 1, false) || fresh.Annotations[RevisionHistoryAnnotation] != "" ||
		fresh.Annotations[DesiredReplicasAnnotation] != "1" || fresh.Annotations[MaxReplicasAnnotation] != "2" {
		t.Fatalf("fresh %v", fresh.Annotations)
	}
}

// TestCleanupDeployment: beyond revisionHistoryLimit, the oldest old
// ReplicaSets by revision are deleted, but never one with replicas in
// spec or status, one whose status is behind its generation, or one
// already being deleted (cleanupDeployment).
func TestCleanupDeployment(t *testing.T) {
	d := newDeployment("web", 1, "v9")
	d.Spec.RevisionHistoryLimit = i32(1)
	mk := func(name string, rev int, spec, status int32, age time.Duration) *api.ReplicaSet {
		rs := newRS(newDeployment("web", 1, name), "web-"+name, rev, spec, age)
		rs.Status.Replicas = status
		return rs
	}
	deleting := mk("del", 0, 0, 0, -9*time.Hour)
	now := api.NewTime(t0)
	deleting.DeletionTimestamp = &now
	behind := mk("behind", 2, 0, 0, -8*time.Hour)
	behind.Generation = 3
	olds := []*api.ReplicaSet{
		mk("r5", 5, 0, 0, -1*time.Hour),
		mk("r1", 1, 0, 0, -2*time.Hour),
		mk("r3", 3, 0, 1, -3*time.Hour), // pods still terminating
		mk("r4", 4, 1, 1, -4*time.Hour), // still scaled
		behind,
		mk("r6", 6, 0, 0, -5*time.Hour), // newest: kept by the limit
		deleting,
	}
	f := newFixture(t)
	f.with(func(s *syncer) {
		if err := s.cleanupDeployment(t.Context(), olds, d); err != nil {
			t.Fatal(err)
		}
	}, olds...)
	var deleted []string
	for _, a := range f.api.Actions() {
		if a.Verb == "delete" {
			deleted = append(deleted, a.Name)
		}
	}
	if !slices.Equal(deleted, []string{"web-r1", "web-r5"}) {
		t.Fatalf("deleted %q, want [web-r1 web-r5] (oldest first)", deleted)
	}
	// No limit: nothing.
	f = newFixture(t)
	d.Spec.RevisionHistoryLimit = nil
	f.with(func(s *syncer) { _ = s.cleanupDeployment(t.Context(), olds, d) }, olds...)
	if len(f.api.Actions()) != 0 {
		t.Fatalf("deleted without a limit: %q", f.writes())
	}
}
