package deployment

import (
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// stuckRollout is a rollout of 3 replicas whose new ReplicaSet (1
// replica) never becomes available, its Progressing condition last
// refreshed at lastUpdate, with a 600 s deadline.
func stuckRollout(t *testing.T, lastUpdate time.Time) *fixture {
	d := newDeployment("web", 3, "v1")
	d.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: intstr("1"), MaxUnavailable: intstr("0")}
	old := newRS(d, "web-old", 1, 3, -time.Hour)
	d.Spec.Template.Spec.Containers = []api.Container{{Name: "c", Image: "v2"}}
	nrs := withStatus(newRS(d, "web-new", 2, 1, 0), 1, 0, 0)
	d.Annotations = map[string]string{RevisionAnnotation: "2"}
	at := api.NewTime(lastUpdate)
	d.Status = api.DeploymentStatus{ObservedGeneration: 1, Replicas: 4, UpdatedReplicas: 1, ReadyReplicas: 3, AvailableReplicas: 3, UnavailableReplicas: 1,
		Conditions: []api.DeploymentCondition{
			{Type: api.DeploymentAvailable, Status: api.ConditionTrue, Reason: ReasonMinimumReplicasAvailable, Message: msgMinimumAvailable, LastUpdateTime: at, LastTransitionTime: at},
			{Type: api.DeploymentProgressing, Status: api.ConditionTrue, Reason: ReasonReplicaSetUpdated, Message: `ReplicaSet "web-new" is progressing.`, LastUpdateTime: at, LastTransitionTime: at},
		}}
	f := newFixture(t)
	f.load([]*api.Deployment{d}, old, nrs)
	return f
}

// TestProgressDeadline follows progress.go: a rollout making no progress
// writes nothing and asks to be synced one second after its deadline
// (requeueStuckDeployment); past the deadline the condition turns False
// with ProgressDeadlineExceeded and kube-controller-manager's message
// (DeploymentTimedOut), keeping its place as timed out afterwards.
func TestProgressDeadline(t *testing.T) {
	f := stuckRollout(t, t0.Add(-4*time.Minute))
	res, err := f.run("ns/web")
	if err != nil {
		t.Fatal(err)
	}
	if w := f.writes(); len(w) != 0 {
		t.Fatalf("writes %q", w)
	}
	if want := 6*time.Minute + time.Second; res.RequeueAfter != want {
		t.Fatalf("RequeueAfter %v, want %v", res.RequeueAfter, want)
	}
	// Less than a second to go: check again in a second.
	f = stuckRollout(t, t0.Add(-600*time.Second+500*time.Millisecond))
	if res, _ := f.run("ns/web"); res.RequeueAfter != time.Second {
		t.Fatalf("RequeueAfter %v near the deadline", res.RequeueAfter)
	}
	// Exactly at the deadline: not yet timed out (Before, not !After).
	f = stuckRollout(t, t0.Add(-600*time.Second))
	if _, err := f.run("ns/web"); err != nil || len(f.writes()) != 0 {
		t.Fatalf("at the deadline: writes %q err %v", f.writes(), err)
	}
	// Past it.
	f = stuckRollout(t, t0.Add(-601*time.Second))
	res, err = f.run("ns/web")
	if err != nil {
		t.Fatal(err)
	}
	st, ok := f.lastStatus()
	if !ok {
		t.Fatal("no status written")
	}
	c := api.GetDeploymentCondition(&st.Status, api.DeploymentProgressing)
	if c == nil || c.Status != api.ConditionFalse || c.Reason != ReasonProgressDeadlineExceeded ||
		c.Message != `ReplicaSet "web-new" has timed out progressing.` || !c.LastTransitionTime.Equal(t0) {
		t.Fatalf("Progressing %+v", c)
	}
	if res.RequeueAfter != 0 {
		t.Fatalf("timed out and still requeued after %v", res.RequeueAfter)
	}
	// Timed out stays timed out, with no requeue.
	f.apply(false)
	f.clock.Step(time.Hour)
	if res, err := f.run("ns/web"); err != nil || res.RequeueAfter != 0 || len(f.writes()) != 0 {
		t.Fatalf("res %v err %v writes %q", res, err, f.writes())
	}
}

// TestProgressRefresh: a step forward refreshes lastUpdateTime and keeps
// the lastTransitionTime of a True condition (syncRolloutStatus's
// ReplicaSetUpdated case); the rollout finishing says
// NewReplicaSetAvailable.
func TestProgressRefresh(t *testing.T) {
	f := stuckRollout(t, t0.Add(-4*time.Minute))
	nrs := withStatus(roundTrip(t, f.rsNamed("web-new")), 1, 1, 1)
	f.replicaSets = replaceRS(f.replicaSets, nrs)
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	st, ok := f.lastStatus()
	if !ok {
		t.Fatal("no status written")
	}
	c := api.GetDeploymentCondition(&st.Status, api.DeploymentProgressing)
	if c == nil || c.Reason != ReasonReplicaSetUpdated || !c.LastUpdateTime.Equal(t0) || !c.LastTransitionTime.Equal(t0.Add(-4*time.Minute)) {
		t.Fatalf("Progressing %+v", c)
	}
	// Play the rollout to its end.
	for i := 0; i < 10; i++ {
		f.apply(true)
		if _, err := f.run("ns/web"); err != nil {
			t.Fatal(err)
		}
	}
	f.apply(true)
	c = api.GetDeploymentCondition(&f.deployments[0].Status, api.DeploymentProgressing)
	if c == nil || c.Status != api.ConditionTrue || c.Reason != ReasonNewReplicaSetAvailable || c.Message != `ReplicaSet "web-new" has successfully progressed.` {
		t.Fatalf("Progressing %+v (sizes %v)", c, f.sizes())
	}
	st2 := f.deployments[0].Status
	if st2.Replicas != 3 || st2.UpdatedReplicas != 3 || st2.ReadyReplicas != 3 || st2.AvailableReplicas != 3 || st2.UnavailableReplicas != 0 {
		t.Fatalf("status %+v", st2)
	}
}

// TestPausedConditions: pausing sets Progressing Unknown/DeploymentPaused
// "Deployment is paused" and stops the rollout (no new ReplicaSet for a
// changed template); resuming sets DeploymentResumed "Deployment is
// resumed" (checkPausedConditions).
func TestPausedConditions(t *testing.T) {
	d := newDeployment("web", 3, "v1")
	old := newRS(d, "web-old", 1, 3, -time.Hour)
	d.Spec.Template.Spec.Containers = []api.Container{{Name: "c", Image: "v2"}}
	d.Spec.Paused = true
	f := newFixture(t)
	f.load([]*api.Deployment{d}, old)
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.find("create replicasets"); ok {
		t.Fatal("a paused Deployment rolled out")
	}
	f.apply(false)
	c := api.GetDeploymentCondition(&f.deployments[0].Status, api.DeploymentProgressing)
	if c == nil || c.Status != api.ConditionUnknown || c.Reason != ReasonDeploymentPaused || c.Message != "Deployment is paused" {
		t.Fatalf("paused: %+v", c)
	}
	// Scaling while paused still happens (sync).
	f.deployments[0].Spec.Replicas = i32(5)
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if got := f.rsSizes(); !slices.Equal(got, []string{"web-old=5"}) {
		t.Fatalf("paused scale writes %q", got)
	}
	f.apply(true)
	f.deployments[0].Spec.Paused = false
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	var resumed bool
	for _, a := range f.api.Actions() {
		if a.Resource == "deployments" && a.Subresource == "status" {
			d, _ := decode.Typed[api.Deployment]().Decode(a.Body)
			if c := api.GetDeploymentCondition(&d.Status, api.DeploymentProgressing); c != nil && c.Reason == ReasonDeploymentResumed && c.Message == "Deployment is resumed" && c.Status == api.ConditionUnknown {
				resumed = true
			}
		}
	}
	if !resumed {
		t.Fatalf("no DeploymentResumed written: %q", f.writes())
	}
	if _, ok := f.find("create replicasets"); !ok {
		t.Fatal("resumed Deployment did not roll out")
	}
}

// TestSetDeploymentCondition: same status and reason changes nothing;
// same status keeps the transition time; another status moves both.
func TestSetDeploymentCondition(t *testing.T) {
	t1, t2 := api.NewTime(t0), api.NewTime(t0.Add(time.Minute))
	st := &api.DeploymentStatus{Conditions: []api.DeploymentCondition{{Type: "A", Status: api.ConditionTrue, Reason: "r", LastUpdateTime: t1, LastTransitionTime: t1}}}
	setDeploymentCondition(st, api.DeploymentCondition{Type: "A", Status: api.ConditionTrue, Reason: "r", Message: "new", LastUpdateTime: t2, LastTransitionTime: t2})
	if c := st.Conditions[0]; c.Message != "" || !c.LastUpdateTime.Equal(t1.Time) {
		t.Fatalf("same status and reason changed %+v", c)
	}
	setDeploymentCondition(st, api.DeploymentCondition{Type: "A", Status: api.ConditionTrue, Reason: "s", LastUpdateTime: t2, LastTransitionTime: t2})
	if c := st.Conditions[0]; c.Reason != "s" || !c.LastUpdateTime.Equal(t2.Time) || !c.LastTransitionTime.Equal(t1.Time) {
		t.Fatalf("same status %+v", c)
	}
	setDeploymentCondition(st, api.DeploymentCondition{Type: "A", Status: api.ConditionFalse, Reason: "s", LastUpdateTime: t2, LastTransitionTime: t2})
	if c := st.Conditions[0]; c.Status != api.ConditionFalse || !c.LastTransitionTime.Equal(t2.Time) || len(st.Conditions) != 1 {
		t.Fatalf("new status %+v", st.Conditions)
	}
}

// TestReplicaFailureCondition: a ReplicaFailure on the new ReplicaSet (or
// else any) is copied to the Deployment, and removed when gone
// (getReplicaFailures).
func TestReplicaFailureCondition(t *testing.T) {
	f := stuckRollout(t, t0)
	nrs := roundTrip(t, f.rsNamed("web-new"))
	nrs.Status.Conditions = []api.ReplicaSetCondition{{Type: api.ReplicaSetReplicaFailure, Status: api.ConditionTrue, Reason: "FailedCreate", Message: "quota", LastTransitionTime: api.NewTime(t0)}}
	f.replicaSets = replaceRS(f.replicaSets, nrs)
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	st, ok := f.lastStatus()
	if !ok {
		t.Fatal("no status")
	}
	c := api.GetDeploymentCondition(&st.Status, api.DeploymentReplicaFailure)
	if c == nil || c.Reason != "FailedCreate" || c.Message != "quota" || c.Status != api.ConditionTrue {
		t.Fatalf("ReplicaFailure %+v", c)
	}
	old := replicaFailures([]*api.ReplicaSet{nrs, nil}, nil)
	if len(old) != 1 {
		t.Fatalf("failures of any ReplicaSet: %v", old)
	}
	f.apply(false)
	nrs = roundTrip(t, f.rsNamed("web-new"))
	nrs.Status.Conditions = nil
	f.replicaSets = replaceRS(f.replicaSets, nrs)
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if st, ok := f.lastStatus(); !ok || api.GetDeploymentCondition(&st.Status, api.DeploymentReplicaFailure) != nil {
		t.Fatalf("ReplicaFailure kept: %v", ok)
	}
}

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
