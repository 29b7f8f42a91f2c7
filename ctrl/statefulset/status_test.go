package statefulset

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/store"
)

// computeReplicaStatus: replicas count created pods (a phase), ready
// ones Running with Ready, available ones Ready for minReadySeconds;
// current and updated count created pods not terminating by revision.
func TestComputeReplicaStatus(t *testing.T) {
	cur := &api.ControllerRevision{ObjectMeta: api.ObjectMeta{Name: "web-1"}}
	upd := &api.ControllerRevision{ObjectMeta: api.ObjectMeta{Name: "web-2"}}
	now := scT0
	readyFor := func(ord int, rev string, d time.Duration) *api.Pod {
		p := scPod(ord, rev)
		p.Status.Conditions[0].LastTransitionTime = api.Time{Time: now.Add(-d)}
		return p
	}
	pending := scPod(3, "web-2")
	pending.Status = api.PodStatus{Phase: api.PodPending}
	notCreated := scPod(4, "web-2")
	notCreated.Status = api.PodStatus{}
	terminating := readyFor(5, "web-1", time.Hour)
	terminating.DeletionTimestamp = &api.Time{Time: now}
	readyNotRunning := readyFor(6, "web-2", time.Hour)
	readyNotRunning.Status.Phase = api.PodPending
	pods := []*api.Pod{readyFor(0, "web-1", time.Hour), readyFor(1, "web-1", 5*time.Second), readyFor(2, "web-2", time.Minute),
		pending, notCreated, terminating, readyNotRunning}
	got := computeReplicaStatus(pods, 10, cur, upd, now)
	want := replicaStatus{replicas: 6, readyReplicas: 4, availableReplicas: 3, currentReplicas: 2, updatedReplicas: 3}
	if got != want {
		t.Errorf("computeReplicaStatus = %+v, want %+v", got, want)
	}
}

// completeUpdate: only when every replica exists, is ready and updated
// does the update revision become current.
func TestCompleteUpdate(t *testing.T) {
	set := scSet(3)
	for _, tc := range []struct {
		replicas, ready, updated int32
		done                     bool
	}{
		{3, 3, 3, true},
		{3, 2, 3, false},
		{3, 3, 2, false},
		{4, 3, 3, false},
	} {
		st := api.StatefulSetStatus{Replicas: tc.replicas, ReadyReplicas: tc.ready, UpdatedReplicas: tc.updated, CurrentReplicas: 1,
			CurrentRevision: "a", UpdateRevision: "b"}
		completeUpdate(set, &st)
		if done := st.CurrentRevision == "b" && st.CurrentReplicas == tc.updated; done != tc.done {
			t.Errorf("%+v: completed %t, want %t", tc, done, tc.done)
		}
	}
}

// inconsistentStatus: a newer generation or any count, revision or
// condition differing makes a write; collisionCount alone does not, nor
// an older observedGeneration.
func TestInconsistentStatus(t *testing.T) {
	base := api.StatefulSetStatus{ObservedGeneration: 2, Replicas: 3, ReadyReplicas: 3, CurrentReplicas: 3, UpdatedReplicas: 3,
		AvailableReplicas: 3, CurrentRevision: "a", UpdateRevision: "a", CollisionCount: new(int32)}
	set := scSet(3)
	set.Status = base
	for _, tc := range []struct {
		name string
		edit func(*api.StatefulSetStatus)
		want bool
	}{
		{"same", func(*api.StatefulSetStatus) {}, false},
		{"collisionCount", func(s *api.StatefulSetStatus) { one := int32(1); s.CollisionCount = &one }, false},
		{"older generation", func(s *api.StatefulSetStatus) { s.ObservedGeneration = 1 }, false},
		{"newer generation", func(s *api.StatefulSetStatus) { s.ObservedGeneration = 3 }, true},
		{"replicas", func(s *api.StatefulSetStatus) { s.Replicas = 2 }, true},
		{"ready", func(s *api.StatefulSetStatus) { s.ReadyReplicas = 2 }, true},
		{"available", func(s *api.StatefulSetStatus) { s.AvailableReplicas = 2 }, true},
		{"current", func(s *api.StatefulSetStatus) { s.CurrentReplicas = 2 }, true},
		{"updated", func(s *api.StatefulSetStatus) { s.UpdatedReplicas = 2 }, true},
		{"currentRevision", func(s *api.StatefulSetStatus) { s.CurrentRevision = "b" }, true},
		{"updateRevision", func(s *api.StatefulSetStatus) { s.UpdateRevision = "b" }, true},
		{"conditions", func(s *api.StatefulSetStatus) {
			s.Conditions = []api.StatefulSetCondition{{Type: api.StatefulSetProgressing, Status: api.ConditionTrue}}
		}, true},
	} {
		st := base
		tc.edit(&st)
		if got := inconsistentStatus(set, &st); got != tc.want {
			t.Errorf("%s: inconsistentStatus %t, want %t", tc.name, got, tc.want)
		}
	}
}

// The status is written only when it changed (updateStatefulSetStatus).
func TestStatusWrittenOnlyWhenChanged(t *testing.T) {
	f, rev := newSteadyFixture(t, scSet(3), 3)
	f.mustSync()
	f.mustSync()
	if n := len(resttest.Select(f.api.Actions(), "update statefulsets/status ns/web")); n != 1 {
		t.Errorf("%d status writes in two syncs, want 1", n)
	}
	st := f.set().Status
	want := api.StatefulSetStatus{ObservedGeneration: 1, Replicas: 3, ReadyReplicas: 3, CurrentReplicas: 3, UpdatedReplicas: 3,
		AvailableReplicas: 3, CurrentRevision: rev, UpdateRevision: rev}
	if st.CollisionCount == nil || *st.CollisionCount != 0 {
		t.Errorf("collisionCount %v, want 0", st.CollisionCount)
	}
	st.CollisionCount = nil
	if st.ObservedGeneration != want.ObservedGeneration || st.Replicas != want.Replicas || st.ReadyReplicas != want.ReadyReplicas ||
		st.CurrentReplicas != want.CurrentReplicas || st.UpdatedReplicas != want.UpdatedReplicas ||
		st.AvailableReplicas != want.AvailableReplicas || st.CurrentRevision != want.CurrentRevision || st.UpdateRevision != want.UpdateRevision {
		t.Errorf("status %+v, want %+v", st, want)
	}
}

// The status updater retries conflicts (retry.RetryOnConflict with
// DefaultRetry: 5 tries, 10 ms apart), each retry on the set re-read
// from the cache; a successful write is recorded for the stale-cache rule.
func TestStatusConflict(t *testing.T) {
	t.Run("retried", func(t *testing.T) {
		f, _ := newSteadyFixture(t, scSet(3), 3)
		f.ctl.consistency = ctrl.NewConsistency(map[ctrl.GroupResource]ctrl.ResourceVersionSource{
			ctrl.GroupResourceOf(rest.StatefulSets): scCacheAt("1")}, nil)
		// Someone labels the set just before the status write, which
		// then conflicts; the cache has caught up by the retry.
		st := store.New(store.Options[*api.StatefulSet]{Indexers: store.BuiltinIndexers[*api.StatefulSet]()})
		f.api.Intercept(resttest.On("update", "statefulsets/status").Nth(1), func(resttest.Action) error {
			set := f.set()
			set.Labels = map[string]string{"team": "a"}
			set.ResourceVersion = ""
			resttest.Add(f.api, rest.StatefulSets, set)
			st.Replace([]*api.StatefulSet{f.set()})
			return nil
		})
		f.pods.take()
		st.Replace([]*api.StatefulSet{f.set()})
		f.ctl.revisions.lister = informer.ControllerRevisionLister{Lister: resttest.ListerFrom[*api.ControllerRevision](f.api, rest.ControllerRevisions)}
		f.ctl.setCache = &informer.StatefulSetLister{Lister: informer.NewLister(st.View(), "statefulsets")}
		if _, err := f.ctl.UpdateStatefulSet(context.Background(), f.set(), f.pods.list(), f.now); err != nil {
			t.Fatal(err)
		}
		resttest.Expect(t, resttest.Select(f.api.Actions(), "update statefulsets/status"),
			"update statefulsets/status ns/web", "update statefulsets/status ns/web")
		if set := f.set(); set.Labels["team"] != "a" || set.Status.Replicas != 3 {
			t.Errorf("set labels %v status %+v: want the label kept and the status written", set.Labels, set.Status)
		}
		if len(f.waits) != 1 || f.waits[0] < 10*time.Millisecond || f.waits[0] > 11*time.Millisecond {
			t.Errorf("waits %v, want one of 10-11 ms", f.waits)
		}
		if err := f.ctl.consistency.EnsureReady("ns/web"); !errors.Is(err, ctrl.ErrStale) {
			t.Errorf("EnsureReady with the cache before the status write: %v, want ErrStale", err)
		}
	})
	t.Run("gives up after 5", func(t *testing.T) {
		f, _ := newSteadyFixture(t, scSet(3), 3)
		f.api.Fail(resttest.On("update", "statefulsets/status"), resttest.Failure(409, "Conflict", "modified"))
		if _, err := f.sync(); !rest.IsConflict(err) {
			t.Errorf("sync: %v, want a conflict", err)
		}
		if n := len(resttest.Select(f.api.Actions(), "update statefulsets/status ns/web")); n != 5 {
			t.Errorf("%d status writes, want 5", n)
		}
		if len(f.waits) != 4 {
			t.Errorf("%d waits, want 4", len(f.waits))
		}
	})
	t.Run("not a conflict", func(t *testing.T) {
		f, _ := newSteadyFixture(t, scSet(3), 3)
		f.api.Fail(resttest.On("update", "statefulsets/status"), resttest.Failure(500, "InternalError", "etcd"))
		if _, err := f.sync(); err == nil {
			t.Error("sync succeeded, want the error")
		}
		if n := len(resttest.Select(f.api.Actions(), "update statefulsets/status ns/web")); n != 1 {
			t.Errorf("%d status writes, want 1", n)
		}
	})
}

// The status's revisions, observedGeneration and collisionCount follow
// the set; conditions are carried over as they are.
func TestStatusCarriesConditions(t *testing.T) {
	set := scSet(1)
	set.Generation = 4
	cond := api.StatefulSetCondition{Type: "Custom", Status: api.ConditionTrue, Reason: "Because",
		LastTransitionTime: api.Time{Time: scT0}}
	set.Status.Conditions = []api.StatefulSetCondition{cond}
	f := newSCFixture(t, set)
	st, err := f.sync()
	if err != nil {
		t.Fatal(err)
	}
	if st.ObservedGeneration != 4 || len(st.Conditions) != 1 || st.Conditions[0].Reason != "Because" {
		t.Errorf("status %+v, want observedGeneration 4 and the condition kept", st)
	}
}

// scCacheAt is a cache current at a resourceVersion.
type scCacheAt string

func (c scCacheAt) LastStoreSyncResourceVersion() string { return string(c) }
