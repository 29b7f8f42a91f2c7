package reconciler

import (
	"sync"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

func trackedSlice(service, uid string, gen int64) *api.EndpointSlice {
	return &api.EndpointSlice{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "s-" + uid, UID: uid, Generation: gen,
		Labels: map[string]string{LabelServiceName: service}}}
}

// TestTrackerShouldSync follows endpointslice_tracker_test.go
// TestEndpointSliceTrackerUpdate: a slice event needs a sync unless the
// tracker wrote that generation (or a newer one) itself.
func TestTrackerShouldSync(t *testing.T) {
	tr := NewTracker()
	tr.Update(trackedSlice("foo", "a", 2))
	for _, tc := range []struct {
		name  string
		slice *api.EndpointSlice
		has   bool
		want  bool
	}{
		{"the generation it wrote: its own echo", trackedSlice("foo", "a", 2), true, false},
		{"an older generation", trackedSlice("foo", "a", 1), true, false},
		{"a newer generation: someone else wrote it", trackedSlice("foo", "a", 3), true, true},
		{"an untracked slice of a tracked Service", trackedSlice("foo", "b", 1), false, true},
		{"a slice of another Service", trackedSlice("bar", "a", 2), false, true},
	} {
		if got := tr.ShouldSync(tc.slice); got != tc.want {
			t.Errorf("%s: ShouldSync = %v, want %v", tc.name, got, tc.want)
		}
		if got := tr.Has(tc.slice); got != tc.has {
			t.Errorf("%s: Has = %v, want %v", tc.name, got, tc.has)
		}
	}
}

// TestTrackerStaleSlices follows TestEndpointSliceTrackerStaleSlices:
// the listed slices are stale when one is older than written, one was
// deleted by the controller, or one it wrote is missing.
func TestTrackerStaleSlices(t *testing.T) {
	svc := &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "foo"}}
	for _, tc := range []struct {
		name    string
		tracked func(*Tracker)
		listed  []*api.EndpointSlice
		want    bool
	}{
		{"nothing tracked for the Service", func(*Tracker) {}, []*api.EndpointSlice{trackedSlice("foo", "a", 1)}, false},
		{"the generation written", func(t *Tracker) { t.Update(trackedSlice("foo", "a", 2)) },
			[]*api.EndpointSlice{trackedSlice("foo", "a", 2)}, false},
		{"a newer generation", func(t *Tracker) { t.Update(trackedSlice("foo", "a", 2)) },
			[]*api.EndpointSlice{trackedSlice("foo", "a", 3)}, false},
		{"an older generation: the cache is behind", func(t *Tracker) { t.Update(trackedSlice("foo", "a", 2)) },
			[]*api.EndpointSlice{trackedSlice("foo", "a", 1)}, true},
		{"a slice the controller deleted is still listed", func(t *Tracker) { t.ExpectDeletion(trackedSlice("foo", "a", 2)) },
			[]*api.EndpointSlice{trackedSlice("foo", "a", 2)}, true},
		{"a slice the controller deleted is gone", func(t *Tracker) { t.ExpectDeletion(trackedSlice("foo", "a", 2)) },
			nil, false},
		{"a slice the controller created is not listed yet", func(t *Tracker) {
			t.Update(trackedSlice("foo", "a", 1))
			t.Update(trackedSlice("foo", "b", 1))
		}, []*api.EndpointSlice{trackedSlice("foo", "a", 1)}, true},
		{"after DeleteService nothing is stale", func(t *Tracker) {
			t.Update(trackedSlice("foo", "a", 5))
			t.DeleteService("ns", "foo")
		}, []*api.EndpointSlice{trackedSlice("foo", "a", 1)}, false},
	} {
		tr := NewTracker()
		tc.tracked(tr)
		if got := tr.StaleSlices(svc, tc.listed); got != tc.want {
			t.Errorf("%s: StaleSlices = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestTrackerHandleDeletion follows TestEndpointSliceTrackerDeletion: a
// deletion the controller made is expected; one of a slice it wrote is
// not (someone else deleted it: resync); either way it is forgotten.
func TestTrackerHandleDeletion(t *testing.T) {
	tr := NewTracker()
	mine, theirs := trackedSlice("foo", "a", 1), trackedSlice("foo", "b", 1)
	tr.Update(mine)
	tr.Update(theirs)
	tr.ExpectDeletion(mine)
	if !tr.HandleDeletion(mine) {
		t.Error("the controller's own deletion is unexpected")
	}
	if tr.HandleDeletion(theirs) {
		t.Error("someone else's deletion of a tracked slice is expected")
	}
	if tr.Has(mine) || tr.Has(theirs) {
		t.Error("deleted slices are still tracked")
	}
	if !tr.HandleDeletion(trackedSlice("other", "c", 1)) {
		t.Error("an untracked slice's deletion should be expected (nothing to resync)")
	}
}

// TestTrackerConcurrent: the tracker is used by every worker at once
// (run with -race).
func TestTrackerConcurrent(t *testing.T) {
	tr := NewTracker()
	svc := &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "foo"}}
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := int64(1); g < 50; g++ {
				s := trackedSlice("foo", "a", g)
				tr.Update(s)
				tr.ShouldSync(s)
				tr.StaleSlices(svc, []*api.EndpointSlice{s})
			}
		}()
	}
	wg.Wait()
	if !tr.Has(trackedSlice("foo", "a", 0)) {
		t.Error("slice not tracked")
	}
}
