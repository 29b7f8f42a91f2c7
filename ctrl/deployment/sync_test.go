package deployment

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// withUnmodelled returns d as the apiserver would send it with a template
// field kcm does not model (spec.schedulingGates) and an annotation.
func withUnmodelled(t *testing.T, d *api.Deployment) *api.Deployment {
	t.Helper()
	b, _ := json.Marshal(d)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	spec := m["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	spec["schedulingGates"] = []any{map[string]any{"name": "gate"}}
	b, _ = json.Marshal(m)
	out, err := decode.Typed[api.Deployment]().Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSyncCreatesReplicaSet: a new Deployment gets one ReplicaSet as
// kube-controller-manager makes it (getNewReplicaSet): named
// <deployment>-<hash>; the hash label on its labels, selector and
// template; the template copied from the Deployment's JSON (an unmodelled
// field survives); the Deployment's annotations except kubectl's
// last-applied; revision 1, desired- and max-replicas; a controller
// reference; replicas up to the surge fencepost. Then the Deployment's
// revision, a NewReplicaSetCreated condition and a ScalingReplicaSet event.
func TestSyncCreatesReplicaSet(t *testing.T) {
	d := newDeployment("web", 3, "nginx:1")
	d.Annotations = map[string]string{"team": "a", LastAppliedAnnotation: "{}"}
	f := newFixture(t)
	f.deployments = []*api.Deployment{withUnmodelled(t, d)}
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	post, ok := f.find("create replicasets")
	if !ok {
		t.Fatalf("no ReplicaSet created: %q", f.writes())
	}
	dt, _ := templateJSON(f.deployments[0], &f.deployments[0].Spec.Template)
	hash := ComputeHash(dt, nil)
	rs, err := decode.Typed[api.ReplicaSet]().Decode(post.Body)
	if err != nil {
		t.Fatal(err)
	}
	if rs.Name != "web-"+hash || rs.Namespace != "ns" {
		t.Errorf("name %s/%s, want ns/web-%s", rs.Namespace, rs.Name, hash)
	}
	for what, l := range map[string]map[string]string{"labels": rs.Labels, "selector": rs.Spec.Selector.MatchLabels, "template": rs.Spec.Template.Labels} {
		if l[PodTemplateHashLabel] != hash || l["app"] != "web" || len(l) != 2 {
			t.Errorf("%s %v", what, l)
		}
	}
	wantAnn := map[string]string{"team": "a", RevisionAnnotation: "1", DesiredReplicasAnnotation: "3", MaxReplicasAnnotation: "4"}
	if !mapsEqual(rs.Annotations, wantAnn) {
		t.Errorf("annotations %v, want %v", rs.Annotations, wantAnn)
	}
	ref := rs.ControllerRef()
	if len(rs.OwnerReferences) != 1 || ref == nil || ref.APIVersion != "apps/v1" || ref.Kind != "Deployment" ||
		ref.Name != "web" || ref.UID != "uid-web" || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("ownerReferences %+v", rs.OwnerReferences)
	}
	if *rs.Spec.Replicas != 3 || rs.Spec.Template.Spec.Containers[0].Image != "nginx:1" {
		t.Errorf("spec %+v", rs.Spec)
	}
	if !strings.Contains(string(post.Body), `"schedulingGates":[{"name":"gate"}]`) {
		t.Errorf("unmodelled template field lost: %s", post.Body)
	}
	if ev := f.eventList(); !slices.Equal(ev, []string{"Normal ScalingReplicaSet Scaled up replica set web-" + hash + " from 0 to 3"}) {
		t.Errorf("events %q", ev)
	}
	st, _ := f.lastStatus()
	if st.Annotations[RevisionAnnotation] != "1" {
		t.Errorf("deployment revision %q", st.Annotations[RevisionAnnotation])
	}
	c := api.GetDeploymentCondition(&st.Status, api.DeploymentProgressing)
	if c == nil || c.Status != api.ConditionTrue || c.Reason != ReasonNewReplicaSetCreated || c.Message != `Created new replica set "web-`+hash+`"` {
		t.Errorf("Progressing %+v", c)
	}
	a := api.GetDeploymentCondition(&st.Status, api.DeploymentAvailable)
	if a == nil || a.Status != api.ConditionFalse || a.Reason != ReasonMinimumReplicasUnavailable || a.Message != msgMinimumUnavailable {
		t.Errorf("Available %+v", a)
	}
	if st.Status.ObservedGeneration != 1 || st.Status.UnavailableReplicas != 3 {
		t.Errorf("status %+v", st.Status)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestSyncTakesOverKubeControllerManagersReplicaSet: a ReplicaSet whose
// hash label kube-controller-manager computed (not kcm's) but whose
// template equals the Deployment's is the new ReplicaSet
// (FindNewReplicaSet by EqualIgnoreHash): nothing is created, nothing
// scaled.
func TestSyncTakesOverKubeControllerManagersReplicaSet(t *testing.T) {
	d := newDeployment("web", 3, "nginx:1")
	d.Annotations = map[string]string{RevisionAnnotation: "1"}
	rs := newRS(d, "web-5d8f9c7b6", 1, 3, -time.Hour)
	f := newFixture(t)
	f.load([]*api.Deployment{d}, rs)
	d2 := f.deployments[0]
	d2.Status = api.DeploymentStatus{ObservedGeneration: 1, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3}
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	for _, w := range f.writes() {
		if strings.HasPrefix(w, "create") || strings.Contains(w, "replicasets") {
			t.Errorf("unexpected write %s", w)
		}
	}
	st, ok := f.lastStatus()
	if !ok {
		t.Fatal("no status written")
	}
	c := api.GetDeploymentCondition(&st.Status, api.DeploymentProgressing)
	if c == nil || c.Reason != ReasonNewReplicaSetAvailable || c.Message != `ReplicaSet "web-5d8f9c7b6" has successfully progressed.` {
		t.Errorf("Progressing %+v", c)
	}
	if a := api.GetDeploymentCondition(&st.Status, api.DeploymentAvailable); a == nil || a.Status != api.ConditionTrue || a.Message != msgMinimumAvailable {
		t.Errorf("Available %+v", a)
	}
}

// TestRollingUpdateRespectsFenceposts plays a rolling update of 3
// replicas with maxSurge 1 and maxUnavailable 0 to its end, each
// ReplicaSet's status catching up between syncs, and checks at every
// step that the ReplicaSets' specs never exceed 3+1 and that the
// available replicas never drop below 3 (rolloutRolling,
// reconcileNewReplicaSet, reconcileOldReplicaSets); the old ReplicaSet
// keeps revision 1 at 0 replicas, as seen with kube-controller-manager.
func TestRollingUpdateRespectsFenceposts(t *testing.T) {
	for _, tc := range []struct {
		surge, unavail string
		maxTotal       int32
		minAvailable   int32
	}{
		{"1", "0", 4, 3},
		{"0", "1", 3, 2},
		{"25%", "25%", 4, 3}, // 3 replicas: surge rounds up to 1, unavailability down to 0
		{"50%", "50%", 5, 2},
	} {
		d := newDeployment("web", 3, "v1")
		d.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: intstr(tc.surge), MaxUnavailable: intstr(tc.unavail)}
		old := newRS(d, "web-old", 1, 3, -time.Hour)
		d.Spec.Template.Spec.Containers = []api.Container{{Name: "c", Image: "v2"}}
		d.Annotations = map[string]string{RevisionAnnotation: "1"}
		f := newFixture(t)
		f.load([]*api.Deployment{d}, old)
		var steps []string
		for i := 0; i < 20; i++ {
			if _, err := f.run("ns/web"); err != nil {
				t.Fatal(err)
			}
			f.apply(false)
			total := totalSpecReplicas(f.replicaSets)
			if total > tc.maxTotal {
				t.Fatalf("%s/%s: step %d: %v exceeds %d", tc.surge, tc.unavail, i, f.sizes(), tc.maxTotal)
			}
			f.apply(true)
			if avail := totalAvailable(f.replicaSets); avail < tc.minAvailable {
				t.Fatalf("%s/%s: step %d: %v has %d available, below %d", tc.surge, tc.unavail, i, f.sizes(), avail, tc.minAvailable)
			}
			steps = append(steps, strings.Join(f.sizes(), ","))
			if len(steps) > 1 && steps[len(steps)-1] == steps[len(steps)-2] {
				break
			}
		}
		t.Logf("%s/%s: %q", tc.surge, tc.unavail, steps)
		last := f.sizes()
		if len(last) != 2 || last[0] == last[1] || !strings.HasSuffix(last[1], "=0") && !strings.HasSuffix(last[0], "=0") {
			t.Fatalf("%s/%s: ended at %v (steps %q)", tc.surge, tc.unavail, last, steps)
		}
		if o := f.rsNamed("web-old"); specReplicas(o) != 0 || o.Annotations[RevisionAnnotation] != "1" {
			t.Fatalf("old ReplicaSet %v %v", specReplicas(o), o.Annotations)
		}
		if got := f.deployments[0].Annotations[RevisionAnnotation]; got != "2" {
			t.Fatalf("deployment revision %q", got)
		}
	}
}

// TestRollingUpdateFirstSteps: the exact first steps for 3 replicas,
// maxSurge 1, maxUnavailable 0, with their events ("Scaled up/down
// replica set %s from %d to %d", kube-controller-manager's wording).
func TestRollingUpdateFirstSteps(t *testing.T) {
	d := newDeployment("web", 3, "v1")
	d.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: intstr("1"), MaxUnavailable: intstr("0")}
	old := newRS(d, "web-old", 1, 3, -time.Hour)
	d.Spec.Template.Spec.Containers = []api.Container{{Name: "c", Image: "v2"}}
	f := newFixture(t)
	f.load([]*api.Deployment{d}, old)
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	newName := ""
	if p, ok := f.find("create replicasets"); ok {
		newName = p.Name
	}
	want := []string{"Normal ScalingReplicaSet Scaled up replica set " + newName + " from 0 to 1"}
	if ev := f.eventList(); newName == "" || !slices.Equal(ev, want) {
		t.Fatalf("step 1 events %q, want %q", ev, want)
	}
	f.apply(false) // the new pod is not available yet
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if ev := f.eventList(); len(ev) != 0 {
		t.Fatalf("with the new pod unavailable: events %q", ev)
	}
	f.apply(true)
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	want = []string{"Normal ScalingReplicaSet Scaled down replica set web-old from 3 to 2"}
	if ev := f.eventList(); !slices.Equal(ev, want) {
		t.Fatalf("step 3 events %q, want %q", ev, want)
	}
}

// TestSyncCreateFailure: a ReplicaSet the apiserver refuses gives a
// Warning ReplicaSetCreateError event and Progressing=False with that
// reason (getNewReplicaSet), and the sync fails so that it is retried
// with backoff.
func TestSyncCreateFailure(t *testing.T) {
	d := newDeployment("web", 3, "nginx:1")
	f := newFixture(t)
	f.load([]*api.Deployment{d})
	f.api.Fail(resttest.On("create", "replicasets"), rest.Status{Code: 422, Reason: "Invalid", Message: "bad template"})
	_, err := f.run("ns/web")
	if !rest.IsInvalid(err) {
		t.Fatalf("error %v, want Invalid", err)
	}
	ev := f.eventList()
	if len(ev) != 1 || !strings.HasPrefix(ev[0], `Warning ReplicaSetCreateError Failed to create new replica set "web-`) {
		t.Fatalf("events %q", ev)
	}
	st, ok := f.lastStatus()
	if !ok {
		t.Fatal("no status written")
	}
	c := api.GetDeploymentCondition(&st.Status, api.DeploymentProgressing)
	if c == nil || c.Status != api.ConditionFalse || c.Reason != ReasonFailedRSCreate || !strings.Contains(c.Message, "bad template") {
		t.Fatalf("Progressing %+v", c)
	}
	// Without a progress deadline: the event, no condition.
	f = newFixture(t)
	d.Spec.ProgressDeadlineSeconds = nil
	f.load([]*api.Deployment{d})
	f.api.Fail(resttest.On("create", "replicasets"), rest.Status{Code: 403, Reason: "Forbidden"})
	if _, err := f.run("ns/web"); !rest.IsForbidden(err) {
		t.Fatalf("error %v", err)
	}
	if _, ok := f.lastStatus(); ok || len(f.eventList()) != 1 {
		t.Fatalf("writes %q events %q", f.writes(), f.eventList())
	}
}

// TestSyncNamespaceTerminating: a create refused because the namespace
// is going away is not an error (handleErr forgets the key), and records
// no event.
func TestSyncNamespaceTerminating(t *testing.T) {
	f := newFixture(t)
	f.load([]*api.Deployment{newDeployment("web", 3, "nginx:1")})
	f.api.Fail(resttest.On("create", "replicasets"), rest.Status{Code: 403, Reason: "Forbidden",
		Details: &rest.StatusDetails{Causes: []rest.StatusCause{{Type: "NamespaceTerminating"}}}})
	if _, err := f.run("ns/web"); err != nil {
		t.Fatalf("error %v", err)
	}
	if ev := f.eventList(); len(ev) != 0 {
		t.Fatalf("events %q", ev)
	}
}

// TestSyncHashCollision: the name is taken by a ReplicaSet that is not
// this Deployment's: collisionCount goes 0 → 1 (so the next hash
// differs) and the sync fails to run again. One of the Deployment's own
// with an equal template is simply used.
func TestSyncHashCollision(t *testing.T) {
	d := newDeployment("web", 3, "nginx:1")
	f := newFixture(t)
	f.load([]*api.Deployment{d})
	dt, _ := templateJSON(f.deployments[0], &f.deployments[0].Spec.Template)
	name := "web-" + ComputeHash(dt, nil)
	other := newRS(newDeployment("other", 1, "x"), name, 1, 1, 0)
	other.Labels = map[string]string{"app": "zzz"}
	f.load(nil, other)
	f.api.Fail(resttest.On("create", "replicasets"), rest.Status{Code: 409, Reason: "AlreadyExists"})
	if _, err := f.run("ns/web"); !rest.IsAlreadyExists(err) {
		t.Fatalf("error %v", err)
	}
	st, ok := f.lastStatus()
	if !ok || st.Status.CollisionCount == nil || *st.Status.CollisionCount != 1 {
		t.Fatalf("status %+v", st)
	}
	if next := ComputeHash(dt, st.Status.CollisionCount); "web-"+next == name {
		t.Fatal("the bumped count gives the same name")
	}

	// The Deployment's own ReplicaSet (the cache was behind).
	f = newFixture(t)
	d.Status.CollisionCount = i32(4)
	f.load([]*api.Deployment{d})
	pt, err := templateOf(f.deployments[0], &f.deployments[0].Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	name = "web-" + ComputeHash(pt.json, i32(4))
	mine := newRS(d, name, 1, 3, 0)
	f.api.Fail(resttest.On("create", "replicasets"), rest.Status{Code: 409, Reason: "AlreadyExists"})
	f.with(func(s *syncer) {
		got, err := s.createNewReplicaSet(t.Context(), f.deployments[0], pt, nil, 1)
		if err == nil {
			t.Fatal("created with the name taken and not in the cache")
		}
		_ = got
	})
	f.load(nil, mine)
	f.with(func(s *syncer) {
		got, err := s.createNewReplicaSet(t.Context(), f.deployments[0], pt, nil, 1)
		if err != nil || got == nil || got.Name != name {
			t.Fatalf("got %v, %v", got, err)
		}
	})
	if ev := f.eventList(); len(ev) != 0 {
		t.Fatalf("events for an existing ReplicaSet: %q", ev)
	}
}

// TestSyncSelectingAll: an empty selector selects every pod; KCM records
// a Warning and only advances observedGeneration.
func TestSyncSelectingAll(t *testing.T) {
	d := newDeployment("web", 3, "nginx:1")
	d.Spec.Selector = &api.LabelSelector{}
	d.Generation = 2
	f := newFixture(t)
	f.load([]*api.Deployment{d})
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if ev := f.eventList(); !slices.Equal(ev, []string{"Warning SelectingAll This deployment is selecting all pods. A non-empty selector is required."}) {
		t.Fatalf("events %q", ev)
	}
	if !resttest.Expect(t, f.api.Actions(), "update deployments/status ns/web") {
		t.FailNow()
	}
	if st, _ := f.lastStatus(); st.Status.ObservedGeneration != 2 {
		t.Fatalf("observedGeneration %d", st.Status.ObservedGeneration)
	}
	// Already observed: no write.
	f = newFixture(t)
	d.Status.ObservedGeneration = 2
	f.load([]*api.Deployment{d})
	if _, err := f.run("ns/web"); err != nil || len(f.writes()) != 0 {
		t.Fatalf("writes %q err %v", f.writes(), err)
	}
}

// TestSyncInvalidSelector: a selector that does not compile fails the
// sync (retried with backoff) without writing anything.
func TestSyncInvalidSelector(t *testing.T) {
	d := newDeployment("web", 3, "nginx:1")
	d.Spec.Selector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}}
	f := newFixture(t)
	f.load([]*api.Deployment{d})
	if _, err := f.run("ns/web"); !errors.Is(err, ErrInvalidSelector) {
		t.Fatalf("error %v", err)
	}
	if w := f.writes(); len(w) != 0 {
		t.Fatalf("writes %q", w)
	}
}

// TestSyncDeletedOrMissing: a Deployment gone from the cache is not an
// error and nothing is written.
func TestSyncDeletedOrMissing(t *testing.T) {
	f := newFixture(t)
	if res, err := f.run("ns/gone"); err != nil || res.RequeueAfter != 0 || len(f.writes()) != 0 {
		t.Fatalf("res %v err %v writes %q", res, err, f.writes())
	}
}

// TestSyncBeingDeleted: a Deployment with a deletionTimestamp only gets
// its status (syncStatusOnly): no ReplicaSet created or scaled.
func TestSyncBeingDeleted(t *testing.T) {
	d := newDeployment("web", 5, "nginx:2")
	now := api.NewTime(t0)
	d.DeletionTimestamp = &now
	rs := newRS(newDeployment("web", 3, "nginx:1"), "web-a", 1, 3, 0)
	f := newFixture(t)
	f.load([]*api.Deployment{d}, rs)
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if !resttest.Expect(t, f.api.Actions(), "update deployments/status ns/web") {
		t.FailNow()
	}
	st, _ := f.lastStatus()
	if st.Status.Replicas != 3 || st.Status.UpdatedReplicas != 0 || st.Status.AvailableReplicas != 3 {
		t.Fatalf("status %+v", st.Status)
	}
}

// TestSplitKey: "ns/name" and a bare name.
func TestSplitKey(t *testing.T) {
	if ns, n := splitKey("a/b"); ns != "a" || n != "b" {
		t.Fatal(ns, n)
	}
	if ns, n := splitKey("b"); ns != "" || n != "b" {
		t.Fatal(ns, n)
	}
}

// TestWriteFailures: a failed ReplicaSet write fails the sync (scale,
// Recreate) and records no event; a failed status write fails it too.
func TestWriteFailures(t *testing.T) {
	d := newDeployment("web", 5, "v1")
	rs := newRS(newDeployment("web", 3, "v1"), "web-a", 1, 3, 0)
	f := newFixture(t)
	f.load([]*api.Deployment{d}, rs)
	f.api.Fail(resttest.On("update", "replicasets"), rest.Status{Code: 500, Reason: "InternalError"})
	if _, err := f.run("ns/web"); err == nil || len(f.eventList()) != 0 {
		t.Fatalf("scale: err %v events %q", err, f.eventList())
	}
	f = newFixture(t)
	old := newRS(recreateDeployment("v1"), "web-old", 1, 3, 0)
	f.load([]*api.Deployment{recreateDeployment("v2")}, old)
	f.api.Fail(resttest.On("update", "replicasets"), rest.Status{Code: 409, Reason: "Conflict"})
	if _, err := f.run("ns/web"); !rest.IsConflict(err) {
		t.Fatalf("recreate: err %v", err)
	}
	f = newFixture(t)
	f.load([]*api.Deployment{newDeployment("web", 3, "v1")})
	f.api.Fail(resttest.On("update", "deployments/status"), rest.Status{Code: 409, Reason: "Conflict"})
	if _, err := f.run("ns/web"); !rest.IsConflict(err) {
		t.Fatalf("status: err %v", err)
	}
}
