package podgc

import (
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// TestGCTerminated follows upstream's TestGCTerminated: of the terminated
// pods, all but the threshold are deleted, evicted first, then oldest
// first (creationTimestamp, ties by name); a threshold of 0 or less
// turns the rule off; a terminated pod is deleted as it is, without a
// status patch.
func TestGCTerminated(t *testing.T) {
	for _, tc := range []struct {
		name      string
		threshold int
		pods      []*api.Pod
		want      []string
	}{
		{"threshold 1: the two oldest of three go", 1, []*api.Pod{
			pod("a", 3*time.Minute, phase(api.PodFailed)), pod("b", 2*time.Minute, phase(api.PodSucceeded)),
			pod("c", time.Minute, phase(api.PodFailed))}, []string{deleteLine("a"), deleteLine("b")}},
		{"oldest by creationTimestamp, not by name", 1, []*api.Pod{
			pod("a", time.Minute, phase(api.PodFailed)), pod("b", 3*time.Minute, phase(api.PodSucceeded)),
			pod("c", 2*time.Minute, phase(api.PodFailed))}, []string{deleteLine("b"), deleteLine("c")}},
		{"same creationTimestamp: by name", 1, []*api.Pod{
			pod("c", time.Minute, phase(api.PodFailed)), pod("a", time.Minute, phase(api.PodSucceeded)),
			pod("b", time.Minute, phase(api.PodFailed))}, []string{deleteLine("a"), deleteLine("b")}},
		{"threshold 0 disables the rule", 0, []*api.Pod{
			pod("a", 2*time.Minute, phase(api.PodFailed)), pod("b", time.Minute, phase(api.PodSucceeded))}, nil},
		{"negative threshold disables the rule", -1, []*api.Pod{
			pod("a", 2*time.Minute, phase(api.PodFailed)), pod("b", time.Minute, phase(api.PodSucceeded))}, nil},
		{"running, pending and unknown pods do not count", 1, []*api.Pod{
			pod("a", 4*time.Minute, phase(api.PodRunning)), pod("b", 3*time.Minute, phase(api.PodSucceeded)),
			pod("c", 2*time.Minute, phase(api.PodFailed)), pod("d", 5*time.Minute, phase(api.PodPending)),
			pod("e", 5*time.Minute, phase(api.PodUnknown))}, []string{deleteLine("b")}},
		{"at the threshold nothing goes", 2, []*api.Pod{
			pod("a", 2*time.Minute, phase(api.PodFailed)), pod("b", time.Minute, phase(api.PodSucceeded))}, nil},
		{"an evicted pod goes first, however new", 1, []*api.Pod{
			pod("a", 3*time.Minute, phase(api.PodFailed)), pod("b", 2*time.Minute, phase(api.PodSucceeded)),
			pod("c", time.Minute, evicted)}, []string{deleteLine("c"), deleteLine("a")}},
		{"a pod with no phase counts as terminated (isPodTerminated) and is marked Failed", 1, []*api.Pod{
			pod("a", 3*time.Minute, phase("")), pod("b", 2*time.Minute, phase(api.PodSucceeded))},
			[]string{patchLine("a"), deleteLine("a")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Config{TerminatedPodGCThreshold: tc.threshold}, tc.pods, nil)
			if got := f.pass(); !slices.Equal(got, tc.want) {
				t.Fatalf("terminated-pods rule (threshold %d): requests\n%q\nwant\n%q", tc.threshold, got, tc.want)
			}
		})
	}
}

// TestGCTerminating follows upstream's TestGCTerminating: a terminating
// pod is force-deleted when its node is not Ready (False, Unknown or no
// condition) and has a node.kubernetes.io/out-of-service taint of any
// effect; not when the node is Ready, untainted, or not in the cache
// (then the orphan rule decides); never a pod that is not terminating.
func TestGCTerminating(t *testing.T) {
	nodes := []*api.Node{
		node("oos-notready", api.ConditionFalse, outOfService),
		node("oos-unknown", api.ConditionUnknown, "other", outOfService),
		node("oos-nocondition", ""),
		node("oos-ready", api.ConditionTrue, outOfService),
		node("notready", api.ConditionFalse, "node.kubernetes.io/unreachable"),
	}
	nodes[2].Spec.Taints = []api.Taint{{Key: outOfService, Effect: api.TaintEffectNoSchedule, Value: "shutdown"}}
	pods := []*api.Pod{
		pod("a", time.Minute, onNode("oos-notready"), terminating),
		pod("b", 2*time.Minute, onNode("oos-unknown"), terminating, phase(api.PodPending)),
		pod("c", 3*time.Minute, onNode("oos-nocondition"), terminating, phase(api.PodSucceeded)),
		pod("d", 4*time.Minute, onNode("oos-ready"), terminating),
		pod("e", 5*time.Minute, onNode("notready"), terminating),
		pod("f", 6*time.Minute, onNode("oos-notready")),
	}
	f := newFixture(t, Config{TerminatedPodGCThreshold: 10}, pods, nodes)
	want := []string{deleteLine("c"), patchLine("b"), deleteLine("b"), patchLine("a"), deleteLine("a")}
	if got := f.pass(); !slices.Equal(got, want) {
		t.Fatalf("out-of-service rule: requests\n%q\nwant (oldest first)\n%q", got, want)
	}
	if got, want := f.remaining(), []string{"ns/d", "ns/e", "ns/f"}; !slices.Equal(got, want) {
		t.Fatalf("out-of-service rule: pods left %q, want %q", got, want)
	}
}

// TestGCUnscheduledTerminating follows upstream's
// TestGCUnscheduledTerminating: a terminating pod bound to no node is
// force-deleted in any phase (marked Failed first unless finished); a pod
// not terminating, or bound to a node, is not this rule's.
func TestGCUnscheduledTerminating(t *testing.T) {
	pods := []*api.Pod{
		pod("a", time.Minute, terminating, phase(api.PodFailed)),
		pod("b", time.Minute, terminating, phase(api.PodSucceeded)),
		pod("c", time.Minute, terminating, phase(api.PodRunning)),
		pod("d", time.Minute, phase(api.PodPending)),
		pod("e", time.Minute, terminating, onNode("n1")),
	}
	f := newFixture(t, Config{TerminatedPodGCThreshold: 10}, pods, []*api.Node{node("n1", api.ConditionTrue)})
	want := []string{deleteLine("a"), deleteLine("b"), patchLine("c"), deleteLine("c")}
	if got := f.pass(); !slices.Equal(got, want) {
		t.Fatalf("unscheduled-terminating rule: requests\n%q\nwant\n%q", got, want)
	}
}
