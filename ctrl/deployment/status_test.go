package deployment

import (
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// TestStatusCounters: replicas, updated, ready, available and
// unavailable are summed as calculateStatus does (unavailable from spec
// minus available, never negative), observedGeneration and
// collisionCount carried.
func TestStatusCounters(t *testing.T) {
	d := newDeployment("web", 4, "v2")
	d.Generation, d.Status.CollisionCount = 7, i32(2)
	old := withStatus(newRS(newDeployment("web", 4, "v1"), "web-old", 1, 2, -time.Hour), 3, 2, 1)
	nrs := withStatus(newRS(d, "web-new", 2, 3, 0), 2, 2, 2)
	f := newFixture(t)
	st := f.controller(nil).calculateStatus([]*api.ReplicaSet{old, nrs, nil}, nrs, d)
	if st.ObservedGeneration != 7 || st.Replicas != 5 || st.UpdatedReplicas != 2 || st.ReadyReplicas != 4 ||
		st.AvailableReplicas != 3 || st.UnavailableReplicas != 2 || *st.CollisionCount != 2 {
		t.Fatalf("status %+v", st)
	}
	// 3 available ≥ 4 - 1: Available.
	if c := api.GetDeploymentCondition(&st, api.DeploymentAvailable); c == nil || c.Status != api.ConditionTrue {
		t.Fatalf("Available %+v", c)
	}
	over := withStatus(newRS(d, "web-over", 2, 1, 0), 3, 3, 3)
	if st := f.controller(nil).calculateStatus([]*api.ReplicaSet{over}, over, d); st.UnavailableReplicas != 0 {
		t.Fatalf("negative unavailable: %d", st.UnavailableReplicas)
	}
	if !statusEqual(api.DeploymentStatus{Conditions: []api.DeploymentCondition{}}, api.DeploymentStatus{}) ||
		statusEqual(api.DeploymentStatus{Replicas: 1}, api.DeploymentStatus{}) {
		t.Fatal("statusEqual")
	}
}

// TestTerminatingReplicas: status.terminatingReplicas sums the
// ReplicaSets' counts (GetTerminatingReplicaCountForReplicaSets): a
// ReplicaSet never synced adds nothing, one synced without a count makes
// the sum unknown (nil), and the Deployment reports it.
func TestTerminatingReplicas(t *testing.T) {
	d := newDeployment("web", 4, "v2")
	rs := func(observed int64, term *int32) *api.ReplicaSet {
		r := newRS(d, "web-x", 1, 1, 0)
		r.Status.ObservedGeneration, r.Status.TerminatingReplicas = observed, term
		return r
	}
	for _, tc := range []struct {
		name string
		rss  []*api.ReplicaSet
		want *int32
	}{
		{"none", nil, i32(0)},
		{"summed", []*api.ReplicaSet{rs(1, i32(2)), rs(3, i32(1)), nil}, i32(3)},
		{"never synced adds nothing", []*api.ReplicaSet{rs(0, nil), rs(1, i32(1))}, i32(1)},
		{"synced without a count: unknown", []*api.ReplicaSet{rs(1, nil), rs(1, i32(1))}, nil},
	} {
		got := terminatingReplicas(tc.rss)
		if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
			t.Errorf("%s: terminatingReplicas %v, want %v", tc.name, deref(got), deref(tc.want))
		}
	}
	f := newFixture(t)
	nrs := rs(1, i32(2))
	if st := f.controller(nil).calculateStatus([]*api.ReplicaSet{nrs}, nrs, d); st.TerminatingReplicas == nil || *st.TerminatingReplicas != 2 {
		t.Fatalf("status terminatingReplicas %v, want 2", deref(st.TerminatingReplicas))
	}
}

func deref(p *int32) any {
	if p == nil {
		return nil
	}
	return *p
}
