package reconciler

import (
	"context"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// TestTriggerTimeAnnotation follows addTriggerTimeAnnotation: every slice
// created or updated carries endpoints.kubernetes.io/last-change-trigger-time
// (RFC 3339, nanoseconds, UTC); an update without a trigger time drops a
// stale one; unchanged slices are not touched.
func TestTriggerTimeAnnotation(t *testing.T) {
	f := newFixture(t)
	svc := service()
	at := time.Date(2025, 9, 1, 10, 0, 0, 123, time.FixedZone("x", 3600))
	if err := f.reconciler().Reconcile(context.Background(), svc, pods(2), nil, at); err != nil {
		t.Fatal(err)
	}
	s := f.stored()[0]
	if got := s.Annotations[AnnotationLastChangeTriggerTime]; got != "2025-09-01T09:00:00.000000123Z" {
		t.Errorf("annotation %q", got)
	}
	ps := pods(3)
	if err := f.reconciler().Reconcile(context.Background(), svc, ps, f.stored(), time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.stored()[0].Annotations[AnnotationLastChangeTriggerTime]; ok {
		t.Error("an update without a trigger time kept the stale annotation")
	}
	f.api.Take()
	if err := f.reconciler().Reconcile(context.Background(), svc, ps, f.stored(), at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if a := f.api.Take(); len(a) != 0 {
		t.Errorf("a new trigger time alone wrote %d times", len(a))
	}
}

// TestTrackerFollowsWrites: Reconcile records every slice it writes in
// the tracker, so the controller's next sync from a cache that has not
// caught up is stale (StaleSlices), and one from the caught-up cache is
// not; its own write events need no sync (ShouldSync).
func TestTrackerFollowsWrites(t *testing.T) {
	f := newFixture(t)
	svc := service()
	if _, err := f.reconcile(svc, pods(150), nil); err != nil {
		t.Fatal(err)
	}
	written := f.stored()
	if !f.tracker.StaleSlices(svc, nil) {
		t.Error("an empty cache after two creates is not stale")
	}
	if f.tracker.StaleSlices(svc, written) {
		t.Error("the caught-up cache is stale")
	}
	for _, s := range written {
		if f.tracker.ShouldSync(s) {
			t.Errorf("own write %s needs a sync", s.Name)
		}
	}
	// Shrinking to 10 pods deletes one slice: until its deletion is seen,
	// listing it is stale.
	if _, err := f.reconcile(svc, pods(10), written); err != nil {
		t.Fatal(err)
	}
	var deleted *api.EndpointSlice
	for _, s := range written {
		found := false
		for _, c := range f.stored() {
			found = found || c.Name == s.Name
		}
		if !found {
			deleted = s
		}
	}
	if deleted == nil {
		t.Fatal("no slice deleted")
	}
	if !f.tracker.StaleSlices(svc, append(f.stored(), deleted)) {
		t.Error("listing the deleted slice is not stale")
	}
	if !f.tracker.HandleDeletion(deleted) {
		t.Error("the reconciler's own deletion is unexpected")
	}
}
