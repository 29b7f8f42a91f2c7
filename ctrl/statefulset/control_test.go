package statefulset

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
)

// scExpect fails when the pod calls are not want, in order.
func scExpect(t *testing.T, step string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: pod calls\n got  %q\n want %q", step, got, want)
	}
}

// scExpectUnordered is scExpect for calls made concurrently.
func scExpectUnordered(t *testing.T, step string, got []string, want ...string) {
	t.Helper()
	got, want = slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
	scExpect(t, step, got, want...)
}

// newSteadyFixture is set with its first revision and pods web-0..n-1 of
// it (ordinals from start), all Running and Ready for an hour; the set's
// status records the revision. It returns the revision's name.
func newSteadyFixture(t *testing.T, set *api.StatefulSet, n int) (*scFixture, string) {
	t.Helper()
	rev := scRevisionOf(t, set, 1)
	set.Status.CurrentRevision, set.Status.UpdateRevision = rev.Name, rev.Name
	set.Status.ObservedGeneration = set.Generation
	f := newSCFixture(t, set, rev)
	start := getStartOrdinal(set)
	for i := range n {
		f.pods.put(scPod(start+i, rev.Name))
	}
	return f, rev.Name
}

// OrderedReady scale up (stateful_set_control.go, processReplica with
// monotonic set): one pod is created per round, and only once every lower
// ordinal is Running and Ready (a Pending pod gets its missing claims
// created, and the round ends there).
func TestOrderedReadyScaleUpOneAtATime(t *testing.T) {
	f := newSCFixture(t, scSet(3))
	scExpect(t, "first round", f.mustSync(), "create web-0")
	scExpect(t, "web-0 pending", f.mustSync(), "claims web-0")
	f.pods.runningNotReady("web-0")
	scExpect(t, "web-0 running, not ready", f.mustSync())
	f.pods.running("web-0", f.now)
	scExpect(t, "web-0 ready", f.mustSync(), "create web-1")
	f.pods.running("web-1", f.now)
	scExpect(t, "web-1 ready", f.mustSync(), "create web-2")
	f.pods.running("web-2", f.now)
	scExpect(t, "all ready", f.mustSync())
	st := f.set().Status
	if st.Replicas != 3 || st.ReadyReplicas != 3 || st.AvailableReplicas != 3 || st.CurrentReplicas != 3 || st.UpdatedReplicas != 3 {
		t.Errorf("status %+v, want 3 replicas ready, available, current and updated", st)
	}
}

// minReadySeconds holds OrderedReady back (processReplica: "not
// available" blocks like "not ready"): web-1 waits until web-0 has been
// Ready for minReadySeconds.
func TestOrderedReadyWaitsForAvailability(t *testing.T) {
	f := newSCFixture(t, scSet(2, scMinReady(10)))
	scExpect(t, "first round", f.mustSync(), "create web-0")
	f.pods.running("web-0", f.now)
	f.now = f.now.Add(9 * time.Second)
	scExpect(t, "ready 9s of 10", f.mustSync())
	if st := f.set().Status; st.ReadyReplicas != 1 || st.AvailableReplicas != 0 {
		t.Errorf("ready 9s: readyReplicas %d availableReplicas %d, want 1 and 0", st.ReadyReplicas, st.AvailableReplicas)
	}
	f.now = f.now.Add(time.Second)
	scExpect(t, "ready 10s", f.mustSync(), "create web-1")
}

// OrderedReady scale down (processCondemned, monotonic): the highest
// ordinal goes first, one per round, and the next waits until the
// terminating one is gone.
func TestOrderedReadyScaleDownHighestFirst(t *testing.T) {
	f, _ := newSteadyFixture(t, scSet(2), 5)
	f.pods.graceful = true
	scExpect(t, "5 to 2", f.mustSync(), "delete web-4")
	scExpect(t, "web-4 terminating", f.mustSync())
	f.pods.gone("web-4")
	scExpect(t, "web-4 gone", f.mustSync(), "delete web-3")
	f.pods.gone("web-3")
	scExpect(t, "web-3 gone", f.mustSync(), "delete web-2")
	f.pods.gone("web-2")
	scExpect(t, "at 2", f.mustSync())
}

// OrderedReady does nothing while a replica is unhealthy (processReplica
// ends the round), and does not delete a condemned pod that is not
// healthy unless it is the first unhealthy pod (processCondemned).
func TestOrderedReadyWaitsOnUnhealthy(t *testing.T) {
	t.Run("replica not ready", func(t *testing.T) {
		f, _ := newSteadyFixture(t, scSet(2), 3)
		f.pods.runningNotReady("web-0")
		scExpect(t, "web-0 not ready", f.mustSync())
	})
	t.Run("condemned not ready, not the first unhealthy", func(t *testing.T) {
		f, _ := newSteadyFixture(t, scSet(1), 3)
		f.pods.runningNotReady("web-1")
		f.pods.runningNotReady("web-2")
		scExpect(t, "web-1 and web-2 not ready", f.mustSync())
	})
	t.Run("condemned Ready but not Running, not the first unhealthy", func(t *testing.T) {
		f, _ := newSteadyFixture(t, scSet(1), 3)
		f.pods.runningNotReady("web-1")
		f.pods.phase("web-2", api.PodPending) // Ready condition still True: available, not Running
		scExpect(t, "web-2 not running", f.mustSync())
	})
	t.Run("condemned ready, not yet available, not the first unhealthy", func(t *testing.T) {
		f, _ := newSteadyFixture(t, scSet(1, scMinReady(30)), 3)
		f.pods.running("web-1", f.now)
		f.pods.running("web-2", f.now)
		scExpect(t, "web-1 and web-2 ready for 0 of 30s", f.mustSync())
	})
	t.Run("condemned, the first unhealthy", func(t *testing.T) {
		f, _ := newSteadyFixture(t, scSet(1), 3)
		f.pods.runningNotReady("web-2")
		scExpect(t, "web-2 not ready", f.mustSync(), "delete web-2")
	})
	t.Run("condemned healthy above an unhealthy one", func(t *testing.T) {
		f, _ := newSteadyFixture(t, scSet(1), 3)
		f.pods.runningNotReady("web-1")
		scExpect(t, "web-1 not ready", f.mustSync(), "delete web-2")
	})
}

// Parallel (allowsBurst): every missing pod is created in one round and
// every condemned pod deleted in one round, whatever their readiness
// (runForAll without monotonic, slowStartBatch).
func TestParallelBursts(t *testing.T) {
	f := newSCFixture(t, scSet(3, scParallel))
	scExpectUnordered(t, "first round", f.mustSync(), "create web-0", "create web-1", "create web-2")
	scExpectUnordered(t, "all pending", f.mustSync(), "claims web-0", "claims web-1", "claims web-2")
	f.pods.runningNotReady("web-1")
	f.editSpec(func(spec map[string]any) { spec["replicas"] = 0 })
	scExpectUnordered(t, "3 to 0", f.mustSync(), "delete web-0", "delete web-1", "delete web-2")
}

// spec.ordinals.start (StatefulSetStartOrdinal, GA): replicas are the
// ordinals [start, start+replicas); a pod below start is condemned and
// deleted after the replicas are healthy.
func TestStartOrdinal(t *testing.T) {
	f, _ := newSteadyFixture(t, scSet(2, scStart(2)), 1) // web-2
	f.pods.put(scPod(0, f.set().Status.CurrentRevision))
	scExpect(t, "start 2", f.mustSync(), "create web-3")
	f.pods.running("web-3", f.now)
	scExpect(t, "web-3 ready", f.mustSync(), "delete web-0")
	scExpect(t, "steady", f.mustSync())
}

// A failed or succeeded pod is deleted, and nothing else happens that
// round; its successor is created once it is gone (processReplica,
// isTerminalPhase). A terminal pod already being deleted is left alone.
func TestTerminalPodReplaced(t *testing.T) {
	for _, ph := range []api.PodPhase{api.PodFailed, api.PodSucceeded} {
		t.Run(string(ph), func(t *testing.T) {
			f, rev := newSteadyFixture(t, scSet(3), 3)
			f.pods.phase("web-1", ph)
			scExpect(t, "web-1 "+string(ph), f.mustSync(), "delete web-1")
			scExpect(t, "web-1 gone", f.mustSync(), "create web-1")
			if got := getPodRevision(f.pods.get("web-1")); got != rev {
				t.Errorf("new web-1 is of revision %q, want %q", got, rev)
			}
		})
	}
	t.Run("already deleting", func(t *testing.T) {
		f, _ := newSteadyFixture(t, scSet(3), 3)
		f.pods.edit("web-1", func(p *api.Pod) {
			p.Status.Phase = api.PodFailed
			p.DeletionTimestamp = &api.Time{Time: scT0}
		})
		scExpect(t, "web-1 failed, deleting", f.mustSync())
	})
}

// Claims (processReplica, the fixPodClaim step): a pod whose claim is
// stale waits; a condemned pod's claims get the retention policy's owners;
// a pod whose identity is off is updated.
func TestClaimsAndIdentity(t *testing.T) {
	t.Run("stale claim", func(t *testing.T) {
		f := newSCFixture(t, scSet(1))
		f.pods.stale["web-0"] = true
		scExpect(t, "stale claim", f.mustSync())
	})
	t.Run("condemned claims retention", func(t *testing.T) {
		f, _ := newSteadyFixture(t, scSet(1), 2)
		f.pods.unretained["web-1"] = true
		scExpect(t, "web-1 condemned", f.mustSync(), "retention web-1", "delete web-1")
	})
	t.Run("identity", func(t *testing.T) {
		f, _ := newSteadyFixture(t, scSet(2), 2)
		f.pods.edit("web-1", func(p *api.Pod) { delete(p.Labels, "statefulset.kubernetes.io/pod-name") })
		scExpect(t, "web-1 unlabelled", f.mustSync(), "update web-1")
	})
}

// A pod call's failure ends the round with the error, and the status of
// what was seen is still written (performUpdate).
func TestPodErrorStillWritesStatus(t *testing.T) {
	f := newSCFixture(t, scSet(2))
	f.pods.fail["create web-0"] = errors.New("boom")
	if _, err := f.sync(); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("sync: %v, want boom", err)
	}
	if n := len(resttest.Select(f.api.Actions(), "update statefulsets/status ns/web")); n != 1 {
		t.Errorf("%d status writes, want 1", n)
	}
}

// A set being deleted gets its status and nothing else.
func TestDeletedSetOnlyStatus(t *testing.T) {
	set := scSet(3)
	set.DeletionTimestamp = &api.Time{Time: scT0}
	set.Finalizers = []string{"foregroundDeletion"} // held by the garbage collector
	f := newSCFixture(t, set)
	scExpect(t, "deleting", f.mustSync())
	if st := f.set().Status; st.UpdateRevision == "" || st.ObservedGeneration != 1 {
		t.Errorf("status %+v, want revisions and observedGeneration 1", st)
	}
}

// Recreate is behind StatefulSetRecreateStrategy, off at the reference
// release: the set is not reconciled, a Warning UnknownStrategy is
// recorded and the sync fails.
func TestRecreateStrategyRefused(t *testing.T) {
	f := newSCFixture(t, scSet(1, func(spec map[string]any) { spec["updateStrategy"] = map[string]any{"type": "Recreate"} }))
	_, err := f.sync()
	if err == nil || !strings.Contains(err.Error(), "feature gate StatefulSetRecreateStrategy is disabled") {
		t.Fatalf("sync: %v, want the feature gate error", err)
	}
	scExpect(t, "Recreate", f.pods.take())
	want := []string{"Warning UnknownStrategy statefulset ns/web uses Recreate strategy but feature gate StatefulSetRecreateStrategy is disabled"}
	if got := f.events.Lines(); !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
	if n := len(resttest.Select(f.api.Actions(), "update statefulsets/status")); n != 0 {
		t.Errorf("%d status writes, want none", n)
	}
}

// slowStartBatch: batches of 1, 2, 4, ... called concurrently; after a
// batch with a failure, no more calls.
func TestSlowStartBatch(t *testing.T) {
	var mu sync.Mutex
	var called []int
	fn := func(i int) (bool, error) {
		mu.Lock()
		called = append(called, i)
		mu.Unlock()
		if i == 2 {
			return false, errors.New("no")
		}
		return false, nil
	}
	ok, err := slowStartBatch(1, 10, fn)
	if ok != 2 || err == nil {
		t.Errorf("slowStartBatch = %d, %v; want 2 successes and an error", ok, err)
	}
	if slices.Sort(called); !slices.Equal(called, []int{0, 1, 2}) {
		t.Errorf("called %v, want 0, 1, 2 (batches 1 and 2)", called)
	}
	called = nil
	if ok, err := slowStartBatch(1, 10, func(i int) (bool, error) { return fn(i + 100) }); ok != 10 || err != nil {
		t.Errorf("slowStartBatch = %d, %v; want 10, nil", ok, err)
	}
}
