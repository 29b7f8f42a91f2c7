package deployment

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestCleanupUnhealthyReplicas follows rolling_test
// TestDeploymentController_cleanupUnhealthyReplicas: unavailable old
// replicas go first, oldest ReplicaSet first, at most maxCleanup.
func TestCleanupUnhealthyReplicas(t *testing.T) {
	d := newDeployment("web", 10, "v2")
	for _, tc := range []struct {
		specs, avail []int32
		maxCleanup   int32
		want         []string
		wantCount    int32
	}{
		{[]int32{2, 3}, []int32{0, 3}, 2, []string{"web-0=0"}, 2},
		{[]int32{2, 3}, []int32{1, 0}, 2, []string{"web-0=1", "web-1=2"}, 2},
		{[]int32{2, 3}, []int32{2, 3}, 5, nil, 0},
		{[]int32{0, 3}, []int32{0, 1}, 9, []string{"web-1=1"}, 2},
		{[]int32{4}, []int32{0}, 0, nil, 0},
	} {
		var olds []*api.ReplicaSet
		for i := range tc.specs {
			rs := newRS(newDeployment("web", 10, "v1"), "web-"+string(rune('0'+i)), 1, tc.specs[i], time.Duration(i)*time.Minute)
			olds = append(olds, roundTrip(t, withStatus(rs, tc.specs[i], tc.avail[i], tc.avail[i])))
		}
		f := newFixture(t)
		var n int32
		f.with(func(s *syncer) {
			var err error
			_, n, err = s.cleanupUnhealthyReplicas(t.Context(), slices.Clone(olds), d, tc.maxCleanup)
			if err != nil {
				t.Fatal(err)
			}
		}, olds...)
		if got := f.rsSizes(); !slices.Equal(got, tc.want) || n != tc.wantCount {
			t.Errorf("%v/%v max %d: %q (%d), want %q (%d)", tc.specs, tc.avail, tc.maxCleanup, got, n, tc.want, tc.wantCount)
		}
	}
	// More available than wanted (a scale-down in flight): refused.
	rs := roundTrip(t, withStatus(newRS(d, "web-x", 1, 1, 0), 3, 3, 3))
	f := newFixture(t)
	f.with(func(s *syncer) {
		if _, _, err := s.cleanupUnhealthyReplicas(t.Context(), []*api.ReplicaSet{rs}, d, 5); err == nil {
			t.Error("scaled up while cleaning up")
		}
	}, rs)
}

// TestReconcileNewReplicaSetScalesDown: a new ReplicaSet above
// spec.replicas is scaled down to it at once (reconcileNewReplicaSet).
func TestReconcileNewReplicaSetScalesDown(t *testing.T) {
	d := newDeployment("web", 2, "v1")
	nrs := roundTrip(t, newRS(d, "web-a", 1, 5, 0))
	f := newFixture(t)
	f.with(func(s *syncer) {
		scaled, err := s.reconcileNewReplicaSet(t.Context(), []*api.ReplicaSet{nrs}, nrs, d)
		if err != nil || !scaled {
			t.Fatalf("scaled %v err %v", scaled, err)
		}
	}, nrs)
	if got := f.rsSizes(); !slices.Equal(got, []string{"web-a=2"}) {
		t.Fatalf("writes %q", got)
	}
}

// TestReconcileOldReplicaSets follows rolling_test
// TestDeploymentController_reconcileOldReplicaSets, checking the sizes
// too: maxScaledDown = all − minAvailable − unavailable new replicas;
// unhealthy old replicas go first, then available ones down to
// minAvailable.
func TestReconcileOldReplicaSets(t *testing.T) {
	for _, tc := range []struct {
		replicas, unavail int32
		oldSize, oldAvail int32
		newSize, newAvail int32
		wantScaled        bool
		wantOld           int32
	}{
		{10, 0, 10, 10, 0, 0, true, 9}, // 0/0 fenceposts: unavailability 1
		{10, 2, 10, 10, 0, 0, true, 8},
		{10, 2, 10, 8, 0, 0, true, 8},  // the 2 unhealthy go
		{10, 2, 10, 9, 0, 0, true, 8},  // 1 unhealthy, 1 available
		{10, 2, 8, 8, 2, 0, false, 8},  // unavailable new pods hold it back
		{10, 2, 10, 10, 2, 1, true, 7}, // 12 − 8 − 1 = 3
		{10, 2, 10, 6, 2, 1, true, 7},  // room 3 bounds the 4 unhealthy
		{3, 1, 2, 3, 1, 0, false, 2},   // room 0, even with an old RS reporting more available than its size
		{10, 2, 0, 0, 10, 10, false, 0},
	} {
		d := newDeployment("web", tc.replicas, "v2")
		d.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: intstr("0"), MaxUnavailable: intstr(fmt.Sprint(tc.unavail))}
		old := roundTrip(t, withStatus(newRS(newDeployment("web", tc.replicas, "v1"), "web-old", 1, tc.oldSize, -time.Hour), tc.oldSize, tc.oldAvail, tc.oldAvail))
		nrs := roundTrip(t, withStatus(newRS(d, "web-new", 2, tc.newSize, 0), tc.newSize, tc.newAvail, tc.newAvail))
		f := newFixture(t)
		var scaled bool
		f.with(func(s *syncer) {
			var err error
			scaled, err = s.reconcileOldReplicaSets(t.Context(), []*api.ReplicaSet{old, nrs}, []*api.ReplicaSet{old}, nrs, d)
			if err != nil {
				t.Fatal(err)
			}
		}, old, nrs)
		got := tc.oldSize
		if len(f.api.Actions()) > 0 {
			got = int32(f.api.Actions()[len(f.api.Actions())-1].Object()["spec"].(map[string]any)["replicas"].(float64))
		}
		if scaled != tc.wantScaled || got != tc.wantOld {
			t.Errorf("%+v: scaled %v, old %d (writes %q)", tc, scaled, got, f.rsSizes())
		}
	}
}

// TestScaleDownOldReplicaSetsForRollingUpdate follows rolling_test
// TestDeploymentController_scaleDownOldReplicaSetsForRollingUpdate: old
// ReplicaSets go down oldest first by the available replicas above
// minAvailable; a failed write stops it.
func TestScaleDownOldReplicaSetsForRollingUpdate(t *testing.T) {
	d := newDeployment("web", 6, "v3")
	d.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: intstr("0"), MaxUnavailable: intstr("1")}
	o1 := roundTrip(t, newRS(newDeployment("web", 6, "v1"), "web-o1", 1, 2, -3*time.Hour))
	o0 := roundTrip(t, newRS(newDeployment("web", 6, "v0"), "web-o0", 1, 0, -4*time.Hour))
	o2 := roundTrip(t, newRS(newDeployment("web", 6, "v2"), "web-o2", 2, 3, -2*time.Hour))
	nrs := roundTrip(t, newRS(d, "web-new", 3, 3, 0))
	f := newFixture(t)
	var n int32
	f.with(func(s *syncer) {
		var err error
		n, err = s.scaleDownOldReplicaSetsForRollingUpdate(t.Context(), []*api.ReplicaSet{o2, o1, o0, nrs}, []*api.ReplicaSet{o2, o0, o1}, d)
		if err != nil {
			t.Fatal(err)
		}
	}, o2, o1, o0, nrs)
	// 8 available, minAvailable 5: 3 go, 2 from the oldest, 1 from the next.
	if got := f.rsSizes(); n != 3 || !slices.Equal(got, []string{"web-o1=0", "web-o2=2"}) {
		t.Fatalf("scaled %d: %q", n, got)
	}
	f = newFixture(t)
	f.api.Fail(resttest.On("update", "replicasets"), rest.Status{Code: 500, Reason: "InternalError"})
	f.with(func(s *syncer) {
		n, err := s.scaleDownOldReplicaSetsForRollingUpdate(t.Context(), []*api.ReplicaSet{o2, o1, nrs}, []*api.ReplicaSet{o2, o1}, d)
		if err == nil || n != 0 || len(f.api.Actions()) != 1 {
			t.Fatalf("n %d err %v writes %q", n, err, f.writes())
		}
	}, o2, o1, nrs)
}
