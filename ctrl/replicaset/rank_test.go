package replicaset

import (
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

func ranked(p *api.Pod, colocated int) rankedPod { return rankedPod{pod: p, colocated: colocated} }

func sidecarRestarts(n int32) podOpt {
	return func(p *api.Pod) {
		always := "Always"
		p.Spec.InitContainers = append(p.Spec.InitContainers, api.Container{Name: "side", RestartPolicy: &always},
			api.Container{Name: "init"})
		p.Status.InitContainerStatuses = append(p.Status.InitContainerStatuses,
			api.ContainerStatus{Name: "side", RestartCount: n}, api.ContainerStatus{Name: "init", RestartCount: 100})
	}
}

func uid(u string) podOpt { return func(p *api.Pod) { p.UID = u } }

// TestDeleteBefore checks each rule of Kubernetes' ActivePodsWithRanks.Less
// (pkg/controller/controller_utils.go, v1.34): first is deleted before
// second, and not the other way round.
func TestDeleteBefore(t *testing.T) {
	now := t0
	old, older := now.Add(-time.Hour), now.Add(-3*time.Hour)
	base := []podOpt{onNode("n"), ready(old), created(older)}
	p := func(opts ...podOpt) *api.Pod { return newPod("p", append(slices.Clone(base), opts...)...) }
	for _, tc := range []struct {
		rule          string
		first, second rankedPod
	}{
		{"1. unassigned before assigned", ranked(p(onNode("")), 0), ranked(p(), 0)},
		{"1. unassigned before assigned, even when running and ready", ranked(p(onNode("")), 0), ranked(p(phase(api.PodPending)), 0)},
		{"2. pending before unknown", ranked(p(phase(api.PodPending)), 0), ranked(p(phase(api.PodUnknown)), 0)},
		{"2. unknown before running", ranked(p(phase(api.PodUnknown)), 0), ranked(p(), 0)},
		{"2. no phase yet counts as pending", ranked(p(phase("")), 0), ranked(p(phase(api.PodUnknown)), 0)},
		{"3. not ready before ready", ranked(newPod("p", onNode("n")), 5), ranked(p(), 0)},
		{"4. lower deletion cost first", ranked(p(annotated(PodDeletionCostAnnotation, "-5")), 0), ranked(p(annotated(PodDeletionCostAnnotation, "3")), 9)},
		{"4. a cost of 1 after no cost (0)", ranked(p(), 0), ranked(p(annotated(PodDeletionCostAnnotation, "1")), 9)},
		{"5. more colocated pods first", ranked(p(), 3), ranked(p(ready(now.Add(-time.Second))), 2)},
		{"6. ready for less time first", ranked(newPod("p", onNode("n"), ready(now.Add(-time.Minute)), created(older)), 0),
			ranked(newPod("p", onNode("n"), ready(old), created(now)), 0)},
		{"6. ready since an unknown time first", ranked(newPod("p", onNode("n"), ready(time.Time{}), created(older)), 0), ranked(p(), 0)},
		{"6. same log2 bucket: by UID", ranked(newPod("p", onNode("n"), ready(now.Add(-130*time.Second)), uid("a")), 0),
			ranked(newPod("p", onNode("n"), ready(now.Add(-70*time.Second)), uid("b")), 0)},
		{"7. more restarts first", ranked(p(restartsOf(3)), 0), ranked(p(restartsOf(2), created(now)), 0)},
		{"7. equal regular restarts: more sidecar restarts first", ranked(p(restartsOf(1), sidecarRestarts(4)), 0), ranked(p(restartsOf(1), sidecarRestarts(2)), 0)},
		{"8. newer first", ranked(p(created(now.Add(-time.Minute))), 0), ranked(p(), 0)},
		{"8. unknown creation time first", ranked(p(created(time.Time{})), 0), ranked(p(), 0)},
		{"8. same log2 bucket: by UID", ranked(p(created(now.Add(-130*time.Second)), uid("a")), 0), ranked(p(created(now.Add(-70*time.Second)), uid("b")), 0)},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			if !deleteBefore(tc.first, tc.second, now) {
				t.Error("first not before second")
			}
			if deleteBefore(tc.second, tc.first, now) {
				t.Error("second before first")
			}
		})
	}
	same := ranked(p(), 0)
	if deleteBefore(same, same, now) {
		t.Error("a pod goes before its equal")
	}
}

// Ages compare on a log2 scale of nanoseconds: 70 s and 130 s share
// bucket 36 (2^36 ns ≈ 68.7 s up to 2^37 ns ≈ 137.4 s); 64 s is in 35.
func TestAgeBucket(t *testing.T) {
	for _, tc := range []struct {
		age  time.Duration
		want int64
	}{
		{-time.Second, -1}, {0, -1}, {1, 0}, {2, 1}, {3, 1}, {4, 2},
		{64 * time.Second, 35}, {70 * time.Second, 36}, {130 * time.Second, 36}, {30 * time.Second, 34},
	} {
		if got := ageBucket(t0.Add(-tc.age), t0); got != tc.want {
			t.Errorf("age %v: bucket %d, want %d", tc.age, got, tc.want)
		}
	}
}

// The annotation counts only in canonical decimal within int32 (the
// apiserver's validation of pod-deletion-cost).
func TestDeletionCost(t *testing.T) {
	for v, want := range map[string]int32{
		"5": 5, "1": 1, "9": 9, "-7": -7, "0": 0, "2147483647": 2147483647, "-2147483648": -2147483648,
		"+5": 0, "05": 0, "": 0, "2147483648": 0, "x": 0, "1x": 0,
	} {
		if got := deletionCost(newPod("p", annotated(PodDeletionCostAnnotation, v))); got != want {
			t.Errorf("%q: %d, want %d", v, got, want)
		}
	}
	if got := deletionCost(newPod("p")); got != 0 {
		t.Errorf("no annotation: %d", got)
	}
}

func TestRestarts(t *testing.T) {
	p := newPod("p", restartsOf(2), restartsOf(7), restartsOf(1), sidecarRestarts(3))
	if got := restarts(p); got != (restartCounts{regular: 7, sidecar: 3}) {
		t.Fatalf("restarts %+v", got)
	}
}

// getPodsToDelete: rank by colocation among the pods of every ReplicaSet
// with the same controller; all pods when all go; the input untouched.
func TestPodsToDelete(t *testing.T) {
	a, b, c := newPod("a", onNode("n1")), newPod("b", onNode("n2")), newPod("c", onNode("n3"))
	related := []*api.Pod{a, b, c, newPod("x", onNode("n2")), newPod("y", onNode("n2"), deleting()), newPod("z", onNode("n3"))}
	active := []*api.Pod{a, b, c}
	got := podsToDelete(active, related, 2, t0)
	if !slices.Equal(got, []*api.Pod{b, c}) {
		t.Fatalf("deleting %v, want b (2 active on n2) then c", names(got))
	}
	if !slices.Equal(active, []*api.Pod{a, b, c}) {
		t.Fatal("input reordered")
	}
	if got := podsToDelete(active, nil, 3, t0); !slices.Equal(got, active) {
		t.Fatalf("deleting %v, want all", names(got))
	}
	// Without related pods every rank is 0: the creation time decides.
	a.CreationTimestamp.Time = t0.Add(-time.Minute)
	if got := podsToDelete(active, nil, 1, t0); got[0] != a {
		t.Fatalf("deleting %v, want the newest, a", names(got))
	}
}

func names(ps []*api.Pod) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}
