package deployment

import (
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

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
