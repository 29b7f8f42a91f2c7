package deployment

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// kcmDeployment is Kubernetes' test Deployment: RollingUpdate with
// maxSurge and maxUnavailable 0 unless given.
func kcmDeployment(replicas int32, surge string) *api.Deployment {
	d := newDeployment("foo", replicas, "foo/bar")
	d.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: intstr(surge), MaxUnavailable: intstr("0")}
	return d
}

// TestScale is kubernetes/pkg/controller/deployment sync_test TestScale:
// proportional scaling of the active ReplicaSets when spec.replicas
// changes during a rollout, the leftover going to the largest (newest on
// ties) when adding and the largest (oldest on ties) when removing.
func TestScale(t *testing.T) {
	newer, old, older := time.Duration(0), -time.Hour, -2*time.Hour
	type rsSpec struct {
		name string
		size int32
		age  time.Duration
	}
	for _, tc := range []struct {
		name               string
		replicas, before   int32
		surge, surgeBefore string
		newRS              *rsSpec
		old                []rsSpec
		want               map[string]int32 // sizes after; absent = not written
		desiredAnno        map[string]int32
		brokenNew          bool
	}{
		{"normal scaling event: 10 -> 12", 12, 10, "0", "0", &rsSpec{"foo-v1", 10, newer}, nil, map[string]int32{"foo-v1": 12}, nil, false},
		{"normal scaling event: 10 -> 5", 5, 10, "0", "0", &rsSpec{"foo-v1", 10, newer}, nil, map[string]int32{"foo-v1": 5}, nil, false},
		{"proportional scaling: 5 -> 10", 10, 5, "0", "0", &rsSpec{"foo-v2", 2, newer}, []rsSpec{{"foo-v1", 3, old}}, map[string]int32{"foo-v2": 4, "foo-v1": 6}, nil, false},
		{"proportional scaling: 5 -> 3", 3, 5, "0", "0", &rsSpec{"foo-v2", 2, newer}, []rsSpec{{"foo-v1", 3, old}}, map[string]int32{"foo-v2": 1, "foo-v1": 2}, nil, false},
		{"proportional scaling: 9 -> 4", 4, 9, "0", "0", &rsSpec{"foo-v2", 8, newer}, []rsSpec{{"foo-v1", 1, old}}, map[string]int32{"foo-v2": 4, "foo-v1": 0}, nil, false},
		{"proportional scaling: 7 -> 10", 10, 7, "0", "0", &rsSpec{"foo-v3", 2, newer}, []rsSpec{{"foo-v2", 3, old}, {"foo-v1", 2, older}}, map[string]int32{"foo-v3": 3, "foo-v2": 4, "foo-v1": 3}, nil, false},
		{"proportional scaling: 13 -> 8", 8, 13, "0", "0", &rsSpec{"foo-v3", 2, newer}, []rsSpec{{"foo-v2", 8, old}, {"foo-v1", 3, older}}, map[string]int32{"foo-v3": 1, "foo-v2": 5, "foo-v1": 2}, nil, false},
		{"leftover distribution: 3 -> 4", 4, 3, "0", "0", &rsSpec{"foo-v3", 1, newer}, []rsSpec{{"foo-v2", 1, old}, {"foo-v1", 1, older}}, map[string]int32{"foo-v3": 2, "foo-v2": 1, "foo-v1": 1}, nil, false},
		{"leftover distribution: 3 -> 2", 2, 3, "0", "0", &rsSpec{"foo-v3", 1, newer}, []rsSpec{{"foo-v2", 1, old}, {"foo-v1", 1, older}}, map[string]int32{"foo-v3": 1, "foo-v2": 1, "foo-v1": 0}, nil, false},
		{"proportional scaling (no new rs): 4 -> 5", 5, 4, "0", "0", nil, []rsSpec{{"foo-v2", 2, old}, {"foo-v1", 2, older}}, map[string]int32{"foo-v2": 3, "foo-v1": 2}, nil, false},
		{"proportional scaling: 6 -> 0", 0, 6, "0", "0", &rsSpec{"foo-v3", 3, newer}, []rsSpec{{"foo-v2", 2, old}, {"foo-v1", 1, older}}, map[string]int32{"foo-v3": 0, "foo-v2": 0, "foo-v1": 0}, nil, false},
		{"proportional scaling: 0 -> 6", 6, 6, "0", "0", &rsSpec{"foo-v3", 0, newer}, []rsSpec{{"foo-v2", 0, old}, {"foo-v1", 0, older}}, map[string]int32{"foo-v3": 6}, nil, false},
		{"deployment with surge pods", 20, 10, "2", "2", &rsSpec{"foo-v2", 6, newer}, []rsSpec{{"foo-v1", 6, old}}, map[string]int32{"foo-v2": 11, "foo-v1": 11}, nil, false},
		{"change both surge and size", 50, 10, "6", "3", &rsSpec{"foo-v2", 5, newer}, []rsSpec{{"foo-v1", 8, old}}, map[string]int32{"foo-v2": 22, "foo-v1": 34}, nil, false},
		{"saturated but broken new replica set does not affect old pods", 2, 2, "1", "1", &rsSpec{"foo-v2", 2, newer}, []rsSpec{{"foo-v1", 1, old}}, map[string]int32{}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := kcmDeployment(tc.replicas, tc.surge)
			before := kcmDeployment(tc.before, tc.surgeBefore)
			mk := func(r rsSpec) *api.ReplicaSet {
				rs := newRS(d, r.name, 1, r.size, r.age)
				want := tc.before
				if v, ok := tc.desiredAnno[r.name]; ok {
					want = v
				}
				setReplicasAnnotations(rs, want, want+MaxSurge(before))
				return roundTrip(t, rs)
			}
			var nrs *api.ReplicaSet
			if tc.newRS != nil {
				nrs = mk(*tc.newRS)
				if tc.brokenNew {
					nrs.Status.AvailableReplicas = 0
				}
			}
			var olds []*api.ReplicaSet
			for _, r := range tc.old {
				olds = append(olds, mk(r))
			}
			f := newFixture(t)
			f.with(func(s *syncer) {
				if err := s.scale(context.Background(), roundTrip(t, d), nrs, olds); err != nil {
					t.Fatal(err)
				}
			}, append(slices.Clone(olds), nrs)...)
			orig := map[string]int32{}
			for _, rs := range append(slices.Clone(olds), nrs) {
				if rs != nil {
					orig[rs.Name] = specReplicas(rs)
				}
			}
			got := map[string]int32{}
			for _, a := range f.api.Actions() {
				if a.Verb != "update" {
					t.Fatalf("unexpected %s", a)
				}
				n, _ := a.Object()["spec"].(map[string]any)["replicas"].(float64)
				got[a.Name] = int32(n)
			}
			for name, want := range tc.want {
				if got[name] != want {
					t.Errorf("%s: size %d, want %d (writes %v)", name, got[name], want, f.rsSizes())
				}
			}
			for name, n := range got {
				if _, ok := tc.want[name]; !ok && n != orig[name] {
					t.Errorf("%s: resized %d -> %d, want untouched", name, orig[name], n)
				}
			}
		})
	}
}
