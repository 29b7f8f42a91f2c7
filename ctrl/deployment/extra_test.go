package deployment

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestClaimReplicaSets: an orphan matching the selector is adopted with a
// patch carrying the controller ref (and is then the Deployment's), an
// owned ReplicaSet that no longer matches is released, another
// controller's is left alone (getReplicaSetsForDeployment,
// ClaimReplicaSets).
func TestClaimReplicaSets(t *testing.T) {
	d := newDeployment("web", 3, "v1")
	orphan := newRS(d, "web-orphan", 1, 3, 0)
	orphan.OwnerReferences = nil
	gone := newRS(d, "web-gone", 1, 0, 0)
	gone.Labels = map[string]string{"app": "other"}
	theirs := newRS(d, "web-theirs", 1, 0, 0)
	theirs.OwnerReferences[0].UID = "x"
	f := newFixture(t)
	f.load([]*api.Deployment{d}, orphan, gone, theirs)
	var names []string
	f.with(func(s *syncer) {
		list, err := s.claimReplicaSets(t.Context(), f.deployments[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range list {
			names = append(names, o.rs.Name)
		}
	})
	if !slices.Equal(names, []string{"web-orphan"}) {
		t.Fatalf("claimed %q", names)
	}
	if !resttest.ExpectUnordered(t, f.api.Actions(), "get deployments ns/web", "patch replicasets ns/web-orphan", "patch replicasets ns/web-gone") {
		t.FailNow()
	}
	a, _ := f.find("patch replicasets ns/web-orphan")
	if !strings.Contains(string(a.Body), `"uid":"uid-web"`) || !strings.Contains(string(a.Body), `"controller":true`) {
		t.Fatalf("adoption patch %s", a.Body)
	}
}

// TestCopyDeploymentAnnotations: every annotation but the skipped ones
// is copied, an empty value included; equal ones report no change.
func TestCopyDeploymentAnnotations(t *testing.T) {
	d := newDeployment("d", 1, "x")
	d.Annotations = map[string]string{"empty": "", "a": "1", LastAppliedAnnotation: "{}", RevisionAnnotation: "9",
		RevisionHistoryAnnotation: "1", DesiredReplicasAnnotation: "1", MaxReplicasAnnotation: "1", RollbackToAnnotation: "1"}
	rs := &api.ReplicaSet{}
	if !copyDeploymentAnnotations(d, rs) || !mapsEqual(rs.Annotations, map[string]string{"empty": "", "a": "1"}) {
		t.Fatalf("annotations %v", rs.Annotations)
	}
	if copyDeploymentAnnotations(d, rs) {
		t.Fatal("second copy reported a change")
	}
	rs.Annotations["a"] = "2"
	if !copyDeploymentAnnotations(d, rs) || rs.Annotations["a"] != "1" {
		t.Fatal("changed value not copied")
	}
	if replicasAnnotationsNeedUpdate(&api.ReplicaSet{}, 0, 0) != true || setReplicasAnnotations(rs, 1, 2) != true ||
		replicasAnnotationsNeedUpdate(rs, 1, 2) || setReplicasAnnotations(rs, 1, 2) || !replicasAnnotationsNeedUpdate(rs, 1, 3) {
		t.Fatal("replicas annotations")
	}
	if setDeploymentRevision(&api.Deployment{}, "") || !setDeploymentRevision(&api.Deployment{}, "1") {
		t.Fatal("setDeploymentRevision")
	}
	for v, want := range map[string]bool{"0": true, "2147483647": true, "2147483648": false, "-1": false, "x": false} {
		rs.Annotations[MaxReplicasAnnotation] = v
		if _, ok := nonNegativeAnnotation(rs, MaxReplicasAnnotation); ok != want {
			t.Errorf("%q: %v", v, ok)
		}
	}
}

// TestReplicaSetFraction: without a max-replicas annotation the base is
// status.replicas; with neither, nothing moves (getReplicaSetFraction).
func TestReplicaSetFraction(t *testing.T) {
	d := kcmDeployment(10, "0")
	rs := newRS(d, "a", 1, 4, 0)
	delete(rs.Annotations, MaxReplicasAnnotation)
	d.Status.Replicas = 5
	if got := replicaSetFraction(rs, d); got != 4 {
		t.Errorf("fraction from status: %d", got)
	}
	d.Status.Replicas = 0
	if got := replicaSetFraction(rs, d); got != 0 {
		t.Errorf("fraction with no base: %d", got)
	}
	rs.Annotations[MaxReplicasAnnotation] = "0"
	d.Status.Replicas = 8
	if got := replicaSetFraction(rs, d); got != 1 { // 4*10/8 = 5
		t.Errorf("fraction with a zero annotation: %d", got)
	}
	if replicaSetProportion(nil, d, 3, 0) != 0 || replicaSetProportion(rs, d, 3, 3) != 0 || replicaSetProportion(rs, d, 0, 0) != 0 {
		t.Error("proportion of nothing")
	}
}

// TestScaleSaturatedAndRecreate: with the new ReplicaSet saturated every
// old one goes to 0; a Recreate Deployment with several active
// ReplicaSets is not scaled proportionally (scale).
func TestScaleSaturatedAndRecreate(t *testing.T) {
	d := newDeployment("web", 3, "v2")
	nrs := roundTrip(t, newRS(d, "web-new", 2, 3, 0))
	old := roundTrip(t, newRS(newDeployment("web", 3, "v1"), "web-old", 1, 1, -time.Hour))
	f := newFixture(t)
	f.with(func(s *syncer) {
		if err := s.scale(t.Context(), d, nrs, []*api.ReplicaSet{old}); err != nil {
			t.Fatal(err)
		}
	}, nrs, old)
	if got := f.rsSizes(); !slices.Equal(got, []string{"web-old=0"}) {
		t.Fatalf("saturated: %q", got)
	}
	rec := recreateDeployment("v2")
	rec.Spec.Replicas = i32(5)
	f = newFixture(t)
	recNew := roundTrip(t, newRS(rec, "web-new", 2, 2, 0))
	f.with(func(s *syncer) {
		if err := s.scale(t.Context(), rec, recNew, []*api.ReplicaSet{old}); err != nil {
			t.Fatal(err)
		}
	}, recNew, old)
	if got := f.rsSizes(); len(got) != 0 {
		t.Fatalf("recreate scaled %q", got)
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

// TestClaimRefusedForAGoneDeployment: before adopting, the Deployment is
// read fresh; when it is gone, nothing is adopted and the sync fails
// (RecheckDeletionTimestamp).
func TestClaimRefusedForAGoneDeployment(t *testing.T) {
	d := newDeployment("web", 3, "v1")
	orphan := newRS(d, "web-orphan", 1, 3, 0)
	orphan.OwnerReferences = nil
	f := newFixture(t)
	f.load([]*api.Deployment{d}, orphan)
	f.api.Fail(resttest.On("get", "deployments"), rest.Status{Code: 404, Reason: "NotFound"})
	if _, err := f.run("ns/web"); !errors.Is(err, ErrDeploymentGone) {
		t.Fatalf("adopted for a deployment that is gone: %q", f.writes())
	}
	if !resttest.Expect(t, f.api.Actions(), "get deployments ns/web") {
		t.FailNow()
	}
}
