package difftest

import (
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// settledView is a Deployment "web" (uid d) of 2 at v2 with an old
// ReplicaSet scaled to 0 and a new one whose 2 pods are Ready, every
// status up to date: the state a finished rollout leaves.
func settledView() View {
	d := &api.Deployment{ObjectMeta: api.ObjectMeta{Name: "web", UID: "d", Generation: 2}}
	d.Spec.Replicas = ptr(int32(2))
	d.Spec.Template.Spec.Containers = []api.Container{{Name: "c", Image: "v2"}}
	d.Status = api.DeploymentStatus{ObservedGeneration: 2, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 2,
		Conditions: []api.DeploymentCondition{{Type: api.DeploymentProgressing, Status: api.ConditionTrue, Reason: "NewReplicaSetAvailable"}}}
	owned := []api.OwnerReference{{Kind: "Deployment", Name: "web", UID: "d", Controller: ptr(true)}}
	old := testRS("old", "r1", "v1", 0)
	old.OwnerReferences, old.Generation = owned, 3
	old.Status.ObservedGeneration = 3
	cur := testRS("new", "r2", "v2", 2)
	cur.OwnerReferences, cur.Generation = owned, 1
	cur.Status = api.ReplicaSetStatus{ObservedGeneration: 1, Replicas: 2, ReadyReplicas: 2, AvailableReplicas: 2}
	return View{
		Deployments: map[string]*api.Deployment{"web": d},
		ReplicaSets: map[string]*api.ReplicaSet{"old": old, "new": cur},
		Pods:        map[string]*api.Pod{"p1": testPod("p1", "r2", "v2", true), "p2": testPod("p2", "r2", "v2", true)},
	}
}

// Settled means every controller has caught up; Complete adds that the
// rollout is done. Each case breaks one condition of settledView.
func TestSettledAndComplete(t *testing.T) {
	for _, tc := range []struct {
		name             string
		edit             func(v View)
		settled, complet bool
	}{
		{"a finished rollout", func(View) {}, true, true},
		{"no such Deployment", func(v View) { delete(v.Deployments, "web") }, false, false},
		{"Deployment generation not observed", func(v View) { v.Deployments["web"].Generation = 3 }, false, false},
		{"ReplicaSet generation not observed", func(v View) { v.ReplicaSets["new"].Generation = 2 }, false, false},
		{"a pod more than spec.replicas", func(v View) { v.Pods["p3"] = testPod("p3", "r2", "v2", true) }, false, false},
		{"a terminating pod does not count", func(v View) {
			p := testPod("p3", "r2", "v2", true)
			p.DeletionTimestamp = &api.Time{}
			v.Pods["p3"] = p
		}, true, true},
		{"a pod of another owner does not count", func(v View) { v.Pods["p3"] = testPod("p3", "zz", "v2", true) }, true, true},
		{"ReplicaSet readiness stale", func(v View) { v.Pods["p1"] = testPod("p1", "r2", "v2", false) }, false, false},
		{"ReplicaSet status.replicas stale", func(v View) { v.ReplicaSets["new"].Status.Replicas = 1 }, false, false},
		{"ReplicaSet availability stale", func(v View) { v.ReplicaSets["new"].Status.AvailableReplicas = 1 }, false, false},
		{"Deployment readiness stale", func(v View) { v.Deployments["web"].Status.ReadyReplicas = 1 }, false, false},
		{"Deployment updated count stale", func(v View) { v.Deployments["web"].Status.UpdatedReplicas = 1 }, false, false},
		{"Deployment replicas stale", func(v View) { v.Deployments["web"].Status.Replicas = 3 }, false, false},
		{"Deployment availability stale", func(v View) { v.Deployments["web"].Status.AvailableReplicas = 1 }, false, false},
		{"settled mid-rollout: old ReplicaSet not at 0", func(v View) {
			old := v.ReplicaSets["old"]
			old.Spec.Replicas = ptr(int32(1))
			old.Status.Replicas, old.Status.ReadyReplicas, old.Status.AvailableReplicas = 1, 1, 1
			v.Pods["o1"] = testPod("o1", "r1", "v1", true)
			st := &v.Deployments["web"].Status
			st.Replicas, st.ReadyReplicas, st.AvailableReplicas = 3, 3, 3
		}, true, false},
		{"settled mid-rollout: desired count not reached", func(v View) { v.Deployments["web"].Spec.Replicas = ptr(int32(3)) }, true, false},
		{"Progressing not yet NewReplicaSetAvailable", func(v View) {
			v.Deployments["web"].Status.Conditions[0].Reason = "ReplicaSetUpdated"
		}, true, false},
		{"no Progressing condition", func(v View) { v.Deployments["web"].Status.Conditions = nil }, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := settledView()
			tc.edit(v)
			if got := Settled(v, "web"); got != tc.settled {
				t.Errorf("Settled = %t, want %t", got, tc.settled)
			}
			if got := Complete(v, "web"); got != tc.complet {
				t.Errorf("Complete = %t, want %t", got, tc.complet)
			}
		})
	}
}

func TestNotReadyIsSortedAndSkipsTerminating(t *testing.T) {
	v := View{Pods: map[string]*api.Pod{
		"b": testPod("b", "r", "v", false), "a": testPod("a", "r", "v", false), "c": testPod("c", "r", "v", true)}}
	gone := testPod("d", "r", "v", false)
	gone.DeletionTimestamp = &api.Time{}
	v.Pods["d"] = gone
	if got := notReady(v); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("notReady = %v, want [a b]", got)
	}
}
