//go:build !nocluster

package difftest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/garbagecollector"
	"github.com/kcmlab/kcm/manager"
)

// The controllers of kube-controller-manager the StatefulSet comparison
// runs, by their canonical v1.37 names. The garbage collector deletes the
// claims that the retention policy hands to condemned pods.
const kcmStatefulSet = "statefulset-controller"

// statefulSetControllers are the comparison's controllers on both sides.
var statefulSetControllers = []string{kcmStatefulSet, kcmGarbageCollector}

// statefulSetAllowances are the deliberate differences between kcm's
// StatefulSet controller and kube-controller-manager's, each with its
// reason. None: the one known randomness of Kubernetes' own output, the
// order of a pod's claim volumes, is normalised (normalizeStatefulSetPod),
// not allowed.
var statefulSetAllowances []Allowance

// statefulSetDescriptors are kcm's descriptors of statefulSetControllers:
// the StatefulSet controller as the manager registers it, and the garbage
// collector. It fails the test when kcm registers no StatefulSet
// controller.
func statefulSetDescriptors(t *testing.T) func() []*ctrl.ControllerDescriptor {
	t.Helper()
	d, ok := manager.NewControllerDescriptors().Lookup(kcmStatefulSet)
	if !ok {
		t.Fatalf("kcm registers no %s (manager.NewControllerDescriptors): the StatefulSet comparison needs it", kcmStatefulSet)
	}
	return func() []*ctrl.ControllerDescriptor {
		return []*ctrl.ControllerDescriptor{d, garbagecollector.Descriptor()}
	}
}

// recordStatefulSets runs the scenarios under m on a fresh cluster with
// StatefulSetClusterOptions and fails the test if any of them fails.
func recordStatefulSets(ctx context.Context, t *testing.T, m Manager, scenarios ...Scenario) map[string]*Recording {
	t.Helper()
	began := time.Now()
	opts := StatefulSetClusterOptions()
	opts.Logger = zerolog.Nop()
	recs, err := RunOnFreshClusterWith(ctx, m, opts, scenarios...)
	if err != nil {
		t.Fatalf("%s: %v", m.Name(), err)
	}
	t.Logf("%s: %d scenario(s) recorded in %s", m.Name(), len(scenarios), time.Since(began).Round(time.Millisecond))
	logWrites(t, m, recs)
	return recs
}

// TestStatefulSetMatchesKCM runs StatefulSetScenarios — OrderedReady scale
// 0→3→5→1, Parallel scale 0→5→2, a rolling update with partition 3 then
// 0, OnDelete, claim retention whenScaled Delete on scale-down 4→2, a set owning its claims (whenDeleted Delete) scaled and deleted — under
// kcm and under kube-controller-manager (statefulSetControllers on both
// sides), each on a fresh cluster with a kwok node and the claim binder,
// and requires the same objects at the end (StatefulSets with their
// status, pods, claims, ControllerRevisions), the same steps in every
// phase (in order for OrderedReady, as a set for Parallel) and the same
// Events.
func TestStatefulSetMatchesKCM(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 9*time.Minute)
	defer cancel()
	scenarios := StatefulSetScenarios()
	for i := range scenarios {
		scenarios[i].Timeout = 3 * time.Minute
	}
	kcm := &InProcess{Descriptors: statefulSetDescriptors(t)}
	ref := &KubeControllerManager{Controllers: statefulSetControllers}
	rb := recordStatefulSets(ctx, t, ref, scenarios...)
	ra := recordStatefulSets(ctx, t, kcm, scenarios...)
	compare(t, kcm, ref, ra, rb, statefulSetAllowances, scenarios...)
	logSteps(t, ref.Name(), rb, scenarios)
}

// TestStatefulSetKCMAgreesWithItself runs StatefulSetScenarios twice
// under kube-controller-manager and requires no difference: the evidence
// that the normaliser and the step log remove or sort only what varies
// between runs of the same controller. Then it tampers with a recording —
// two pod creations swapped, a pod's revision label changed — and requires each
// to be reported.
func TestStatefulSetKCMAgreesWithItself(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 9*time.Minute)
	defer cancel()
	scenarios := StatefulSetScenarios()
	for i := range scenarios {
		scenarios[i].Timeout = 3 * time.Minute
	}
	a := &KubeControllerManager{Controllers: statefulSetControllers}
	b := &KubeControllerManager{Controllers: statefulSetControllers}
	ra := recordStatefulSets(ctx, t, a, scenarios...)
	rb := recordStatefulSets(ctx, t, b, scenarios...)
	compare(t, a, b, ra, rb, nil, scenarios...)
	logSteps(t, a.Name(), ra, scenarios)

	sc := scenarios[0]
	orig := rb[sc.Name]
	swapped := *orig
	swapped.Timeline.States = append([]Step(nil), orig.Timeline.States...)
	var creates []int
	for i, s := range swapped.Timeline.States {
		if strings.HasPrefix(s.State, "create pod") {
			creates = append(creates, i)
		}
	}
	if len(creates) < 2 {
		t.Fatalf("%s recorded %d pod creations", sc.Name, len(creates))
	}
	s := swapped.Timeline.States
	s[creates[0]].State, s[creates[1]].State = s[creates[1]].State, s[creates[0]].State
	if d := Compare(sc, ra[sc.Name], &swapped, nil); len(d) == 0 {
		t.Error("two pod creations swapped were not reported")
	}
	relabelled := *orig
	relabelled.Objects = Snapshot{}
	changed := false
	for k, v := range orig.Objects {
		if strings.HasPrefix(k, "Pod ") && !changed && strings.Contains(v, revisionHashLabel+": ") {
			v = strings.Replace(v, revisionHashLabel+": ", revisionHashLabel+": x", 1)
			changed = true
		}
		relabelled.Objects[k] = v
	}
	if d := Compare(sc, ra[sc.Name], &relabelled, nil); !changed || len(d) == 0 {
		t.Errorf("a pod's changed revision label was not reported (label found: %t)", changed)
	}
}

// logSteps logs each scenario's recorded steps and Events of one side.
// Tests call it after compare, so that a failure's differences come first
// in the output (CI shows its head and its tail).
func logSteps(t *testing.T, side string, recs map[string]*Recording, scenarios []Scenario) {
	t.Helper()
	for _, sc := range scenarios {
		var sb strings.Builder
		for _, s := range recs[sc.Name].Timeline.States {
			sb.WriteString("  [" + s.Phase + "] " + s.State + "\n")
		}
		t.Logf("%s, %s:\n%s", side, sc.Name, sb.String())
	}
}
