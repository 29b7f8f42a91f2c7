package statefulset

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/controllerref"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// Sync's own rules (upstream's sync and syncStatefulSet), with
// UpdateStatefulSet faked: what reaches it, and what happens around it.

// A set gone from the cache: nothing is read or written, and its gauge
// series are dropped (upstream only logs "StatefulSet has been deleted"
// and keeps the series).
func TestSyncSetGone(t *testing.T) {
	f := newCtlFixture(t)
	c := f.controller()
	c.metrics.SetUnavailableReplicas("ns", "web", "OrderedReady", 2)
	c.metrics.SetMaxUnavailable("ns", "web", "OrderedReady", 1)
	c.metrics.SetUnavailableReplicas("ns", "other", "Parallel", 1)
	res, err := f.sync("ns/web")
	if err != nil || res != (ctrl.Result{}) {
		t.Fatalf("Sync = %+v, %v; want done", res, err)
	}
	resttest.Expect(t, f.api.Actions())
	if len(f.control.updated) != 0 {
		t.Errorf("UpdateStatefulSet called for a set that is gone: %q", f.control.updated)
	}
	if n := testutil.CollectAndCount(c.metrics.unavailable); n != 1 {
		t.Errorf("%d unavailable_replicas series left, want only ns/other's", n)
	}
	if n := testutil.CollectAndCount(c.metrics.maxUnavailable); n != 0 {
		t.Errorf("%d max_unavailable series left, want 0", n)
	}
}

// An invalid or missing selector: logged and dropped without a retry
// (upstream: "This is a non-transient error, so don't retry"); nothing
// is adopted or synced.
func TestSyncInvalidSelector(t *testing.T) {
	for name, sel := range map[string]*api.LabelSelector{
		"invalid": {MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: "In"}}},
		"missing": nil,
	} {
		t.Run(name, func(t *testing.T) {
			f := newCtlFixture(t)
			set := ctlSet("web", 1)
			set.Spec.Selector = sel
			f.sets = []*api.StatefulSet{set}
			f.pods = []*api.Pod{ctlPod("web-0")}
			f.control.revisions = []*api.ControllerRevision{ctlRevision("web-1", nil)}
			res, err := f.sync("ns/web")
			if err != nil || res != (ctrl.Result{}) {
				t.Fatalf("Sync = %+v, %v; want done, no retry", res, err)
			}
			resttest.Expect(t, f.api.Actions())
			if len(f.control.updated)+len(f.control.adopted) != 0 {
				t.Errorf("a set with a %s selector was synced: %q %q", name, f.control.updated, f.control.adopted)
			}
		})
	}
}

// Claiming (getPodsForStatefulSet, ClaimPods with the isMemberOf
// filter): the set's own matching pods and the adopted orphans reach
// UpdateStatefulSet; an orphan that matches but is not named <set>-<n>
// is left alone, an owned pod that stopped matching is released, another
// controller's pod is not looked at; the first adoption reads the set
// fresh from the apiserver (canAdoptFunc).
func TestSyncClaimsPods(t *testing.T) {
	f := newCtlFixture(t)
	set := ctlSet("web", 3)
	f.sets = []*api.StatefulSet{set}
	f.pods = []*api.Pod{
		ctlPod("web-0", ctlOf(set)),
		ctlPod("web-1"), // an orphan member: adopted
		ctlPod("db-0"),  // matches the selector, not a member: left
		ctlPod("web-2", ctlOf(set), ctlLabelled(map[string]string{"app": "other"})), // released
		ctlPod("web-3", ctlOwnedBy("ReplicaSet", "rs", "uid-rs")),                   // another controller's
		ctlPod("web-4", ctlDeleting()),                                              // an orphan being deleted: not adopted
	}
	if _, err := f.sync("ns/web"); err != nil {
		t.Fatal(err)
	}
	resttest.Expect(t, f.api.Actions(),
		"get statefulsets ns/web",
		`patch pods ns/web-1 strategic {"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"StatefulSet","name":"web","uid":"uid-web","controller":true,"blockOwnerDeletion":true}],"uid":"uid-web-1"}}`,
		`patch pods ns/web-2 strategic`)
	if got, want := f.control.updated, []string{"web: web-0 web-1"}; len(got) != 1 || got[0] != want[0] {
		t.Errorf("UpdateStatefulSet got %q, want %q", got, want)
	}
	if body := string(resttest.Select(f.api.Actions(), "patch pods ns/web-2")[0].Body); !strings.Contains(body, `"$patch":"delete"`) {
		t.Errorf("web-2 is not released: %s", body)
	}
}

// canAdoptFunc: a set the apiserver no longer has, has under another UID,
// or is deleting adopts nothing; the sync fails and is retried.
func TestSyncDoesNotAdoptForAGoneSet(t *testing.T) {
	replaced := ctlSet("web", 1)
	replaced.UID = "uid-new"
	deleting := ctlSet("web", 1)
	deleting.DeletionTimestamp = &api.Time{Time: ctlT0}
	for name, server := range map[string]*api.StatefulSet{"gone": nil, "replaced": replaced, "deleting": deleting} {
		t.Run(name, func(t *testing.T) {
			f := newCtlFixture(t)
			f.sets = []*api.StatefulSet{ctlSet("web", 1)}
			f.serverSet, f.noServerSet = server, server == nil
			f.pods = []*api.Pod{ctlPod("web-0")}
			_, err := f.sync("ns/web")
			if !errors.Is(err, controllerref.ErrCannotAdopt) {
				t.Fatalf("Sync error = %v, want ErrCannotAdopt", err)
			}
			resttest.Expect(t, f.api.Actions(), "get statefulsets ns/web")
			if len(f.control.updated) != 0 {
				t.Errorf("UpdateStatefulSet ran after a failed claim: %q", f.control.updated)
			}
		})
	}
}

// adoptOrphanRevisions: the orphaned revisions ListRevisions returns are
// adopted after the fresh read of the set; owned ones are not handed over;
// without orphans the set is not read; a set that cannot adopt fails the
// sync before any pod is claimed.
func TestSyncAdoptsOrphanRevisions(t *testing.T) {
	t.Run("orphans", func(t *testing.T) {
		f := newCtlFixture(t)
		set := ctlSet("web", 1)
		f.sets = []*api.StatefulSet{set}
		f.control.revisions = []*api.ControllerRevision{ctlRevision("web-a", set), ctlRevision("web-b", nil)}
		if _, err := f.sync("ns/web"); err != nil {
			t.Fatal(err)
		}
		resttest.Expect(t, f.api.Actions(), "get statefulsets ns/web")
		if got := strings.Join(f.control.adopted, " "); got != "web-b" {
			t.Errorf("adopted %q, want web-b", got)
		}
	})
	t.Run("none", func(t *testing.T) {
		f := newCtlFixture(t)
		set := ctlSet("web", 1)
		f.sets = []*api.StatefulSet{set}
		f.control.revisions = []*api.ControllerRevision{ctlRevision("web-a", set)}
		if _, err := f.sync("ns/web"); err != nil {
			t.Fatal(err)
		}
		resttest.Expect(t, f.api.Actions())
		if len(f.control.adopted) != 0 {
			t.Errorf("adopted %q", f.control.adopted)
		}
	})
	t.Run("gone", func(t *testing.T) {
		f := newCtlFixture(t)
		f.sets = []*api.StatefulSet{ctlSet("web", 1)}
		f.noServerSet = true
		f.pods = []*api.Pod{ctlPod("web-0")}
		f.control.revisions = []*api.ControllerRevision{ctlRevision("web-b", nil)}
		_, err := f.sync("ns/web")
		if !errors.Is(err, controllerref.ErrCannotAdopt) || !strings.Contains(err.Error(), "can't adopt ControllerRevisions") {
			t.Fatalf("Sync error = %v, want can't adopt ControllerRevisions", err)
		}
		if len(f.control.adopted)+len(f.control.updated) != 0 {
			t.Errorf("adopted %q, updated %q", f.control.adopted, f.control.updated)
		}
		resttest.Expect(t, f.api.Actions(), "get statefulsets ns/web")
	})
	t.Run("errors", func(t *testing.T) {
		f := newCtlFixture(t)
		f.sets = []*api.StatefulSet{ctlSet("web", 1)}
		f.control.listErr = errors.New("boom")
		if _, err := f.sync("ns/web"); err == nil || len(f.control.updated) != 0 {
			t.Fatalf("a failed ListRevisions: err %v, updated %q", err, f.control.updated)
		}
	})
}

// UpdateStatefulSet's error fails the sync (the loop retries with
// backoff).
func TestSyncReturnsTheControlError(t *testing.T) {
	f := newCtlFixture(t)
	f.sets = []*api.StatefulSet{ctlSet("web", 1)}
	boom := errors.New("boom")
	f.control.err = boom
	if _, err := f.sync("ns/web"); !errors.Is(err, boom) {
		t.Fatalf("Sync error = %v, want boom", err)
	}
}

// The stale-controller check (KEP-5647, StaleControllerConsistencyStatefulSet):
// a pod adoption records the patched pod's resourceVersion for the set;
// the next sync is skipped (Requeue, no error, counted by group and
// resource) until the pod cache has reached it, then runs.
func TestSyncSkipsOnAStaleCache(t *testing.T) {
	f := newCtlFixture(t)
	set := ctlSet("web", 1)
	f.sets = []*api.StatefulSet{set}
	f.pods = []*api.Pod{ctlPod("web-0")}
	if _, err := f.sync("ns/web"); err != nil {
		t.Fatal(err)
	}
	patched := resttest.Select(f.api.Actions(), "patch pods ns/web-0")
	if len(patched) != 1 {
		t.Fatalf("web-0 not adopted: %q", resttest.Lines(f.api.Actions()))
	}
	pod, ok := resttest.Get[*api.Pod](f.api, rest.Pods, "ns", "web-0")
	if !ok {
		t.Fatal("web-0 gone")
	}
	f.api.Take()
	res, err := f.sync("ns/web")
	if err != nil || !res.Requeue {
		t.Fatalf("Sync on a pod cache at %s after a write at %s = %+v, %v; want Requeue", ctlCacheRV, pod.ResourceVersion, res, err)
	}
	if len(f.control.updated) != 1 || len(f.api.Actions()) != 0 {
		t.Errorf("a skipped sync acted: updates %q, actions %q", f.control.updated, resttest.Lines(f.api.Actions()))
	}
	if got := testutil.ToFloat64(mustSkips(t, f).WithLabelValues("", "pods")); got != 1 {
		t.Errorf("statefulset_controller_stale_sync_skips_total{resource=pods} = %v, want 1", got)
	}
	f.podStore.Bookmark(pod.ResourceVersion)
	if res, err := f.sync("ns/web"); err != nil || res.Requeue {
		t.Fatalf("Sync once the cache caught up = %+v, %v", res, err)
	}
	if len(f.control.updated) != 2 {
		t.Errorf("the sync after the cache caught up did not run: %q", f.control.updated)
	}
}

// With NoStaleCheck the same sequence is not held back.
func TestSyncNoStaleCheck(t *testing.T) {
	f := newCtlFixture(t)
	f.sets = []*api.StatefulSet{ctlSet("web", 1)}
	f.pods = []*api.Pod{ctlPod("web-0")}
	c := f.controller()
	c.consistency = nil
	for range 2 {
		if res, err := c.Sync(context.Background(), "ns/web"); err != nil || res.Requeue {
			t.Fatalf("Sync = %+v, %v", res, err)
		}
	}
	if len(f.control.updated) != 2 {
		t.Errorf("updates %q", f.control.updated)
	}
}

// syncStatefulSet's availability requeue: with minReadySeconds, while
// the written status counts Ready pods that are not available, sync again
// when the earliest Ready pod reaches minReadySeconds, and at the latest
// after minReadySeconds; otherwise not at all.
func TestSyncRequeuesForAvailability(t *testing.T) {
	cases := []struct {
		name     string
		minReady int32
		status   api.StatefulSetStatus
		ready    []time.Time // Ready since, one pod each
		want     time.Duration
	}{
		{"no minReadySeconds", 0, api.StatefulSetStatus{ReadyReplicas: 2, AvailableReplicas: 1}, []time.Time{ctlT0}, 0},
		{"all Ready pods available", 30, api.StatefulSetStatus{ReadyReplicas: 2, AvailableReplicas: 2}, []time.Time{ctlT0}, 0},
		{"the earliest Ready pod's moment", 30, api.StatefulSetStatus{ReadyReplicas: 2, AvailableReplicas: 0},
			[]time.Time{ctlT0.Add(-5 * time.Second), ctlT0.Add(-20 * time.Second)}, 10 * time.Second},
		{"no pod with a transition time: minReadySeconds", 30, api.StatefulSetStatus{ReadyReplicas: 1}, []time.Time{{}}, 30 * time.Second},
		{"pods already past it are not waited for", 30, api.StatefulSetStatus{ReadyReplicas: 2, AvailableReplicas: 1},
			[]time.Time{ctlT0.Add(-time.Minute), ctlT0.Add(-29 * time.Second)}, time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newCtlFixture(t)
			set := ctlSet("web", int32(len(tc.ready)))
			set.Spec.MinReadySeconds = tc.minReady
			f.sets = []*api.StatefulSet{set}
			for i, at := range tc.ready {
				f.pods = append(f.pods, ctlPod(set.Name+"-"+string(rune('0'+i)), ctlOf(set), ctlReadySince(at)))
			}
			f.control.status = &tc.status
			res, err := f.sync("ns/web")
			if err != nil {
				t.Fatal(err)
			}
			if res.RequeueAfter != tc.want {
				t.Errorf("RequeueAfter = %v, want %v", res.RequeueAfter, tc.want)
			}
			if !f.control.now.Equal(ctlT0) {
				t.Errorf("UpdateStatefulSet's now = %v, want the clock's %v", f.control.now, ctlT0)
			}
		})
	}
}

// nextAvailabilityCheck measures the delay at the clock's present: a pod
// chosen at the status' time but available by now asks for an immediate
// sync (FindMinNextPodAvailabilityCheck's fallback to 0).
func TestNextAvailabilityCheckAfterTheStatusTime(t *testing.T) {
	f := newCtlFixture(t)
	set := ctlSet("web", 1)
	set.Spec.MinReadySeconds = 10
	pod := ctlPod("web-0", ctlReadySince(ctlT0.Add(-5*time.Second)))
	status := &api.StatefulSetStatus{ReadyReplicas: 1}
	now := f.clock.Now()
	if d, ok := nextAvailabilityCheck(set, status, []*api.Pod{pod}, now, f.clock); !ok || d != 5*time.Second {
		t.Fatalf("at the status' time: %v, %v; want 5s", d, ok)
	}
	f.clock.Step(7 * time.Second)
	if d, ok := nextAvailabilityCheck(set, status, []*api.Pod{pod}, now, f.clock); !ok || d != time.Nanosecond {
		t.Fatalf("7s later: %v, %v; want the shortest delay", d, ok)
	}
}

// Every write a sync makes for a set is recorded for the stale check
// (upstream's WroteAt in the pod control's CreatePod, UpdatePod,
// CreateClaim, UpdateClaim and the status updater): after the first sync
// of a set with a claim template (revision, claim, pod, status written by
// the real set control), the next sync waits for each of the pod, claim
// and StatefulSet caches in turn.
func TestSyncRecordsEveryWrite(t *testing.T) {
	f := newCtlFixture(t)
	f.realControl = true
	set := ctlSet("web", 1)
	set.Spec.VolumeClaimTemplates = []api.PersistentVolumeClaim{{ObjectMeta: api.ObjectMeta{Name: "data"},
		Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{"ReadWriteOnce"}}}}
	f.sets = []*api.StatefulSet{set}
	if _, err := f.sync("ns/web"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"create persistentvolumeclaims ns/data-web-0", "create pods ns/web-0", "update statefulsets/status ns/web"} {
		if len(resttest.Select(f.api.Actions(), want)) != 1 {
			t.Fatalf("no %q in %q", want, resttest.Lines(f.api.Actions()))
		}
	}
	const caughtUp = "1000000"
	for _, behind := range []ctrl.GroupResource{podsResource, claimsResource, setsResource} {
		f.podStore.Bookmark(caughtUp)
		f.pvcStore.Bookmark(caughtUp)
		f.setStore.Bookmark(caughtUp)
		map[ctrl.GroupResource]func(string){podsResource: f.podStore.Bookmark, claimsResource: f.pvcStore.Bookmark,
			setsResource: f.setStore.Bookmark}[behind]("1") // older than every write
		var stale *ctrl.StaleError
		if err := f.c.consistency.EnsureReady("ns/web"); !errors.As(err, &stale) || stale.GroupResource != behind {
			t.Errorf("with only the %s cache behind: %v, want a StaleError for it", behind, err)
		}
	}
	f.setStore.Bookmark(caughtUp)
	if err := f.c.consistency.EnsureReady("ns/web"); err != nil {
		t.Errorf("every cache caught up: %v", err)
	}
}
