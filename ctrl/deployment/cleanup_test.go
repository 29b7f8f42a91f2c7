package deployment

import (
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

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
