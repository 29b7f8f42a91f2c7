package deployment

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

func recreateDeployment(image string) *api.Deployment {
	d := newDeployment("web", 3, image)
	d.Spec.Strategy = api.DeploymentStrategy{Type: api.RecreateDeploymentStrategyType}
	return d
}

func podOf(rs *api.ReplicaSet, name string, phase api.PodPhase) *api.Pod {
	t := true
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: rs.Namespace, UID: "uid-" + name,
		Labels:          rs.Spec.Template.Labels,
		OwnerReferences: []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: &t}}},
		Status: api.PodStatus{Phase: phase}}
}

// TestRecreateGating follows recreate.go: old ReplicaSets go to 0 first;
// the new one is created only when no old ReplicaSet reports replicas and
// no pod of one is still running (oldPodsRunning: Succeeded and Failed
// pods do not count, Pending, Running and Unknown do).
func TestRecreateGating(t *testing.T) {
	old := newRS(recreateDeployment("v1"), "web-old", 1, 3, -time.Hour)
	d := recreateDeployment("v2")
	f := newFixture(t)
	f.load([]*api.Deployment{d}, old)

	// 1: scale the old one down, nothing created.
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if got := f.rsSizes(); !slices.Equal(got, []string{"web-old=0"}) {
		t.Fatalf("step 1 writes %q", got)
	}
	if ev := f.eventList(); !slices.Equal(ev, []string{"Normal ScalingReplicaSet Scaled down replica set web-old from 3 to 0"}) {
		t.Fatalf("step 1 events %q", ev)
	}
	f.apply(false) // status still says 3 replicas

	// 2: old replicas still reported: wait.
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if got := f.rsSizes(); len(got) != 0 {
		t.Fatalf("step 2 writes %q", got)
	}
	f.apply(true) // status 0; but pods may still exist
	for _, tc := range []struct {
		phase  api.PodPhase
		create bool
	}{
		{api.PodRunning, false}, {api.PodPending, false}, {api.PodUnknown, false},
		{api.PodSucceeded, true}, {api.PodFailed, true},
	} {
		f.pods = []*api.Pod{podOf(f.rsNamed("web-old"), "p", tc.phase)}
		f.api.Take()
		if _, err := f.run("ns/web"); err != nil {
			t.Fatal(err)
		}
		_, created := f.find("create replicasets")
		if created != tc.create {
			t.Errorf("old pod %s: created %v, want %v", tc.phase, created, tc.create)
		}
		if created {
			if got := f.rsSizes(); len(got) != 1 || !strings.HasSuffix(got[0], "=3") {
				t.Errorf("new ReplicaSet %q, want 3 replicas at once", got)
			}
		}
	}
	// A pod of another ReplicaSet, or of none, does not hold Recreate back.
	stranger := podOf(newRS(newDeployment("x", 1, "x"), "x-1", 1, 1, 0), "q", api.PodRunning)
	stranger.Labels = map[string]string{"app": "web"}
	f.pods = []*api.Pod{stranger}
	f.api.Take()
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if _, created := f.find("create replicasets"); !created {
		t.Error("a pod of another controller held Recreate back")
	}
}

// doubleWrite checks the first sync of a Deployment whose new ReplicaSet
// already exists with old annotations: isScalingEvent brings them up to
// date, then the rollout tries the same update from the same cached list
// and the apiserver refuses it with a Conflict, as it refuses
// kube-controller-manager's (getAllReplicaSetsAndSyncRevision runs twice
// there too). The sync is retried once the cache has the update.
func doubleWrite(t *testing.T, f *fixture) {
	t.Helper()
	_, err := f.run("ns/web")
	if !rest.IsConflict(err) {
		t.Fatalf("err %v, want the Conflict of the second annotation update", err)
	}
	if got := resttest.Lines(resttest.Select(f.api.Actions(), "update replicasets")); len(got) != 2 {
		t.Fatalf("ReplicaSet updates %q, want the two annotation updates", got)
	}
}

// TestRecreateScalesExistingNew: when the new ReplicaSet already exists
// (a rollback to an older template), Recreate scales it up instead of
// creating one, once the old ones are gone.
func TestRecreateScalesExistingNew(t *testing.T) {
	d := recreateDeployment("v1")
	back := newRS(d, "web-v1", 1, 0, -2*time.Hour)
	cur := newRS(recreateDeployment("v2"), "web-v2", 2, 0, -time.Hour)
	f := newFixture(t)
	f.load([]*api.Deployment{d}, back, cur)
	doubleWrite(t, f)
	if _, ok := f.find("create replicasets"); ok {
		t.Fatal("created a ReplicaSet")
	}
	f.apply(false)
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.find("create replicasets"); ok {
		t.Fatal("created a ReplicaSet")
	}
	got := f.rsSizes()
	if len(got) == 0 || got[len(got)-1] != "web-v1=3" {
		t.Fatalf("writes %q", got)
	}
	if rs := f.lastRSWrite("web-v1"); rs.Annotations[RevisionAnnotation] != "3" || rs.Annotations[RevisionHistoryAnnotation] != "1" {
		t.Fatalf("annotations %v", rs.Annotations)
	}
}

// TestRecreateWaitsForOldPodsWithExistingNew: with the new ReplicaSet
// already there (a rollback), a running pod of an old one still holds it
// back (oldPodsRunning skips only the new ReplicaSet's pods); once none
// runs, the new one is scaled up and the status written.
func TestRecreateWaitsForOldPodsWithExistingNew(t *testing.T) {
	d := recreateDeployment("v1")
	back := newRS(d, "web-v1", 1, 0, -2*time.Hour)
	cur := withStatus(newRS(recreateDeployment("v2"), "web-v2", 2, 0, -time.Hour), 0, 0, 0)
	f := newFixture(t)
	f.load([]*api.Deployment{d}, back, cur)
	f.pods = []*api.Pod{podOf(f.rsNamed("web-v2"), "p", api.PodRunning), podOf(f.rsNamed("web-v1"), "q", api.PodRunning)}
	doubleWrite(t, f)
	f.apply(false)
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if got := f.rsSizes(); slices.Contains(got, "web-v1=3") {
		t.Fatalf("scaled up with an old pod running: %q", got)
	}
	f.pods = f.pods[1:]
	f.api.Take()
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if got := f.rsSizes(); !slices.Contains(got, "web-v1=3") {
		t.Fatalf("not scaled up: %q", got)
	}
	st, ok := f.lastStatus()
	if !ok || api.GetDeploymentCondition(&st.Status, api.DeploymentAvailable) == nil {
		t.Fatalf("no rollout status written: %q", f.writes())
	}
	// Created: the rollout status follows too.
	f = newFixture(t)
	f.load([]*api.Deployment{recreateDeployment("v3")}, withStatus(newRS(recreateDeployment("v2"), "web-v2", 1, 0, 0), 0, 0, 0))
	if _, err := f.run("ns/web"); err != nil {
		t.Fatal(err)
	}
	if st, ok := f.lastStatus(); !ok || api.GetDeploymentCondition(&st.Status, api.DeploymentAvailable) == nil {
		t.Fatalf("no rollout status after creating: %q", f.writes())
	}
}
