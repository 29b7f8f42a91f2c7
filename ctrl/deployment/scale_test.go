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

// TestReplicaSetFraction: without a max-replicas annotation the base is
// status.replicas; with neither, nothing moves (getReplicaSetFraction).
func TestReplicaSetFraction(t *testing.T) {
	d := kcmDeployment(10, "0")
	rs := newRS(d, "a", 1, 4, 0)
	delete(rs.Annotations, MaxReplicasAnnotation)
	d.Status.Replicas = 5
	if got := replicaSetFraction(rs, d); got != 4 {
		t.Errorf("fraction from status: %d", got)
	}
	d.Status.Replicas = 0
	if got := replicaSetFraction(rs, d); got != 0 {
		t.Errorf("fraction with no base: %d", got)
	}
	rs.Annotations[MaxReplicasAnnotation] = "0"
	d.Status.Replicas = 8
	if got := replicaSetFraction(rs, d); got != 1 { // 4*10/8 = 5
		t.Errorf("fraction with a zero annotation: %d", got)
	}
	if replicaSetProportion(nil, d, 3, 0) != 0 || replicaSetProportion(rs, d, 3, 3) != 0 || replicaSetProportion(rs, d, 0, 0) != 0 {
		t.Error("proportion of nothing")
	}
}

// TestScaleSaturatedAndRecreate: with the new ReplicaSet saturated every
// old one goes to 0; a Recreate Deployment with several active
// ReplicaSets is not scaled proportionally (scale).
func TestScaleSaturatedAndRecreate(t *testing.T) {
	d := newDeployment("web", 3, "v2")
	nrs := roundTrip(t, newRS(d, "web-new", 2, 3, 0))
	old := roundTrip(t, newRS(newDeployment("web", 3, "v1"), "web-old", 1, 1, -time.Hour))
	f := newFixture(t)
	f.with(func(s *syncer) {
		if err := s.scale(t.Context(), d, nrs, []*api.ReplicaSet{old}); err != nil {
			t.Fatal(err)
		}
	}, nrs, old)
	if got := f.rsSizes(); !slices.Equal(got, []string{"web-old=0"}) {
		t.Fatalf("saturated: %q", got)
	}
	rec := recreateDeployment("v2")
	rec.Spec.Replicas = i32(5)
	f = newFixture(t)
	recNew := roundTrip(t, newRS(rec, "web-new", 2, 2, 0))
	f.with(func(s *syncer) {
		if err := s.scale(t.Context(), rec, recNew, []*api.ReplicaSet{old}); err != nil {
			t.Fatal(err)
		}
	}, recNew, old)
	if got := f.rsSizes(); len(got) != 0 {
		t.Fatalf("recreate scaled %q", got)
	}
}

// TestScalingEvent: a desired-replicas annotation that differs from
// spec.replicas on an active ReplicaSet is a scaling event; on an
// inactive one, or unreadable, it is not (isScalingEvent).
func TestScalingEvent(t *testing.T) {
	d := newDeployment("web", 5, "v1")
	for _, tc := range []struct {
		anno string
		size int32
		want bool
	}{{"3", 3, true}, {"5", 3, false}, {"3", 0, false}, {"x", 3, false}, {"-1", 3, false}} {
		rs := newRS(d, "web-a", 1, tc.size, 0)
		rs.Annotations[DesiredReplicasAnnotation] = tc.anno
		f := newFixture(t)
		f.load([]*api.Deployment{d}, rs)
		f.with(func(s *syncer) {
			list, err := s.claimReplicaSets(t.Context(), f.deployments[0])
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.isScalingEvent(t.Context(), f.deployments[0], list)
			if err != nil || got != tc.want {
				t.Errorf("annotation %q size %d: %v %v", tc.anno, tc.size, got, err)
			}
		})
	}
}

// TestProportionalScaling: proportional scaling caps a ReplicaSet's share by what
// is left to give (5 and 5 of 10 → 13: 7 and 6, not 7 and 7);
// scaling to 0 ignores maxSurge; the max-replicas annotation is
// spec.replicas + maxSurge; with the new ReplicaSet saturated every old
// one is scaled to 0.
func TestProportionalScaling(t *testing.T) {
	d := kcmDeployment(13, "0")
	a := roundTrip(t, withAnno(newRS(d, "a", 1, 5, -time.Hour), 10, 10))
	b := roundTrip(t, withAnno(newRS(d, "b", 1, 5, 0), 10, 10))
	f := newFixture(t)
	f.with(func(s *syncer) {
		if err := s.scale(t.Context(), d, b, []*api.ReplicaSet{a}); err != nil {
			t.Fatal(err)
		}
	}, a, b)
	if got := f.rsSizes(); !slices.Equal(got, []string{"b=7", "a=6"}) {
		t.Fatalf("13: %q", got)
	}
	// To 0 with a surge of 1: nothing is left anywhere.
	z := kcmDeployment(0, "1")
	f = newFixture(t)
	zn, zo := roundTrip(t, withAnno(newRS(z, "n", 2, 3, 0), 6, 7)), roundTrip(t, withAnno(newRS(z, "o", 1, 3, -time.Hour), 6, 7))
	f.with(func(s *syncer) {
		if err := s.scale(t.Context(), z, zn, []*api.ReplicaSet{zo}); err != nil {
			t.Fatal(err)
		}
	}, zn, zo)
	if got := f.rsSizes(); !slices.Equal(got, []string{"n=0", "o=0"}) && !slices.Equal(got, []string{"o=0", "n=0"}) {
		t.Fatalf("to 0: %q", got)
	}
	// The annotations written.
	s2 := kcmDeployment(20, "2")
	f = newFixture(t)
	sn, so := roundTrip(t, withAnno(newRS(s2, "n", 2, 6, 0), 10, 12)), roundTrip(t, withAnno(newRS(s2, "o", 1, 6, -time.Hour), 10, 12))
	f.with(func(s *syncer) {
		if err := s.scale(t.Context(), s2, sn, []*api.ReplicaSet{so}); err != nil {
			t.Fatal(err)
		}
	}, sn, so)
	for _, a := range f.api.Actions() {
		ann := a.Object()["metadata"].(map[string]any)["annotations"].(map[string]any)
		if ann[DesiredReplicasAnnotation] != "20" || ann[MaxReplicasAnnotation] != "22" {
			t.Errorf("%s annotations %v", a.Name, ann)
		}
	}
	// Saturated: both old ones go to 0.
	sd := newDeployment("web", 3, "v2")
	f = newFixture(t)
	sdNew := roundTrip(t, newRS(sd, "web-new", 3, 3, 0))
	sdOld := []*api.ReplicaSet{
		roundTrip(t, newRS(newDeployment("web", 3, "v1"), "web-o1", 1, 1, -2*time.Hour)),
		roundTrip(t, newRS(newDeployment("web", 3, "v0"), "web-o2", 2, 1, -time.Hour))}
	f.with(func(s *syncer) {
		if err := s.scale(t.Context(), sd, sdNew, sdOld); err != nil {
			t.Fatal(err)
		}
	}, append(sdOld, sdNew)...)
	if got := f.rsSizes(); len(got) != 2 {
		t.Fatalf("saturated: %q", got)
	}
}

// withAnno sets desired- and max-replicas.
func withAnno(rs *api.ReplicaSet, want, maxReplicas int32) *api.ReplicaSet {
	setReplicasAnnotations(rs, want, maxReplicas)
	return rs
}
