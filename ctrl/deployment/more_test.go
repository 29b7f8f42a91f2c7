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

// TestAnnotationRollback follows rollback.go: the
// deprecated.deployment.rollback.to annotation copies that revision's
// template (without the hash label, with fields kcm does not model) and
// annotations into the Deployment and removes itself; 0 means the
// previous revision; a missing revision or an unchanged template only
// clears the request, with kube-controller-manager's Warning events.
func TestAnnotationRollback(t *testing.T) {
	v1d := newDeployment("web", 3, "v1")
	v1d.Annotations = map[string]string{"note": "one"}
	v1 := withRawField(t, newRS(v1d, "web-v1", 1, 0, -2*time.Hour))
	v1.Annotations["note"] = "one"
	d := newDeployment("web", 3, "v2")
	v2 := newRS(d, "web-v2", 2, 3, -time.Hour)
	for _, tc := range []struct {
		to        string
		wantEvent string
		wantImage string
	}{
		{"1", "Normal DeploymentRollback Rolled back deployment \"web\" to revision 1", "v1"},
		{"0", "Normal DeploymentRollback Rolled back deployment \"web\" to revision 1", "v1"},
		{"2", "Warning DeploymentRollbackTemplateUnchanged The rollback revision contains the same template as current deployment \"web\"", ""},
		{"7", "Warning DeploymentRollbackRevisionNotFound Unable to find the revision to rollback to.", ""},
	} {
		dd := roundTrip(t, d)
		dd.Annotations = map[string]string{RollbackToAnnotation: tc.to, RevisionAnnotation: "2", "note": "two"}
		f := newFixture(t)
		f.load([]*api.Deployment{dd}, v2)
		f.replicaSets = append(f.replicaSets, v1) // as is: load would drop its raw JSON
		if _, err := f.run("ns/web"); err != nil {
			t.Fatal(err)
		}
		if ev := f.eventList(); !slices.Equal(ev, []string{tc.wantEvent}) {
			t.Errorf("to %s: events %q", tc.to, ev)
		}
		a, ok := f.find("update deployments ns/web")
		if !ok {
			t.Fatalf("to %s: no update: %q", tc.to, f.writes())
		}
		got, _ := decode.Typed[api.Deployment]().Decode(a.Body)
		if _, still := got.Annotations[RollbackToAnnotation]; still || got.Annotations[RevisionAnnotation] != "2" {
			t.Errorf("to %s: annotations %v", tc.to, got.Annotations)
		}
		if tc.wantImage == "" {
			continue
		}
		if img := got.Spec.Template.Spec.Containers[0].Image; img != tc.wantImage || got.Annotations["note"] != "one" {
			t.Errorf("to %s: image %s annotations %v", tc.to, img, got.Annotations)
		}
		if _, hashed := got.Spec.Template.Labels[PodTemplateHashLabel]; hashed {
			t.Errorf("to %s: hash label copied", tc.to)
		}
		if !strings.Contains(string(a.Body), `"dnsConfig"`) {
			t.Errorf("to %s: unmodelled template field lost: %s", tc.to, a.Body)
		}
	}
	// Revision 0 with no earlier revision.
	dd := roundTrip(t, d)
	dd.Annotations = map[string]string{RollbackToAnnotation: "0"}
	f := newFixture(t)
	f.load([]*api.Deployment{dd})
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if ev := f.eventList(); len(ev) < 1 || ev[len(ev)-1] != "Warning DeploymentRollbackRevisionNotFound Unable to find last revision." {
		t.Errorf("events %q", ev)
	}
	// Unreadable requests are no requests.
	for _, v := range []string{"", "x"} {
		if rollbackTo(&api.Deployment{ObjectMeta: api.ObjectMeta{Annotations: map[string]string{RollbackToAnnotation: v}}}) != nil {
			t.Errorf("%q read as a request", v)
		}
	}
}

// withRawField gives a ReplicaSet's template an unmodelled dnsConfig.
func withRawField(t *testing.T, rs *api.ReplicaSet) *api.ReplicaSet {
	t.Helper()
	rs = roundTrip(t, rs)
	s := strings.Replace(string(rs.Raw()), `"containers":`, `"dnsConfig":{"options":[{"name":"ndots"}]},"containers":`, 1)
	out, err := decode.Typed[api.ReplicaSet]().Decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRevisions: MaxRevision and LastRevision skip unreadable values;
// LastRevision is the second highest.
func TestRevisions(t *testing.T) {
	d := newDeployment("d", 1, "x")
	mk := func(rev string) *api.ReplicaSet {
		rs := newRS(d, "d-"+rev, 0, 0, 0)
		rs.Annotations[RevisionAnnotation] = rev
		if rev == "" {
			delete(rs.Annotations, RevisionAnnotation)
		}
		return rs
	}
	rss := []*api.ReplicaSet{mk("3"), mk("x"), mk("7"), mk("5"), mk("")}
	if got := maxRevision(rss); got != 7 {
		t.Errorf("maxRevision %d", got)
	}
	if got := lastRevision(rss); got != 5 {
		t.Errorf("lastRevision %d", got)
	}
	if got := lastRevision([]*api.ReplicaSet{mk("4"), mk("9"), mk("2")}); got != 4 {
		t.Errorf("lastRevision %d", got)
	}
	if got := lastRevision([]*api.ReplicaSet{mk("4"), mk("4")}); got != 4 {
		t.Errorf("lastRevision of equals %d", got)
	}
}

// TestOrders: the sorts of controller_utils.go and deployment_util.go.
func TestOrders(t *testing.T) {
	d := newDeployment("d", 1, "x")
	mk := func(name string, size int32, age time.Duration, rev string) *api.ReplicaSet {
		rs := newRS(d, name, 0, size, age)
		rs.Annotations[RevisionAnnotation] = rev
		return rs
	}
	a := mk("a", 2, -3*time.Hour, "1")
	b := mk("b", 5, -2*time.Hour, "3")
	c := mk("c", 2, -time.Hour, "2")
	c2 := mk("c2", 2, -time.Hour, "x")
	names := func(rss []*api.ReplicaSet) string {
		var s []string
		for _, rs := range rss {
			s = append(s, rs.Name)
		}
		return strings.Join(s, ",")
	}
	for _, tc := range []struct {
		name string
		cmp  func(a, b *api.ReplicaSet) int
		want string
	}{
		{"byCreation", byCreation, "a,b,c,c2"},
		{"bySizeOlder", bySizeOlder, "b,a,c,c2"},
		{"bySizeNewer", bySizeNewer, "b,c2,c,a"},
		{"byRevision", byRevision, "a,c,b,c2"},
	} {
		rss := []*api.ReplicaSet{c2, c, b, a}
		slices.SortStableFunc(rss, tc.cmp)
		if got := names(rss); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	if r := findActiveOrLatest(nil, nil); r != nil {
		t.Error("findActiveOrLatest of nothing")
	}
	z1, z2 := mk("z1", 0, -2*time.Hour, "1"), mk("z2", 0, -time.Hour, "2")
	if r := findActiveOrLatest(nil, []*api.ReplicaSet{z1, z2}); r != z2 {
		t.Errorf("latest of inactive: %v", r.Name)
	}
	if r := findActiveOrLatest(z1, []*api.ReplicaSet{z2}); r != z1 {
		t.Errorf("new of inactive: %v", r.Name)
	}
	if r := findActiveOrLatest(z1, []*api.ReplicaSet{z2, a}); r != a {
		t.Errorf("the one active: %v", r.Name)
	}
	if r := findActiveOrLatest(b, []*api.ReplicaSet{a}); r != nil {
		t.Errorf("two active: %v", r.Name)
	}
}

// TestReplicaSetName: <deployment>-<hash>, the deployment's name cut so
// that the whole is at most 253 characters (generateReplicaSetName).
func TestReplicaSetName(t *testing.T) {
	if got := replicaSetName("web", "abc"); got != "web-abc" {
		t.Fatal(got)
	}
	long := strings.Repeat("x", 260)
	if got := replicaSetName(long, "abcd"); len(got) != 253 || !strings.HasSuffix(got, "x-abcd") {
		t.Fatalf("%d %s", len(got), got[240:])
	}
	exact := strings.Repeat("y", 248)
	if got := replicaSetName(exact, "abcd"); got != exact+"-abcd" {
		t.Fatal("cut a name that fits")
	}
}

// TestCleanupUnhealthyReplicas follows rolling_test
// TestDeploymentController_cleanupUnhealthyReplicas: unavailable old
// replicas go first, oldest ReplicaSet first, at most maxCleanup.
func TestCleanupUnhealthyReplicas(t *testing.T) {
	d := newDeployment("web", 10, "v2")
	for _, tc := range []struct {
		specs, avail []int32
		maxCleanup   int32
		want         []string
		wantCount    int32
	}{
		{[]int32{2, 3}, []int32{0, 3}, 2, []string{"web-0=0"}, 2},
		{[]int32{2, 3}, []int32{1, 0}, 2, []string{"web-0=1", "web-1=2"}, 2},
		{[]int32{2, 3}, []int32{2, 3}, 5, nil, 0},
		{[]int32{0, 3}, []int32{0, 1}, 9, []string{"web-1=1"}, 2},
		{[]int32{4}, []int32{0}, 0, nil, 0},
	} {
		var olds []*api.ReplicaSet
		for i := range tc.specs {
			rs := newRS(newDeployment("web", 10, "v1"), "web-"+string(rune('0'+i)), 1, tc.specs[i], time.Duration(i)*time.Minute)
			olds = append(olds, roundTrip(t, withStatus(rs, tc.specs[i], tc.avail[i], tc.avail[i])))
		}
		f := newFixture(t)
		var n int32
		f.with(func(s *syncer) {
			var err error
			_, n, err = s.cleanupUnhealthyReplicas(t.Context(), slices.Clone(olds), d, tc.maxCleanup)
			if err != nil {
				t.Fatal(err)
			}
		}, olds...)
		if got := f.rsSizes(); !slices.Equal(got, tc.want) || n != tc.wantCount {
			t.Errorf("%v/%v max %d: %q (%d), want %q (%d)", tc.specs, tc.avail, tc.maxCleanup, got, n, tc.want, tc.wantCount)
		}
	}
	// More available than wanted (a scale-down in flight): refused.
	rs := roundTrip(t, withStatus(newRS(d, "web-x", 1, 1, 0), 3, 3, 3))
	f := newFixture(t)
	f.with(func(s *syncer) {
		if _, _, err := s.cleanupUnhealthyReplicas(t.Context(), []*api.ReplicaSet{rs}, d, 5); err == nil {
			t.Error("scaled up while cleaning up")
		}
	}, rs)
}

// TestReconcileNewReplicaSetScalesDown: a new ReplicaSet above
// spec.replicas is scaled down to it at once (reconcileNewReplicaSet).
func TestReconcileNewReplicaSetScalesDown(t *testing.T) {
	d := newDeployment("web", 2, "v1")
	nrs := roundTrip(t, newRS(d, "web-a", 1, 5, 0))
	f := newFixture(t)
	f.with(func(s *syncer) {
		scaled, err := s.reconcileNewReplicaSet(t.Context(), []*api.ReplicaSet{nrs}, nrs, d)
		if err != nil || !scaled {
			t.Fatalf("scaled %v err %v", scaled, err)
		}
	}, nrs)
	if got := f.rsSizes(); !slices.Equal(got, []string{"web-a=2"}) {
		t.Fatalf("writes %q", got)
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

// TestStatusCounters: replicas, updated, ready, available and
// unavailable are summed as calculateStatus does (unavailable from spec
// minus available, never negative), observedGeneration and
// collisionCount carried.
func TestStatusCounters(t *testing.T) {
	d := newDeployment("web", 4, "v2")
	d.Generation, d.Status.CollisionCount = 7, i32(2)
	old := withStatus(newRS(newDeployment("web", 4, "v1"), "web-old", 1, 2, -time.Hour), 3, 2, 1)
	nrs := withStatus(newRS(d, "web-new", 2, 3, 0), 2, 2, 2)
	f := newFixture(t)
	st := f.controller(nil).calculateStatus([]*api.ReplicaSet{old, nrs, nil}, nrs, d)
	if st.ObservedGeneration != 7 || st.Replicas != 5 || st.UpdatedReplicas != 2 || st.ReadyReplicas != 4 ||
		st.AvailableReplicas != 3 || st.UnavailableReplicas != 2 || *st.CollisionCount != 2 {
		t.Fatalf("status %+v", st)
	}
	// 3 available ≥ 4 - 1: Available.
	if c := api.GetDeploymentCondition(&st, api.DeploymentAvailable); c == nil || c.Status != api.ConditionTrue {
		t.Fatalf("Available %+v", c)
	}
	over := withStatus(newRS(d, "web-over", 2, 1, 0), 3, 3, 3)
	if st := f.controller(nil).calculateStatus([]*api.ReplicaSet{over}, over, d); st.UnavailableReplicas != 0 {
		t.Fatalf("negative unavailable: %d", st.UnavailableReplicas)
	}
	if !statusEqual(api.DeploymentStatus{Conditions: []api.DeploymentCondition{}}, api.DeploymentStatus{}) ||
		statusEqual(api.DeploymentStatus{Replicas: 1}, api.DeploymentStatus{}) {
		t.Fatal("statusEqual")
	}
}

// TestTerminatingReplicas: status.terminatingReplicas sums the
// ReplicaSets' counts (GetTerminatingReplicaCountForReplicaSets): a
// ReplicaSet never synced adds nothing, one synced without a count makes
// the sum unknown (nil), and the Deployment reports it.
func TestTerminatingReplicas(t *testing.T) {
	d := newDeployment("web", 4, "v2")
	rs := func(observed int64, term *int32) *api.ReplicaSet {
		r := newRS(d, "web-x", 1, 1, 0)
		r.Status.ObservedGeneration, r.Status.TerminatingReplicas = observed, term
		return r
	}
	for _, tc := range []struct {
		name string
		rss  []*api.ReplicaSet
		want *int32
	}{
		{"none", nil, i32(0)},
		{"summed", []*api.ReplicaSet{rs(1, i32(2)), rs(3, i32(1)), nil}, i32(3)},
		{"never synced adds nothing", []*api.ReplicaSet{rs(0, nil), rs(1, i32(1))}, i32(1)},
		{"synced without a count: unknown", []*api.ReplicaSet{rs(1, nil), rs(1, i32(1))}, nil},
	} {
		got := terminatingReplicas(tc.rss)
		if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
			t.Errorf("%s: terminatingReplicas %v, want %v", tc.name, deref(got), deref(tc.want))
		}
	}
	f := newFixture(t)
	nrs := rs(1, i32(2))
	if st := f.controller(nil).calculateStatus([]*api.ReplicaSet{nrs}, nrs, d); st.TerminatingReplicas == nil || *st.TerminatingReplicas != 2 {
		t.Fatalf("status terminatingReplicas %v, want 2", deref(st.TerminatingReplicas))
	}
}

func deref(p *int32) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestScalingEvent: a desired-replicas annotation that differs from
// spec.replicas on an active ReplicaSet is a scaling event; on an
// inactive one, or unreadable, it is not (isScalingEvent).
func TestScalingEvent(t *testing.T) {
	d := newDeployment("web", 5, "v1")
	for _, tc := range []struct {
		anno string
		size int32
		want bool
	}{{"3", 3, true}, {"5", 3, false}, {"3", 0, false}, {"x", 3, false}, {"-1", 3, false}} {
		rs := newRS(d, "web-a", 1, tc.size, 0)
		rs.Annotations[DesiredReplicasAnnotation] = tc.anno
		f := newFixture(t)
		f.load([]*api.Deployment{d}, rs)
		f.with(func(s *syncer) {
			list, err := s.claimReplicaSets(t.Context(), f.deployments[0])
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.isScalingEvent(t.Context(), f.deployments[0], list)
			if err != nil || got != tc.want {
				t.Errorf("annotation %q size %d: %v %v", tc.anno, tc.size, got, err)
			}
		})
	}
}
