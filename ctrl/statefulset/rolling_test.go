package statefulset

import (
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// RollingUpdate, OrderedReady, maxUnavailable unset (1)
// (updateStatefulSetAfterInvariantEstablished): after a template change a
// new revision is recorded, old pods are deleted from the highest ordinal
// down, one at a time, each only once the pod above it is back Running
// and Ready at the update revision; completeUpdate then makes the update
// revision current.
func TestRollingUpdateHighestFirst(t *testing.T) {
	f, rev1 := newSteadyFixture(t, scSet(3), 3)
	f.setImage("registry/app:2")
	scExpect(t, "image changed", f.mustSync(), "delete web-2")
	st := f.set().Status
	rev2 := st.UpdateRevision
	if rev2 == rev1 || st.CurrentRevision != rev1 || st.CurrentReplicas != 2 || st.UpdatedReplicas != 0 {
		t.Fatalf("status %+v: want updateRevision new, currentRevision %s, currentReplicas 2, updatedReplicas 0", st, rev1)
	}
	for _, ord := range []string{"2", "1", "0"} {
		scExpect(t, "web-"+ord+" gone", f.mustSync(), "create web-"+ord)
		if got := getPodRevision(f.pods.get("web-" + ord)); got != rev2 {
			t.Errorf("new web-%s is of revision %s, want %s", ord, got, rev2)
		}
		scExpect(t, "web-"+ord+" pending", f.mustSync(), "claims web-"+ord)
		f.pods.running("web-"+ord, f.now)
		var want []string
		switch ord {
		case "2":
			want = []string{"delete web-1"}
		case "1":
			want = []string{"delete web-0"}
		}
		scExpect(t, "web-"+ord+" ready", f.mustSync(), want...)
	}
	st = f.set().Status
	if st.CurrentRevision != rev2 || st.UpdateRevision != rev2 || st.CurrentReplicas != 3 || st.UpdatedReplicas != 3 {
		t.Errorf("status %+v: want the update complete at %s", st, rev2)
	}
}

// The partition: only ordinals at or above it are updated; a pod below it
// that is recreated gets the current revision (newVersionedStatefulSetPod).
func TestRollingUpdatePartition(t *testing.T) {
	f, rev1 := newSteadyFixture(t, scSet(3, scPartition(2)), 3)
	f.setImage("registry/app:2")
	scExpect(t, "image changed", f.mustSync(), "delete web-2")
	scExpect(t, "web-2 gone", f.mustSync(), "create web-2")
	f.pods.running("web-2", f.now)
	scExpect(t, "web-2 updated", f.mustSync())
	f.pods.gone("web-0")
	scExpect(t, "web-0 gone", f.mustSync(), "create web-0")
	if got := getPodRevision(f.pods.get("web-0")); got != rev1 {
		t.Errorf("recreated web-0 is of revision %s, want the current %s", got, rev1)
	}
	if st := f.set().Status; st.CurrentRevision != rev1 || st.UpdatedReplicas != 1 {
		t.Errorf("status %+v: want currentRevision %s and 1 updated replica", st, rev1)
	}
}

// OnDelete: the controller never deletes a pod to update it; a pod
// deleted by someone else comes back at the update revision.
func TestOnDelete(t *testing.T) {
	f, rev1 := newSteadyFixture(t, scSet(3, scOnDelete), 3)
	f.setImage("registry/app:2")
	scExpect(t, "image changed", f.mustSync())
	st := f.set().Status
	if st.UpdateRevision == rev1 || st.CurrentRevision != rev1 || st.CurrentReplicas != 3 {
		t.Fatalf("status %+v: want a new updateRevision, current %s with 3 replicas", st, rev1)
	}
	f.pods.gone("web-1")
	scExpect(t, "web-1 deleted by a user", f.mustSync(), "create web-1")
	if got := getPodRevision(f.pods.get("web-1")); got != st.UpdateRevision {
		t.Errorf("recreated web-1 is of revision %s, want the update revision %s", got, st.UpdateRevision)
	}
}

// maxUnavailable (MaxUnavailableStatefulSet, on by default at the
// reference release): up to maxUnavailable old pods are deleted per round,
// highest first; a percentage is of spec.replicas, rounded down, at least
// 1. The gauges statefulset_max_unavailable and
// statefulset_unavailable_replicas are reported.
func TestMaxUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name string
		mu   any
		want []string
	}{
		{"2", 2, []string{"delete web-4", "delete web-3"}},
		{"40%", "40%", []string{"delete web-4", "delete web-3"}},
		{"10% rounds down to 0, at least 1", "10%", []string{"delete web-4"}},
		{"100%", "100%", []string{"delete web-4", "delete web-3", "delete web-2", "delete web-1", "delete web-0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := newSteadyFixture(t, scSet(5, scMaxUnavailable(tc.mu)), 5)
			f.setImage("registry/app:2")
			scExpect(t, "image changed", f.mustSync(), tc.want...)
			if got, want := f.set().Status.CurrentReplicas, int32(5-len(tc.want)); got != want {
				t.Errorf("currentReplicas %d, want %d", got, want)
			}
			if got := f.metrics.maxUnavailable["ns/web OrderedReady"]; got != len(tc.want) {
				t.Errorf("statefulset_max_unavailable %d, want %d", got, len(tc.want))
			}
			if got := f.metrics.unavailable["ns/web OrderedReady"]; got != 0 {
				t.Errorf("statefulset_unavailable_replicas %d, want 0 (counted before deleting)", got)
			}
		})
	}
	t.Run("OrderedReady recreates one at a time", func(t *testing.T) {
		f, _ := newSteadyFixture(t, scSet(5, scMaxUnavailable(2)), 5)
		f.setImage("registry/app:2")
		scExpect(t, "image changed", f.mustSync(), "delete web-4", "delete web-3")
		scExpect(t, "both gone", f.mustSync(), "create web-3")
		f.pods.running("web-3", f.now)
		scExpect(t, "web-3 ready", f.mustSync(), "create web-4")
		f.pods.running("web-4", f.now)
		scExpect(t, "web-4 ready", f.mustSync(), "delete web-2", "delete web-1")
	})
}

// Parallel with maxUnavailable: old pods that are already unavailable are
// deleted first whatever the budget (they hold nothing up), then
// available old pods from the top within what is left.
func TestMaxUnavailableParallel(t *testing.T) {
	f, _ := newSteadyFixture(t, scSet(4, scParallel, scMaxUnavailable(2)), 4)
	f.pods.runningNotReady("web-0")
	f.setImage("registry/app:2")
	scExpect(t, "image changed", f.mustSync(), "delete web-0", "delete web-3")
	if got := f.metrics.unavailable["ns/web Parallel"]; got != 1 {
		t.Errorf("statefulset_unavailable_replicas %d, want 1", got)
	}
}

// In OrderedReady a terminating pod holds the update: processReplica
// waits for it to go before anything else happens.
func TestRollingUpdateWaitsForTerminating(t *testing.T) {
	f, _ := newSteadyFixture(t, scSet(3), 3)
	f.pods.graceful = true
	f.setImage("registry/app:2")
	scExpect(t, "image changed", f.mustSync(), "delete web-2")
	scExpect(t, "web-2 terminating", f.mustSync())
}

func TestGetStatefulSetMaxUnavailable(t *testing.T) {
	pct := func(s string) *api.IntOrString { v := api.IntOrStringFromString(s); return &v }
	num := func(n int32) *api.IntOrString { v := api.IntOrStringFromInt(n); return &v }
	for _, tc := range []struct {
		v        *api.IntOrString
		replicas int
		want     int
		err      bool
	}{
		{nil, 5, 1, false},
		{num(3), 5, 3, false},
		{num(0), 5, 1, false},
		{pct("50%"), 5, 2, false},
		{pct("99%"), 10, 9, false},
		{pct("1%"), 5, 1, false},
		{pct("100%"), 0, 1, false},
		{pct("abc"), 5, 0, true},
	} {
		got, err := getStatefulSetMaxUnavailable(tc.v, tc.replicas)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("getStatefulSetMaxUnavailable(%v, %d) = %d, %v; want %d (error %t)", tc.v, tc.replicas, got, err, tc.want, tc.err)
		}
	}
}
