package difftest

import (
	"errors"
	"slices"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// TestKeptWorkload: a takeover that scaled a Deployment keeps its
// ReplicaSets and pods (names and uids) and adds pods of the current
// ReplicaSet; a new ReplicaSet, a deleted one, or a pod replaced under
// its name is a rollout (ErrRollout).
func TestKeptWorkload(t *testing.T) {
	rs := func(name, uid string) *api.ReplicaSet {
		return &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: name, UID: uid}}
	}
	pod := func(name, uid, owner string) *api.Pod {
		yes := true
		return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, UID: uid,
			OwnerReferences: []api.OwnerReference{{Kind: "ReplicaSet", Name: "web-1", UID: owner, Controller: &yes}}}}
	}
	beforeRS := map[string]string{"web-1": "rs1"}
	beforePods := map[string]string{"a": "p1", "b": "p2"}
	for _, tc := range []struct {
		name    string
		rss     []*api.ReplicaSet
		pods    []*api.Pod
		rollout bool
		newPods []string
	}{
		{"scaled up", []*api.ReplicaSet{rs("web-1", "rs1")}, []*api.Pod{pod("a", "p1", "rs1"), pod("b", "p2", "rs1"), pod("c", "p3", "rs1")}, false, []string{"c"}},
		{"untouched", []*api.ReplicaSet{rs("web-1", "rs1")}, []*api.Pod{pod("a", "p1", "rs1"), pod("b", "p2", "rs1")}, false, nil},
		{"a new ReplicaSet", []*api.ReplicaSet{rs("web-1", "rs1"), rs("web-2", "rs2")}, []*api.Pod{pod("a", "p1", "rs1"), pod("b", "p2", "rs1")}, true, nil},
		{"the ReplicaSet replaced", []*api.ReplicaSet{rs("web-1", "rs9")}, []*api.Pod{pod("a", "p1", "rs1"), pod("b", "p2", "rs1")}, true, nil},
		{"a pod replaced", []*api.ReplicaSet{rs("web-1", "rs1")}, []*api.Pod{pod("a", "p9", "rs1"), pod("b", "p2", "rs1")}, true, nil},
		{"a pod gone", []*api.ReplicaSet{rs("web-1", "rs1")}, []*api.Pod{pod("b", "p2", "rs1")}, true, nil},
		{"a new pod of another owner", []*api.ReplicaSet{rs("web-1", "rs1")}, []*api.Pod{pod("a", "p1", "rs1"), pod("b", "p2", "rs1"), pod("x", "p4", "other")}, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs := &Observer{replicaSets: map[string]*api.ReplicaSet{}, pods: map[string]*api.Pod{}}
			for _, r := range tc.rss {
				obs.replicaSets[r.Name] = r
			}
			for _, p := range tc.pods {
				obs.pods[p.Name] = p
			}
			pods, newPods, err := KeptWorkload(obs, beforeRS, beforePods, "web-1")
			if tc.rollout != errors.Is(err, ErrRollout) {
				t.Errorf("err = %v; want a rollout: %v", err, tc.rollout)
			}
			if len(pods) != len(tc.pods) {
				t.Errorf("pods %v, want %d", pods, len(tc.pods))
			}
			if slices.Sort(newPods); !slices.Equal(newPods, tc.newPods) {
				t.Errorf("new pods %v, want %v", newPods, tc.newPods)
			}
		})
	}
}
