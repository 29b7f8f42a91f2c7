package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// ErrNoReport is returned when a ginkgo JSON report holds no suite.
var ErrNoReport = errors.New("e2e: the report holds no suite")

// State is what happened to one spec in one run, as ginkgo spells it in
// its JSON report ("passed", "failed", "skipped", "timedout", ...).
type State string

// The states a spec can end in (ginkgo's types.SpecState). Every state
// but passed and skipped is a failure of the spec.
const (
	Passed      State = "passed"
	Skipped     State = "skipped"
	Failed      State = "failed"
	Panicked    State = "panicked"
	TimedOut    State = "timedout"
	Interrupted State = "interrupted"
	Aborted     State = "aborted"
	Pending     State = "pending"
	// NotRun marks a spec that one run has and the other does not (its
	// report lacks it, e.g. because the run was interrupted).
	NotRun State = "not run"
)

// Failed reports whether the state is a failure.
func (s State) Failed() bool {
	switch s {
	case Passed, Skipped, Pending, NotRun, "":
		return false
	}
	return true
}

// Spec is one spec's outcome in one run.
type Spec struct {
	// Name is the spec's full text: its containers' texts and its own,
	// joined by spaces, as ginkgo's --focus matches it ("[sig-apps]
	// Deployment deployment should support rollover [Conformance]").
	Name     string
	State    State
	Duration time.Duration
	// Failure is ginkgo's failure message (for a spec skipped at run time:
	// the skip's reason), and Where the code location it points at.
	Failure string
	Where   string
}

// Suite is one run's report: its specs in run order and the suite's own
// timing.
type Suite struct {
	Description string
	Succeeded   bool
	Start, End  time.Time
	// Specs are the specs that ran or were skipped at run time; the specs
	// --focus or --skip filtered out are not listed.
	Specs []Spec
	// SuiteFailures are failures outside any spec (BeforeSuite,
	// AfterSuite): when one of these fails, the specs did not run.
	SuiteFailures []Spec
}

// The parts of ginkgo's JSON report (github.com/onsi/ginkgo/v2/types
// Report and SpecReport, as they marshal) that the table needs.
type ginkgoReport struct {
	SuiteDescription string
	SuiteSucceeded   bool
	StartTime        time.Time
	EndTime          time.Time
	SpecReports      []ginkgoSpec
}

type ginkgoSpec struct {
	ContainerHierarchyTexts []string
	LeafNodeType            string
	LeafNodeText            string
	State                   State
	RunTime                 time.Duration
	Failure                 *struct {
		Message  string
		Location struct {
			FileName   string
			LineNumber int
		}
		ForwardedPanic string
	}
}

// ReadReport decodes the JSON report ginkgo writes with
// --ginkgo.json-report (an array with one report per suite; the e2e
// binary has one suite).
func ReadReport(r io.Reader) (Suite, error) {
	var reports []ginkgoReport
	if err := json.NewDecoder(r).Decode(&reports); err != nil {
		return Suite{}, fmt.Errorf("e2e: decode ginkgo report: %w", err)
	}
	if len(reports) == 0 {
		return Suite{}, ErrNoReport
	}
	rep := reports[0]
	s := Suite{Description: rep.SuiteDescription, Succeeded: rep.SuiteSucceeded, Start: rep.StartTime, End: rep.EndTime}
	for _, g := range rep.SpecReports {
		spec := Spec{Name: specName(g), State: g.State, Duration: g.RunTime}
		if g.Failure != nil {
			spec.Failure = g.Failure.Message
			if g.Failure.ForwardedPanic != "" {
				spec.Failure = strings.TrimSpace(spec.Failure + "\npanic: " + g.Failure.ForwardedPanic)
			}
			if g.Failure.Location.FileName != "" {
				spec.Where = fmt.Sprintf("%s:%d", g.Failure.Location.FileName, g.Failure.Location.LineNumber)
			}
		}
		switch {
		case g.LeafNodeType != "It":
			// A suite-level node (SynchronizedBeforeSuite, ReportAfterSuite):
			// listed only when it failed.
			if spec.State.Failed() {
				s.SuiteFailures = append(s.SuiteFailures, spec)
			}
		case g.State == Skipped && spec.Failure == "":
			// Filtered out by --focus/--skip: not part of this run.
		default:
			s.Specs = append(s.Specs, spec)
		}
	}
	return s, nil
}

// specName joins the texts of a spec's containers and its own.
func specName(g ginkgoSpec) string {
	parts := make([]string, 0, len(g.ContainerHierarchyTexts)+1)
	for _, t := range g.ContainerHierarchyTexts {
		if t != "" {
			parts = append(parts, t)
		}
	}
	if g.LeafNodeText != "" {
		parts = append(parts, g.LeafNodeText)
	}
	if len(parts) == 0 {
		return g.LeafNodeType
	}
	return strings.Join(parts, " ")
}
