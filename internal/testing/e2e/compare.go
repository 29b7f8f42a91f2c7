package e2e

import (
	"sort"
	"strings"
)

// Verdict classifies one spec across the two runs. The target of the e2e
// comparison is that no spec is a Regression.
type Verdict string

const (
	// BothPassed: the spec passed under kube-controller-manager alone and
	// under kcm.
	BothPassed Verdict = "passed under both"
	// Regression: the spec passed under kube-controller-manager alone but
	// failed under kcm. Each one is a kcm bug or a listed difference.
	Regression Verdict = "REGRESSION: passes only under kube-controller-manager"
	// KCMOnly: the spec failed under kube-controller-manager alone and
	// passed under kcm.
	KCMOnly Verdict = "passes only under kcm"
	// BothFailed: the spec failed under both managers; Row.Reason says
	// why when it is known (kwok has no containers, say).
	BothFailed Verdict = "failed under both"
	// BothSkipped: the e2e framework skipped the spec at run time under
	// both (no cloud provider, a missing feature); Row's failures carry the
	// framework's reason.
	BothSkipped Verdict = "skipped under both"
	// Incomplete: one of the runs did not run the spec, or skipped it while
	// the other ran it.
	Incomplete Verdict = "not comparable"
)

// Row is one spec's line in the comparison table.
type Row struct {
	Name string
	Kube Spec // under kube-controller-manager alone; State NotRun if absent
	KCM  Spec // under kcm with kube-controller-manager for the rest
	Verdict
	// Reason explains a spec that failed (or was skipped) under both, from
	// the list of known reasons; empty when none is listed.
	Reason Reason
	// Stale is set when a known reason is listed for the spec but the spec
	// did not fail under both: the list is out of date.
	Stale bool
}

// Compare pairs the specs of the two runs by name, sorted by name (ginkgo
// runs them in a random order; sorted, the specs of one Describe block
// stay together and two tables compare line by line), and classifies each
// with known's reasons.
func Compare(kube, kcm Suite, known []Reason) []Row {
	byName := make(map[string]*Row)
	var order []string
	add := func(s Spec, isKube bool) {
		r, ok := byName[s.Name]
		if !ok {
			r = &Row{Name: s.Name, Kube: Spec{Name: s.Name, State: NotRun}, KCM: Spec{Name: s.Name, State: NotRun}}
			byName[s.Name] = r
			order = append(order, s.Name)
		}
		if isKube {
			r.Kube = s
		} else {
			r.KCM = s
		}
	}
	for _, s := range kube.Specs {
		add(s, true)
	}
	for _, s := range kcm.Specs {
		add(s, false)
	}
	sort.Strings(order)
	rows := make([]Row, 0, len(order))
	for _, name := range order {
		r := byName[name]
		r.Verdict = verdict(r.Kube.State, r.KCM.State)
		if reason, ok := lookupReason(known, name); ok {
			if r.Verdict == BothFailed || r.Verdict == BothSkipped {
				r.Reason = reason
			} else {
				r.Stale = true
			}
		}
		rows = append(rows, *r)
	}
	return rows
}

func verdict(kube, kcm State) Verdict {
	switch {
	case kube == Passed && kcm == Passed:
		return BothPassed
	case kube == Passed && kcm.Failed():
		return Regression
	case kube.Failed() && kcm == Passed:
		return KCMOnly
	case kube.Failed() && kcm.Failed():
		return BothFailed
	case kube == Skipped && kcm == Skipped:
		return BothSkipped
	}
	return Incomplete
}

// Summary counts the rows by verdict.
type Summary struct {
	Total       int
	ByVerdict   map[Verdict]int
	Unexplained int // failed under both with no known reason
}

// Summarize counts rows.
func Summarize(rows []Row) Summary {
	s := Summary{Total: len(rows), ByVerdict: make(map[Verdict]int)}
	for _, r := range rows {
		s.ByVerdict[r.Verdict]++
		if r.Verdict == BothFailed && r.Reason.Text == "" {
			s.Unexplained++
		}
	}
	return s
}

// Reason is a known, checked explanation of why a spec cannot pass on a
// test cluster whose nodes are kwok's, whichever manager runs.
type Reason struct {
	// Spec is a substring of the spec's full name that selects it.
	Spec string
	// Kind groups reasons in the summary ("kwok: no containers").
	Kind string
	// Text is the explanation, citing what the spec does that needs a
	// real kubelet.
	Text string
}

// lookupReason finds the first reason whose Spec is part of name.
func lookupReason(known []Reason, name string) (Reason, bool) {
	for _, r := range known {
		if r.Spec != "" && strings.Contains(name, r.Spec) {
			return r, true
		}
	}
	return Reason{}, false
}
