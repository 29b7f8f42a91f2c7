package difftest

import (
	"github.com/kcmlab/kcm/kube/api"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func podStep(phase string, counts map[string]PodCount) PodStep {
	return PodStep{Phase: phase, Counts: counts}
}

// Deployment strategies (kubernetes.io/docs/concepts/workloads/controllers/deployment):
// a rolling update keeps at least replicas − maxUnavailable pods available
// and at most replicas + maxSurge pods; Recreate kills all old pods before
// creating new ones. The checks apply to the named phase only.
func TestInvariants(t *testing.T) {
	for _, tc := range []struct {
		name string
		invs []Invariant
		step PodStep
		ok   bool
	}{
		{"rolling: exactly the minimum Ready", RollingInvariants("r", 4, 1),
			podStep("r", map[string]PodCount{"v1": {3, 3}, "v2": {2, 0}}), true},
		{"rolling: one below the minimum", RollingInvariants("r", 4, 1),
			podStep("r", map[string]PodCount{"v1": {2, 2}, "v2": {2, 0}}), false},
		{"rolling: another phase is not checked", RollingInvariants("r", 4, 1),
			podStep("setup", map[string]PodCount{"v1": {1, 0}}), true},
		{"recreate: one template", RecreateInvariants("r"),
			podStep("r", map[string]PodCount{"v2": {3, 1}}), true},
		{"recreate: a template with no pods left does not count", RecreateInvariants("r"),
			podStep("r", map[string]PodCount{"v1": {0, 0}, "v2": {1, 0}}), true},
		{"recreate: two templates at once", RecreateInvariants("r"),
			podStep("r", map[string]PodCount{"v1": {1, 1}, "v2": {1, 0}}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := CheckInvariants("A", Timeline{Pods: []PodStep{tc.step}}, tc.invs)
			if (len(d) == 0) != tc.ok {
				t.Errorf("violations %v, want ok=%t", d, tc.ok)
			}
			if len(d) > 0 && !strings.HasPrefix(d[0].Detail, "pod step 1 of 1 (r): ") {
				t.Errorf("detail %q does not locate the step", d[0].Detail)
			}
		})
	}
}

func TestSpecBound(t *testing.T) {
	tl := Timeline{Specs: []Step{{"", "v1=9"}, {"r", "v1=4 v2=1"}, {"r", "v1=4 v2=2"}}}
	if d := SpecBound("A", tl, "r", 6); d != nil {
		t.Errorf("within the bound: %v", d)
	}
	d := SpecBound("B", tl, "r", 5)
	if len(d) != 1 || !strings.Contains(d[0].Detail, "spec step 3 of 3") || !strings.Contains(d[0].Key, "B exceeds 5") {
		t.Errorf("over the bound: %v", d)
	}
}

func TestDiffSpecs(t *testing.T) {
	a := Timeline{Specs: []Step{{"", "v1=4"}, {"r", "v1=4 v2=1"}}}
	if d := DiffSpecs(a, a); d != nil {
		t.Errorf("equal streams differ: %v", d)
	}
	b := Timeline{Specs: []Step{{"", "v1=4"}, {"r", "v1=3 v2=1"}, {"r", "v1=2 v2=2"}}}
	d := DiffSpecs(a, b)
	if len(d) != 1 {
		t.Fatalf("got %v", d)
	}
	want := "step A                                        B\n" +
		" 1   [] v1=4                                  [] v1=4\n" +
		">2   [r] v1=4 v2=1                            [r] v1=3 v2=1\n" +
		" 3   -                                        [r] v1=2 v2=2\n"
	if d[0].Detail != want {
		t.Errorf("report\n%s\nwant\n%s", d[0].Detail, want)
	}
	// A prefix is a difference too, on either side; so is a first step
	// that differs.
	if d := DiffSpecs(a, Timeline{Specs: a.Specs[:1]}); len(d) != 1 {
		t.Error("a shorter B is not reported")
	}
	if d := DiffSpecs(Timeline{Specs: a.Specs[:1]}, a); len(d) != 1 || !strings.Contains(d[0].Detail, ">2   -") {
		t.Errorf("a shorter A: %v", d)
	}
	if d := DiffSpecs(a, Timeline{Specs: []Step{{"", "v1=5"}, a.Specs[1]}}); len(d) != 1 || !strings.Contains(d[0].Detail, ">1") {
		t.Errorf("a different first step: %v", d)
	}
}

// TestDiffStates: the states a scenario records itself are compared step
// by step like the spec stream, repeats are dropped when recorded (also
// across a phase boundary: a repeat just after SetPhase is timing, as the
// cold make test run that found TestNamespaceDiscoveryFailureMatchesKCM
// failing showed), and Compare reports a difference in them.
func TestDiffStates(t *testing.T) {
	s := newTimelineState()
	s.addState("Active")
	s.addState("Active")
	s.setPhase("delete")
	s.addState("Active") // the same state seen again after the phase changed: not a step
	s.addState("Terminating")
	a := s.snapshot()
	if want := []Step{{"", "Active"}, {"delete", "Terminating"}}; len(a.States) != 2 || a.States[0] != want[0] || a.States[1] != want[1] {
		t.Fatalf("states %v, want %v", a.States, want)
	}
	if d := DiffStates(a, a); d != nil {
		t.Errorf("equal streams differ: %v", d)
	}
	b := Timeline{States: []Step{{"", "Active"}, {"delete", "Terminating, conditions"}}}
	d := DiffStates(a, b)
	if len(d) != 1 || d[0].Key != "timeline: recorded states" || !strings.Contains(d[0].Detail, ">2") {
		t.Fatalf("got %v", d)
	}
	if d := Compare(Scenario{}, &Recording{Timeline: a}, &Recording{Timeline: b}, nil); len(d) != 1 {
		t.Errorf("Compare reported %v, want the states' difference", d)
	}
}

// TestDiffDeletions: deletions are ordered by resourceVersion across the
// three watches, compared by phase and kind only (names differ between
// managers), and a different order is reported with both sequences.
func TestDiffDeletions(t *testing.T) {
	s := newTimelineState()
	s.setPhase("delete")
	s.applyDeleted("ReplicaSet", "web-abc", "12")
	s.applyDeleted("Pod", "web-abc-1", "10")
	s.applyDeleted("Deployment", "web", "13")
	s.applyDeleted("Pod", "web-abc-2", "11")
	fg := s.snapshot()
	if got := deletionKinds(fg); !slices.Equal(got, []string{"[delete] Pod", "[delete] Pod", "[delete] ReplicaSet", "[delete] Deployment"}) {
		t.Fatalf("deletions in resourceVersion order: %v", got)
	}
	renamed := newTimelineState()
	renamed.setPhase("delete")
	for i, k := range []string{"Pod", "Pod", "ReplicaSet", "Deployment"} {
		renamed.applyDeleted(k, "other-name", strconv.Itoa(100+i))
	}
	if d := DiffDeletions(fg, renamed.snapshot()); d != nil {
		t.Errorf("same kinds in the same order, other names: %v", d)
	}
	bg := newTimelineState()
	bg.setPhase("delete")
	for i, k := range []string{"Deployment", "ReplicaSet", "Pod", "Pod"} {
		bg.applyDeleted(k, "x", strconv.Itoa(i+1))
	}
	d := DiffDeletions(fg, bg.snapshot())
	if len(d) != 1 || !strings.Contains(d[0].Detail, ">1   [delete] Pod") || !strings.Contains(d[0].Detail, "[delete] Deployment") {
		t.Errorf("a different order was not reported readably: %+v", d)
	}
}

// TestSpecRepeatAcrossAPhaseIsNotAStep: a ReplicaSet update that leaves
// the rendered specs as they were, arriving just after SetPhase, is not a
// step (TestKCMAgreesWithItself failed under load on "[scale to 3]
// web:1=0" recorded in one run and not in the other).
func TestSpecRepeatAcrossAPhaseIsNotAStep(t *testing.T) {
	s := newTimelineState()
	rs := &api.ReplicaSet{}
	rs.Name = "web-1"
	zero := int32(0)
	rs.Spec.Replicas = &zero
	s.applyReplicaSet(rs, false)
	s.setPhase("scale to 3")
	s.applyReplicaSet(rs, false) // e.g. a status write
	if got := s.snapshot().Specs; len(got) != 1 || got[0].Phase != "" {
		t.Fatalf("specs %v, want one step in the first phase", got)
	}
}
