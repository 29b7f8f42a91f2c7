package difftest

import (
	"fmt"
	"slices"
	"strings"
)

// The rules a timeline is checked against. Each names the Kubernetes rule
// it stands for (the Deployment strategies, kubernetes.io/docs "Deployments").

// Invariant is a property every step of a timeline's pod stream in one
// phase must have.
type Invariant struct {
	// Phase is the phase the invariant applies to ("rollout").
	Phase string
	// Name says what it checks, for reports.
	Name string
	// Holds reports whether one step satisfies it.
	Holds func(PodStep) bool
}

// RollingInvariants are the rolling-update guarantees for a Deployment of
// replicas pods with the resolved bounds maxSurge and maxUnavailable:
// at least replicas − maxUnavailable pods are Ready at every moment
// ("maxUnavailable ... the maximum number of Pods that can be unavailable
// during the update process"). The maxSurge bound is checked on the spec
// stream (see SpecBound): the controller enforces it on the ReplicaSets'
// spec.replicas, and a pod of a ReplicaSet scaled down may still exist for
// a moment after the new one's pod was created.
func RollingInvariants(phase string, replicas, maxUnavailable int) []Invariant {
	return []Invariant{{
		Phase: phase,
		Name:  fmt.Sprintf("at least %d-%d Ready pods", replicas, maxUnavailable),
		Holds: func(s PodStep) bool { return s.Total().Ready >= replicas-maxUnavailable },
	}}
}

// RecreateInvariants are the Recreate guarantee: "All existing Pods are
// killed before new ones are created" — no step has pods of two
// templates.
func RecreateInvariants(phase string) []Invariant {
	return []Invariant{{
		Phase: phase,
		Name:  "pods of one template at a time",
		Holds: func(s PodStep) bool {
			n := 0
			for _, c := range s.Counts {
				if c.Total > 0 {
					n++
				}
			}
			return n <= 1
		},
	}}
}

// CheckInvariants returns a Difference for the first step of each
// invariant that fails; side names the recording ("A" or "B").
func CheckInvariants(side string, tl Timeline, invs []Invariant) []Difference {
	var out []Difference
	for _, inv := range invs {
		for i, st := range tl.Pods {
			if st.Phase == inv.Phase && !inv.Holds(st) {
				out = append(out, Difference{
					Key:    "timeline: " + side + " breaks " + inv.Name,
					Detail: fmt.Sprintf("pod step %d of %d (%s): %s\n", i+1, len(tl.Pods), st.Phase, st),
				})
				break
			}
		}
	}
	return out
}

// SpecBound returns a Difference when, in the given phase, the sum of
// spec.replicas over the ReplicaSets exceeds limit (replicas + maxSurge)
// at some step.
func SpecBound(side string, tl Timeline, phase string, limit int) []Difference {
	for i, st := range tl.Specs {
		if st.Phase != phase {
			continue
		}
		sum := 0
		for _, f := range strings.Fields(st.State) {
			var n int
			if _, v, ok := strings.Cut(f, "="); ok {
				fmt.Sscan(v, &n)
			}
			sum += n
		}
		if sum > limit {
			return []Difference{{
				Key:    fmt.Sprintf("timeline: %s exceeds %d replicas in spec", side, limit),
				Detail: fmt.Sprintf("spec step %d of %d (%s): %s\n", i+1, len(tl.Specs), st.Phase, st.State),
			}}
		}
	}
	return nil
}

// DiffSpecs compares the two spec streams step by step and reports the
// whole of both when they differ, aligned, with the first difference
// marked.
func DiffSpecs(a, b Timeline) []Difference {
	return diffSteps("timeline: ReplicaSet spec.replicas steps", a.Specs, b.Specs)
}

// DiffStates compares the streams of states the scenarios recorded
// themselves (Observer.Record) the same way.
func DiffStates(a, b Timeline) []Difference {
	return diffSteps("timeline: recorded states", a.States, b.States)
}

func diffSteps(key string, a, b []Step) []Difference {
	n := max(len(a), len(b))
	first := -1
	for i := 0; i < n; i++ {
		if i >= len(a) || i >= len(b) || a[i] != b[i] {
			first = i
			break
		}
	}
	if first < 0 {
		return nil
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%-4s %-40s %s\n", "step", "A", "B")
	for i := 0; i < n; i++ {
		mark := " "
		if i == first {
			mark = ">"
		}
		fmt.Fprintf(&sb, "%s%-3d %-40s %s\n", mark, i+1, stepText(a, i), stepText(b, i))
	}
	return []Difference{{Key: key, Detail: sb.String()}}
}

func stepText(steps []Step, i int) string {
	if i >= len(steps) {
		return "-"
	}
	return "[" + steps[i].Phase + "] " + steps[i].State
}

// DiffDeletions compares the order in which the two sides deleted
// objects, by phase and kind (names differ between managers: generated
// suffixes and pod-template hashes), and reports both sequences when they
// differ.
func DiffDeletions(a, b Timeline) []Difference {
	ka, kb := deletionKinds(a), deletionKinds(b)
	if slices.Equal(ka, kb) {
		return nil
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%-4s %-40s %s\n", "#", "A", "B")
	for i := range max(len(ka), len(kb)) {
		at, bt := "-", "-"
		if i < len(ka) {
			at = ka[i]
		}
		if i < len(kb) {
			bt = kb[i]
		}
		mark := " "
		if at != bt {
			mark = ">"
		}
		fmt.Fprintf(&sb, "%s%-3d %-40s %s\n", mark, i+1, at, bt)
	}
	return []Difference{{Key: "timeline: order of deletions", Detail: sb.String()}}
}

// deletionKinds renders each deletion as "[phase] Kind", in order.
func deletionKinds(tl Timeline) []string {
	out := make([]string, len(tl.Deletions))
	for i, d := range tl.Deletions {
		out[i] = "[" + d.Phase + "] " + d.Kind
	}
	return out
}
