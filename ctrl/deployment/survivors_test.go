package deployment

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestDeploymentProgressing: each kind of step forward counts on its own
// (DeploymentProgressing): more updated, fewer old (replicas − updated),
// more ready, more available; nothing else does.
func TestDeploymentProgressing(t *testing.T) {
	d := newDeployment("web", 3, "v1")
	d.Status = api.DeploymentStatus{Replicas: 4, UpdatedReplicas: 1, ReadyReplicas: 3, AvailableReplicas: 3}
	for _, tc := range []struct {
		name string
		st   api.DeploymentStatus
		want bool
	}{
		{"same", api.DeploymentStatus{Replicas: 4, UpdatedReplicas: 1, ReadyReplicas: 3, AvailableReplicas: 3}, false},
		{"more updated", api.DeploymentStatus{Replicas: 5, UpdatedReplicas: 2, ReadyReplicas: 3, AvailableReplicas: 3}, true},
		{"fewer old", api.DeploymentStatus{Replicas: 3, UpdatedReplicas: 1, ReadyReplicas: 3, AvailableReplicas: 3}, true},
		{"more old", api.DeploymentStatus{Replicas: 5, UpdatedReplicas: 1, ReadyReplicas: 3, AvailableReplicas: 3}, false},
		{"more ready", api.DeploymentStatus{Replicas: 4, UpdatedReplicas: 1, ReadyReplicas: 4, AvailableReplicas: 3}, true},
		{"more available", api.DeploymentStatus{Replicas: 4, UpdatedReplicas: 1, ReadyReplicas: 3, AvailableReplicas: 4}, true},
		{"fewer ready", api.DeploymentStatus{Replicas: 4, UpdatedReplicas: 1, ReadyReplicas: 2, AvailableReplicas: 3}, false},
	} {
		if got := deploymentProgressing(d, &tc.st); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestCompleteDeploymentStaysAvailable: a finished rollout that is then
// scaled up keeps NewReplicaSetAvailable while the new replicas come up
// (syncRolloutStatus's isCompleteDeployment guard); without a progress
// deadline no Progressing condition is written at all.
func TestCompleteDeploymentStaysAvailable(t *testing.T) {
	d := newDeployment("web", 5, "v1")
	rs := withStatus(newRS(d, "web-a", 1, 5, 0), 5, 3, 3)
	at := api.NewTime(t0.Add(-time.Hour))
	d.Annotations = map[string]string{RevisionAnnotation: "1"}
	d.Status = api.DeploymentStatus{ObservedGeneration: 1, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3,
		Conditions: []api.DeploymentCondition{{Type: api.DeploymentProgressing, Status: api.ConditionTrue, Reason: ReasonNewReplicaSetAvailable,
			Message: `ReplicaSet "web-a" has successfully progressed.`, LastUpdateTime: at, LastTransitionTime: at}}}
	f := newFixture(t)
	f.load([]*api.Deployment{d}, rs)
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	st, ok := f.lastStatus()
	if !ok {
		t.Fatal("no status")
	}
	if c := api.GetDeploymentCondition(&st.Status, api.DeploymentProgressing); c == nil || c.Reason != ReasonNewReplicaSetAvailable {
		t.Fatalf("Progressing %+v", c)
	}
	// No deadline.
	d.Spec.ProgressDeadlineSeconds = nil
	d.Status.Conditions = nil
	f = newFixture(t)
	f.load([]*api.Deployment{d}, rs)
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	st, ok = f.lastStatus()
	if !ok || api.GetDeploymentCondition(&st.Status, api.DeploymentProgressing) != nil ||
		api.GetDeploymentCondition(&st.Status, api.DeploymentAvailable) == nil {
		t.Fatalf("conditions %+v", st.Status.Conditions)
	}
}

// TestRequeueAtOneSecond: with exactly one second to the deadline the
// check comes one second after it, i.e. in two (requeueStuckDeployment's
// "after < 1s" is strict).
func TestRequeueAtOneSecond(t *testing.T) {
	f := stuckRollout(t, t0.Add(-599*time.Second))
	res, err := f.run("ns/web")
	if err != nil || res.RequeueAfter != 2*time.Second {
		t.Fatalf("RequeueAfter %v err %v", res.RequeueAfter, err)
	}
}

// TestCreateAtZeroRecordsNoEvent: a new ReplicaSet created with 0
// replicas (no surge room) records no "Scaled up … from 0 to 0" event.
func TestCreateAtZeroRecordsNoEvent(t *testing.T) {
	d := newDeployment("web", 3, "v1")
	d.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: intstr("0"), MaxUnavailable: intstr("1")}
	old := newRS(d, "web-old", 1, 3, -time.Hour)
	d.Spec.Template.Spec.Containers = []api.Container{{Name: "c", Image: "v2"}}
	f := newFixture(t)
	f.load([]*api.Deployment{d}, old)
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.find("create replicasets"); !ok {
		t.Fatal("nothing created")
	}
	for _, e := range f.eventList() {
		if e != "Normal ScalingReplicaSet Scaled down replica set web-old from 3 to 2" {
			t.Errorf("event %q", e)
		}
	}
}

// TestReconcileOldReplicaSets follows rolling_test
// TestDeploymentController_reconcileOldReplicaSets, checking the sizes
// too: maxScaledDown = all − minAvailable − unavailable new replicas;
// unhealthy old replicas go first, then available ones down to
// minAvailable.
func TestReconcileOldReplicaSets(t *testing.T) {
	for _, tc := range []struct {
		replicas, unavail int32
		oldSize, oldAvail int32
		newSize, newAvail int32
		wantScaled        bool
		wantOld           int32
	}{
		{10, 0, 10, 10, 0, 0, true, 9}, // 0/0 fenceposts: unavailability 1
		{10, 2, 10, 10, 0, 0, true, 8},
		{10, 2, 10, 8, 0, 0, true, 8},  // the 2 unhealthy go
		{10, 2, 10, 9, 0, 0, true, 8},  // 1 unhealthy, 1 available
		{10, 2, 8, 8, 2, 0, false, 8},  // unavailable new pods hold it back
		{10, 2, 10, 10, 2, 1, true, 7}, // 12 − 8 − 1 = 3
		{10, 2, 10, 6, 2, 1, true, 7},  // room 3 bounds the 4 unhealthy
		{3, 1, 2, 3, 1, 0, false, 2},   // room 0, even with an old RS reporting more available than its size
		{10, 2, 0, 0, 10, 10, false, 0},
	} {
		d := newDeployment("web", tc.replicas, "v2")
		d.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: intstr("0"), MaxUnavailable: intstr(fmt.Sprint(tc.unavail))}
		old := roundTrip(t, withStatus(newRS(newDeployment("web", tc.replicas, "v1"), "web-old", 1, tc.oldSize, -time.Hour), tc.oldSize, tc.oldAvail, tc.oldAvail))
		nrs := roundTrip(t, withStatus(newRS(d, "web-new", 2, tc.newSize, 0), tc.newSize, tc.newAvail, tc.newAvail))
		f := newFixture(t)
		var scaled bool
		f.with(func(s *syncer) {
			var err error
			scaled, err = s.reconcileOldReplicaSets(t.Context(), []*api.ReplicaSet{old, nrs}, []*api.ReplicaSet{old}, nrs, d)
			if err != nil {
				t.Fatal(err)
			}
		}, old, nrs)
		got := tc.oldSize
		if len(f.api.Actions()) > 0 {
			got = int32(f.api.Actions()[len(f.api.Actions())-1].Object()["spec"].(map[string]any)["replicas"].(float64))
		}
		if scaled != tc.wantScaled || got != tc.wantOld {
			t.Errorf("%+v: scaled %v, old %d (writes %q)", tc, scaled, got, f.rsSizes())
		}
	}
}

// TestScaleDownOldReplicaSetsForRollingUpdate follows rolling_test
// TestDeploymentController_scaleDownOldReplicaSetsForRollingUpdate: old
// ReplicaSets go down oldest first by the available replicas above
// minAvailable; a failed write stops it.
func TestScaleDownOldReplicaSetsForRollingUpdate(t *testing.T) {
	d := newDeployment("web", 6, "v3")
	d.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: intstr("0"), MaxUnavailable: intstr("1")}
	o1 := roundTrip(t, newRS(newDeployment("web", 6, "v1"), "web-o1", 1, 2, -3*time.Hour))
	o0 := roundTrip(t, newRS(newDeployment("web", 6, "v0"), "web-o0", 1, 0, -4*time.Hour))
	o2 := roundTrip(t, newRS(newDeployment("web", 6, "v2"), "web-o2", 2, 3, -2*time.Hour))
	nrs := roundTrip(t, newRS(d, "web-new", 3, 3, 0))
	f := newFixture(t)
	var n int32
	f.with(func(s *syncer) {
		var err error
		n, err = s.scaleDownOldReplicaSetsForRollingUpdate(t.Context(), []*api.ReplicaSet{o2, o1, o0, nrs}, []*api.ReplicaSet{o2, o0, o1}, d)
		if err != nil {
			t.Fatal(err)
		}
	}, o2, o1, o0, nrs)
	// 8 available, minAvailable 5: 3 go, 2 from the oldest, 1 from the next.
	if got := f.rsSizes(); n != 3 || !slices.Equal(got, []string{"web-o1=0", "web-o2=2"}) {
		t.Fatalf("scaled %d: %q", n, got)
	}
	f = newFixture(t)
	f.api.Fail(resttest.On("update", "replicasets"), rest.Status{Code: 500, Reason: "InternalError"})
	f.with(func(s *syncer) {
		n, err := s.scaleDownOldReplicaSetsForRollingUpdate(t.Context(), []*api.ReplicaSet{o2, o1, nrs}, []*api.ReplicaSet{o2, o1}, d)
		if err == nil || n != 0 || len(f.api.Actions()) != 1 {
			t.Fatalf("n %d err %v writes %q", n, err, f.writes())
		}
	}, o2, o1, nrs)
}

// TestScaleMore: proportional scaling caps a ReplicaSet's share by what
// is left to give (5 and 5 of 10 → 13: 7 and 6, not 7 and 7);
// scaling to 0 ignores maxSurge; the max-replicas annotation is
// spec.replicas + maxSurge; with the new ReplicaSet saturated every old
// one is scaled to 0.
func TestScaleMore(t *testing.T) {
	d := kcmDeployment(13, "0")
	a := roundTrip(t, withAnno(newRS(d, "a", 1, 5, -time.Hour), 10, 10))
	b := roundTrip(t, withAnno(newRS(d, "b", 1, 5, 0), 10, 10))
	f := newFixture(t)
	f.with(func(s *syncer) {
		if err := s.scale(t.Context(), d, b, []*api.ReplicaSet{a}); err != nil {
			t.Fatal(err)
		}
	}, a, b)
	if got := f.rsSizes(); !slices.Equal(got, []string{"b=7", "a=6"}) {
		t.Fatalf("13: %q", got)
	}
	// To 0 with a surge of 1: nothing is left anywhere.
	z := kcmDeployment(0, "1")
	f = newFixture(t)
	zn, zo := roundTrip(t, withAnno(newRS(z, "n", 2, 3, 0), 6, 7)), roundTrip(t, withAnno(newRS(z, "o", 1, 3, -time.Hour), 6, 7))
	f.with(func(s *syncer) {
		if err := s.scale(t.Context(), z, zn, []*api.ReplicaSet{zo}); err != nil {
			t.Fatal(err)
		}
	}, zn, zo)
	if got := f.rsSizes(); !slices.Equal(got, []string{"n=0", "o=0"}) && !slices.Equal(got, []string{"o=0", "n=0"}) {
		t.Fatalf("to 0: %q", got)
	}
	// The annotations written.
	s2 := kcmDeployment(20, "2")
	f = newFixture(t)
	sn, so := roundTrip(t, withAnno(newRS(s2, "n", 2, 6, 0), 10, 12)), roundTrip(t, withAnno(newRS(s2, "o", 1, 6, -time.Hour), 10, 12))
	f.with(func(s *syncer) {
		if err := s.scale(t.Context(), s2, sn, []*api.ReplicaSet{so}); err != nil {
			t.Fatal(err)
		}
	}, sn, so)
	for _, a := range f.api.Actions() {
		ann := a.Object()["metadata"].(map[string]any)["annotations"].(map[string]any)
		if ann[DesiredReplicasAnnotation] != "20" || ann[MaxReplicasAnnotation] != "22" {
			t.Errorf("%s annotations %v", a.Name, ann)
		}
	}
	// Saturated: both old ones go to 0.
	sd := newDeployment("web", 3, "v2")
	f = newFixture(t)
	sdNew := roundTrip(t, newRS(sd, "web-new", 3, 3, 0))
	sdOld := []*api.ReplicaSet{
		roundTrip(t, newRS(newDeployment("web", 3, "v1"), "web-o1", 1, 1, -2*time.Hour)),
		roundTrip(t, newRS(newDeployment("web", 3, "v0"), "web-o2", 2, 1, -time.Hour))}
	f.with(func(s *syncer) {
		if err := s.scale(t.Context(), sd, sdNew, sdOld); err != nil {
			t.Fatal(err)
		}
	}, append(sdOld, sdNew)...)
	if got := f.rsSizes(); len(got) != 2 {
		t.Fatalf("saturated: %q", got)
	}
}

// withAnno sets desired- and max-replicas.
func withAnno(rs *api.ReplicaSet, want, maxReplicas int32) *api.ReplicaSet {
	setReplicasAnnotations(rs, want, maxReplicas)
	return rs
}

// TestPausedCleanup: a paused Deployment still cleans up old ReplicaSets
// beyond its history limit (sync), unless a rollback is requested.
func TestPausedCleanup(t *testing.T) {
	for _, rollback := range []bool{false, true} {
		d := newDeployment("web", 1, "v2")
		d.Spec.Paused, d.Spec.RevisionHistoryLimit = true, i32(0)
		if rollback {
			d.Annotations = map[string]string{RollbackToAnnotation: "1"}
		}
		old := newRS(newDeployment("web", 1, "v1"), "web-old", 1, 0, -time.Hour)
		old.Status = api.ReplicaSetStatus{ObservedGeneration: 1}
		cur := newRS(d, "web-cur", 2, 1, 0)
		f := newFixture(t)
		f.load([]*api.Deployment{d}, old, cur)
		f.with(func(s *syncer) {
			list, err := s.claimReplicaSets(t.Context(), f.deployments[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := s.sync(t.Context(), f.deployments[0], list); err != nil {
				t.Fatal(err)
			}
		})
		_, deleted := f.find("delete replicasets ns/web-old")
		if deleted == rollback {
			t.Errorf("rollback requested %v: deleted %v", rollback, deleted)
		}
	}
	// A failing delete fails the sync.
	d := newDeployment("web", 1, "v2")
	d.Spec.Paused, d.Spec.RevisionHistoryLimit = true, i32(0)
	old := newRS(newDeployment("web", 1, "v1"), "web-old", 1, 0, -time.Hour)
	old.Status = api.ReplicaSetStatus{ObservedGeneration: 1}
	f := newFixture(t)
	f.load([]*api.Deployment{d}, old, newRS(d, "web-cur", 2, 1, 0))
	f.api.Fail(resttest.On("delete", "replicasets"), rest.Status{Code: 500, Reason: "InternalError"})
	if _, err := f.run("ns/web"); err == nil {
		t.Fatal("a failed delete passed")
	}
}

// TestRecreateWaitsForOldPodsWithExistingNew: with the new ReplicaSet
// already there (a rollback), a running pod of an old one still holds it
// back (oldPodsRunning skips only the new ReplicaSet's pods); once none
// runs, the new one is scaled up and the status written.
func TestRecreateWaitsForOldPodsWithExistingNew(t *testing.T) {
	d := recreateDeployment("v1")
	back := newRS(d, "web-v1", 1, 0, -2*time.Hour)
	cur := withStatus(newRS(recreateDeployment("v2"), "web-v2", 2, 0, -time.Hour), 0, 0, 0)
	f := newFixture(t)
	f.load([]*api.Deployment{d}, back, cur)
	f.pods = []*api.Pod{podOf(f.rsNamed("web-v2"), "p", api.PodRunning), podOf(f.rsNamed("web-v1"), "q", api.PodRunning)}
	doubleWrite(t, f)
	f.apply(false)
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if got := f.rsSizes(); slices.Contains(got, "web-v1=3") {
		t.Fatalf("scaled up with an old pod running: %q", got)
	}
	f.pods = f.pods[1:]
	f.api.Take()
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if got := f.rsSizes(); !slices.Contains(got, "web-v1=3") {
		t.Fatalf("not scaled up: %q", got)
	}
	st, ok := f.lastStatus()
	if !ok || api.GetDeploymentCondition(&st.Status, api.DeploymentAvailable) == nil {
		t.Fatalf("no rollout status written: %q", f.writes())
	}
	// Created: the rollout status follows too.
	f = newFixture(t)
	f.load([]*api.Deployment{recreateDeployment("v3")}, withStatus(newRS(recreateDeployment("v2"), "web-v2", 1, 0, 0), 0, 0, 0))
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if st, ok := f.lastStatus(); !ok || api.GetDeploymentCondition(&st.Status, api.DeploymentAvailable) == nil {
		t.Fatalf("no rollout status after creating: %q", f.writes())
	}
}

// TestRollbackKeepsDeploymentFields: the rollback write edits the
// Deployment's own JSON, so its fields kcm does not model survive.
func TestRollbackKeepsDeploymentFields(t *testing.T) {
	d := withUnmodelled(t, newDeployment("web", 3, "v2"))
	d.Annotations = map[string]string{RollbackToAnnotation: "7"}
	b, _ := json.Marshal(d)
	s := strings.Replace(string(b), `"containers":`, `"schedulingGates":[{"name":"gate"}],"containers":`, 1)
	dd, err := decode.Typed[api.Deployment]().Decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	f.deployments = []*api.Deployment{dd}
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	a, ok := f.find("update deployments ns/web")
	if !ok || !strings.Contains(string(a.Body), `"schedulingGates"`) || strings.Contains(string(a.Body), RollbackToAnnotation) {
		t.Fatalf("rollback write %s", a.Body)
	}
}
