package ctrl

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
)

// TestControllerExpectations steps through the rules of Kubernetes'
// pkg/controller/controller_utils.go ControllerExpectations, each step
// checking SatisfiedExpectations and the outstanding counts.
func TestControllerExpectations(t *testing.T) {
	type step struct {
		rule      string
		do        func(e *ControllerExpectations, clk *clock.Fake)
		satisfied bool
		add, del  int64
		exists    bool
	}
	const rs = "ns/rs"
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"creations observed one by one", []step{
			{"a key without expectations is satisfied (a new controller syncs)", func(*ControllerExpectations, *clock.Fake) {}, true, 0, 0, false},
			{"ExpectCreations sets add, not del", func(e *ControllerExpectations, _ *clock.Fake) { e.ExpectCreations(rs, 2) }, false, 2, 0, true},
			{"one creation observed: still waiting", func(e *ControllerExpectations, _ *clock.Fake) { e.CreationObserved(rs) }, false, 1, 0, true},
			{"all observed: fulfilled", func(e *ControllerExpectations, _ *clock.Fake) { e.CreationObserved(rs) }, true, 0, 0, true},
			{"an extra observation goes below zero and stays fulfilled", func(e *ControllerExpectations, _ *clock.Fake) { e.CreationObserved(rs) }, true, -1, 0, true},
		}},
		{"deletions", []step{
			{"ExpectDeletions sets del, not add", func(e *ControllerExpectations, _ *clock.Fake) { e.ExpectDeletions(rs, 1) }, false, 0, 1, true},
			{"a creation observation does not satisfy deletions", func(e *ControllerExpectations, _ *clock.Fake) { e.CreationObserved(rs) }, false, -1, 1, true},
			{"deletion observed", func(e *ControllerExpectations, _ *clock.Fake) { e.DeletionObserved(rs) }, true, -1, 0, true},
		}},
		{"a failed create lowers the expectation (it will never be observed)", []step{
			{"expect 3", func(e *ControllerExpectations, _ *clock.Fake) { e.ExpectCreations(rs, 3) }, false, 3, 0, true},
			{"2 creates fail or are skipped", func(e *ControllerExpectations, _ *clock.Fake) { e.LowerExpectations(rs, 2, 0) }, false, 1, 0, true},
			{"the one made is observed", func(e *ControllerExpectations, _ *clock.Fake) { e.CreationObserved(rs) }, true, 0, 0, true},
		}},
		{"expectations expire after ExpectationsTimeout", []step{
			{"expect 1", func(e *ControllerExpectations, _ *clock.Fake) { e.ExpectCreations(rs, 1) }, false, 1, 0, true},
			{"exactly the timeout: not yet (strictly longer)", func(_ *ControllerExpectations, c *clock.Fake) { c.Step(ExpectationsTimeout) }, false, 1, 0, true},
			{"past the timeout: satisfied, counts kept", func(_ *ControllerExpectations, c *clock.Fake) { c.Step(time.Nanosecond) }, true, 1, 0, true},
			{"an observation does not restart the timeout", func(e *ControllerExpectations, _ *clock.Fake) { e.RaiseExpectations(rs, 1, 0) }, true, 2, 0, true},
			{"setting again restarts it", func(e *ControllerExpectations, _ *clock.Fake) { e.ExpectCreations(rs, 1) }, false, 1, 0, true},
		}},
		{"set replaces, raise and lower adjust", []step{
			{"set both", func(e *ControllerExpectations, _ *clock.Fake) { e.SetExpectations(rs, 2, 3) }, false, 2, 3, true},
			{"raise", func(e *ControllerExpectations, _ *clock.Fake) { e.RaiseExpectations(rs, 1, 1) }, false, 3, 4, true},
			{"lower", func(e *ControllerExpectations, _ *clock.Fake) { e.LowerExpectations(rs, 3, 3) }, false, 0, 1, true},
			{"set replaces", func(e *ControllerExpectations, _ *clock.Fake) { e.SetExpectations(rs, 0, 0) }, true, 0, 0, true},
		}},
		{"observations without expectations are ignored", []step{
			{"observe", func(e *ControllerExpectations, _ *clock.Fake) { e.CreationObserved(rs); e.DeletionObserved(rs) }, true, 0, 0, false},
			{"raise does not create", func(e *ControllerExpectations, _ *clock.Fake) { e.RaiseExpectations(rs, 1, 1) }, true, 0, 0, false},
		}},
		{"DeleteExpectations forgets the key", []step{
			{"expect", func(e *ControllerExpectations, _ *clock.Fake) { e.ExpectCreations(rs, 5) }, false, 5, 0, true},
			{"delete", func(e *ControllerExpectations, _ *clock.Fake) { e.DeleteExpectations(rs) }, true, 0, 0, false},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := clock.NewFake(t0)
			e := NewControllerExpectations(clk, zerolog.Nop())
			e.ExpectCreations("ns/other", 1) // keys are independent
			for _, s := range tc.steps {
				s.do(e, clk)
				add, del, ok := e.GetExpectations(rs)
				if got := e.SatisfiedExpectations(rs); got != s.satisfied || add != s.add || del != s.del || ok != s.exists {
					t.Fatalf("%s: satisfied=%v add=%d del=%d exists=%v, want %v %d %d %v",
						s.rule, got, add, del, ok, s.satisfied, s.add, s.del, s.exists)
				}
			}
			if add, _, _ := e.GetExpectations("ns/other"); add != 1 {
				t.Error("another key's expectations were touched")
			}
		})
	}
}

// TestUIDTrackingExpectations: deletions are tracked by pod key, so the
// two sightings of one graceful deletion (deletionTimestamp set, then the
// delete) lower the count once (Kubernetes'
// UIDTrackingControllerExpectations.DeletionObserved).
func TestUIDTrackingExpectations(t *testing.T) {
	clk := clock.NewFake(t0)
	var log bytes.Buffer
	u := NewUIDTrackingControllerExpectations(NewControllerExpectations(clk, zerolog.New(&log)))
	const rs = "ns/rs"
	u.ExpectDeletions(rs, nil)
	u.ExpectDeletions(rs, []string{"ns/p1", "ns/p2", "ns/p2"})
	if log.Len() != 0 {
		t.Fatalf("replacing an empty set warned: %s", log.String())
	}
	if _, del, _ := u.GetExpectations(rs); del != 2 {
		t.Fatalf("duplicate pod keys count once: del = %d, want 2", del)
	}
	if got := u.GetUIDs(rs); !slices.Equal(slices.Sorted(slices.Values(got)), []string{"ns/p1", "ns/p2"}) {
		t.Fatalf("GetUIDs = %v", got)
	}
	u.DeletionObserved(rs, "ns/p1")
	u.DeletionObserved(rs, "ns/p1")    // the second sighting of p1
	u.DeletionObserved(rs, "ns/other") // not a pod this controller deletes
	if _, del, _ := u.GetExpectations(rs); del != 1 || u.SatisfiedExpectations(rs) {
		t.Fatalf("after p1 twice and an unrelated pod: del = %d, want 1", del)
	}
	u.DeletionObserved(rs, "ns/p2")
	if !u.SatisfiedExpectations(rs) || len(u.GetUIDs(rs)) != 0 {
		t.Fatalf("all deletions observed but not satisfied (uids %v)", u.GetUIDs(rs))
	}
	// Expecting again replaces the set; replacing pending keys warns
	// (Kubernetes logs "Clobbering existing delete keys").
	u.ExpectDeletions(rs, []string{"ns/p3"})
	if log.Len() != 0 {
		t.Fatalf("replacing a fully observed set warned: %s", log.String())
	}
	u.ExpectDeletions(rs, []string{"ns/p4"})
	if !strings.Contains(log.String(), `"level":"warn"`) || !strings.Contains(log.String(), `"pending":1`) {
		t.Fatalf("replacing a pending deletion did not warn: %s", log.String())
	}
	u.DeletionObserved(rs, "ns/p3")
	if u.SatisfiedExpectations(rs) {
		t.Fatal("a pod of the replaced set counted")
	}
	u.DeleteExpectations(rs)
	if _, _, ok := u.GetExpectations(rs); ok || len(u.GetUIDs(rs)) != 0 || !u.SatisfiedExpectations(rs) {
		t.Fatal("DeleteExpectations left state behind")
	}
	u.DeletionObserved(rs, "ns/p4") // nothing to lower: no panic, nothing recorded
	if _, _, ok := u.GetExpectations(rs); ok {
		t.Fatal("an observation recreated the expectations")
	}
}

// TestExpectationsConcurrent: handlers observe while a worker sets; -race
// checks the locking, the count checks no update is lost.
func TestExpectationsConcurrent(t *testing.T) {
	e := NewControllerExpectations(nil, zerolog.Nop())
	e.ExpectCreations("k", 1000)
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			for range 100 {
				e.CreationObserved("k")
			}
		})
	}
	wg.Wait()
	if add, _, _ := e.GetExpectations("k"); add != 0 || !e.SatisfiedExpectations("k") {
		t.Fatalf("add = %d after 1000 observations of 1000", add)
	}
}
