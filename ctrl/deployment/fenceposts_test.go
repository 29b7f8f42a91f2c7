package deployment

import (
	"errors"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// TestResolveFenceposts checks Kubernetes' ResolveFenceposts
// (deployment_util_test TestResolveFenceposts): surge percentages round
// up, unavailability percentages round down, nil is 0, and both 0 make
// unavailability 1.
func TestResolveFenceposts(t *testing.T) {
	for _, tc := range []struct {
		surge, unavail string // "" = nil
		desired        int32
		wantS, wantU   int32
		wantErr        bool
	}{
		{"0", "0", 0, 0, 1, false},
		{"39%", "39%", 10, 4, 3, false},
		{"oops", "39%", 10, 0, 0, true},
		{"55%", "urg", 10, 0, 0, true},
		{"5", "1", 7, 5, 1, false},
		{"25%", "25%", 3, 1, 0, false},
		{"25%", "25%", 4, 1, 1, false},
		{"25%", "25%", 1, 1, 0, false},
		{"0%", "0%", 10, 0, 1, false},
		{"", "", 10, 0, 1, false},
		{"", "30%", 10, 0, 3, false},
		{"1%", "", 10, 1, 0, false},
		{"100%", "100%", 3, 3, 3, false},
	} {
		var s, u *api.IntOrString
		if tc.surge != "" {
			s = intstr(tc.surge)
		}
		if tc.unavail != "" {
			u = intstr(tc.unavail)
		}
		if tc.surge == "oops" || tc.surge == "55%" && tc.unavail == "urg" {
			v1, v2 := api.IntOrStringFromString(tc.surge), api.IntOrStringFromString(tc.unavail)
			s, u = &v1, &v2
		}
		gs, gu, err := ResolveFenceposts(s, u, tc.desired)
		if (err != nil) != tc.wantErr || gs != tc.wantS || gu != tc.wantU {
			t.Errorf("ResolveFenceposts(%s, %s, %d) = %d, %d, %v; want %d, %d, error %v",
				tc.surge, tc.unavail, tc.desired, gs, gu, err, tc.wantS, tc.wantU, tc.wantErr)
		}
		if err != nil && !errors.Is(err, api.ErrInvalidIntOrString) {
			t.Errorf("error %v does not wrap ErrInvalidIntOrString", err)
		}
	}
}

// TestMaxSurgeMaxUnavailable: Recreate has no fenceposts; a Deployment of
// 0 may have none unavailable; unavailability is capped at spec.replicas
// (deploymentutil.MaxUnavailable, MaxSurge).
func TestMaxSurgeMaxUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name         string
		replicas     int32
		recreate     bool
		surge, unav  string
		noParams     bool
		wantS, wantU int32
	}{
		{"rolling 25%", 10, false, "25%", "25%", false, 3, 2},
		{"recreate", 10, true, "25%", "25%", false, 0, 0},
		{"zero replicas", 0, false, "1", "1", false, 1, 0},
		{"capped", 2, false, "0", "5", false, 0, 2},
		{"no rollingUpdate params", 3, false, "", "", true, 0, 1},
	} {
		d := newDeployment("d", tc.replicas, "img")
		if tc.recreate {
			d.Spec.Strategy.Type = api.RecreateDeploymentStrategyType
		}
		if tc.noParams {
			d.Spec.Strategy.RollingUpdate = nil
		} else {
			d.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: intstr(tc.surge), MaxUnavailable: intstr(tc.unav)}
		}
		if s, u := MaxSurge(d), MaxUnavailable(d); s != tc.wantS || u != tc.wantU {
			t.Errorf("%s: MaxSurge %d MaxUnavailable %d, want %d %d", tc.name, s, u, tc.wantS, tc.wantU)
		}
	}
}

// TestNewRSNewReplicas follows deployment_util_test TestNewRSNewReplicas:
// the new ReplicaSet grows up to the surge fencepost and never beyond
// spec.replicas; Recreate goes to spec.replicas at once.
func TestNewRSNewReplicas(t *testing.T) {
	for _, tc := range []struct {
		name             string
		recreate         bool
		replicas         int32
		surge            string
		newSize, oldSize int32
		want             int32
		wantErr          bool
	}{
		{"recreate", true, 1, "1", 0, 0, 1, false},
		{"surge room", false, 1, "1", 0, 1, 1, false},
		{"surge 2", false, 5, "2", 0, 5, 2, false},
		{"at fencepost", false, 5, "1", 1, 5, 1, false},
		{"capped at replicas", false, 3, "5", 2, 0, 3, false},
		{"percent rounds up", false, 10, "1%", 0, 10, 1, false},
		{"bad surge", false, 10, "x%", 0, 10, 0, true},
		{"unknown strategy", false, 1, "1", 0, 0, 0, true},
	} {
		d := newDeployment("d", tc.replicas, "img")
		d.Spec.Strategy.RollingUpdate.MaxSurge = intstr(tc.surge)
		if tc.surge == "x%" {
			v := api.IntOrStringFromString("x%")
			d.Spec.Strategy.RollingUpdate.MaxSurge = &v
		}
		if tc.recreate {
			d.Spec.Strategy.Type = api.RecreateDeploymentStrategyType
		}
		if tc.name == "unknown strategy" {
			d.Spec.Strategy.Type = "Other"
		}
		nrs := newRS(d, "d-new", 2, tc.newSize, 0)
		old := newRS(d, "d-old", 1, tc.oldSize, -1)
		got, err := NewRSNewReplicas(d, []*api.ReplicaSet{nrs, old}, nrs)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("%s: NewRSNewReplicas = %d, %v; want %d, error %v", tc.name, got, err, tc.want, tc.wantErr)
		}
		if tc.name == "unknown strategy" && !errors.Is(err, ErrUnknownStrategy) {
			t.Errorf("%s: error %v, want ErrUnknownStrategy", tc.name, err)
		}
	}
}

// TestIsSaturated: all of size, annotation and availability must equal
// spec.replicas (deploymentutil.IsSaturated).
func TestIsSaturated(t *testing.T) {
	d := newDeployment("d", 3, "img")
	full := func() *api.ReplicaSet { return newRS(d, "d-a", 1, 3, 0) }
	if !IsSaturated(d, full()) {
		t.Error("a full ReplicaSet is not saturated")
	}
	if IsSaturated(d, nil) {
		t.Error("nil is saturated")
	}
	for name, mod := range map[string]func(*api.ReplicaSet){
		"size":          func(rs *api.ReplicaSet) { rs.Spec.Replicas = i32(2) },
		"annotation":    func(rs *api.ReplicaSet) { rs.Annotations[DesiredReplicasAnnotation] = "2" },
		"no annotation": func(rs *api.ReplicaSet) { delete(rs.Annotations, DesiredReplicasAnnotation) },
		"available":     func(rs *api.ReplicaSet) { rs.Status.AvailableReplicas = 2 },
	} {
		rs := full()
		mod(rs)
		if IsSaturated(d, rs) {
			t.Errorf("%s: saturated", name)
		}
	}
}

// TestDeadlineAndHistoryLimits: MaxInt32 means "never" for both
// (HasProgressDeadline, HasRevisionHistoryLimit).
func TestDeadlineAndHistoryLimits(t *testing.T) {
	d := newDeployment("d", 1, "img")
	if !hasProgressDeadline(d) || !hasRevisionHistoryLimit(d) {
		t.Fatal("defaults are limits")
	}
	d.Spec.ProgressDeadlineSeconds, d.Spec.RevisionHistoryLimit = i32(1<<31-1), i32(1<<31-1)
	if hasProgressDeadline(d) || hasRevisionHistoryLimit(d) {
		t.Fatal("MaxInt32 is a limit")
	}
	d.Spec.ProgressDeadlineSeconds, d.Spec.RevisionHistoryLimit = nil, nil
	if hasProgressDeadline(d) || hasRevisionHistoryLimit(d) {
		t.Fatal("nil is a limit")
	}
	if replicasOf(nil) != 1 || specReplicas(nil) != 0 {
		t.Fatal("nil replicas")
	}
}
