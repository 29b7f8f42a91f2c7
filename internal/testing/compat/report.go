package compat

import (
	"fmt"
	"strings"
	"time"

	"github.com/kcmlab/kcm/testenv"
)

// Failure is one thing that failed against one release.
type Failure struct {
	Release testenv.Release
	Group   string // "" for a build failure
	Test    string // the failing test or subtest; "" for a build or package failure
	Pkg     string // import path; "" for a build failure
	Reason  string
	Output  []string
}

// Message is the one line that names the release and the test.
func (f Failure) Message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "compat: FAIL Kubernetes %s (etcd %s): ", f.Release.Kubernetes, f.Release.Etcd)
	switch {
	case f.Pkg == "":
		b.WriteString(f.Reason)
	case f.Test == "":
		fmt.Fprintf(&b, "package %s %s (group %s)", ShortPkg(f.Pkg), f.Reason, f.Group)
	default:
		fmt.Fprintf(&b, "%s %s (group %s, package %s)", f.Test, f.Reason, f.Group, ShortPkg(f.Pkg))
	}
	return b.String()
}

// result finds the result of t, if it ran.
func (r ReleaseResult) result(t Test) (TestResult, bool) {
	for _, tr := range r.Tests {
		if tr.Test == t {
			return tr, true
		}
	}
	return TestResult{}, false
}

func (r ReleaseResult) packageFailed(pkg string) *PackageFailure {
	for i := range r.Packages {
		if r.Packages[i].Pkg == pkg {
			return &r.Packages[i]
		}
	}
	return nil
}

// Group reports whether every test of g ran and passed against the
// release, and how long they took together.
func (r ReleaseResult) Group(g Group) (passed bool, took time.Duration) {
	passed = r.BuildErr == nil
	for _, t := range g.Tests {
		tr, ok := r.result(t)
		passed = passed && ok && tr.Ran && tr.Passed && r.packageFailed(t.Pkg) == nil
		took += tr.Elapsed
	}
	return passed, took
}

// Failures lists everything that failed against the release, in group
// order: each failing test (each failing subtest, when any failed), each
// test that did not run or was skipped, each package that failed outside
// its tests (once, under its first group), or the build.
func (r ReleaseResult) Failures(gs []Group) []Failure {
	if r.BuildErr != nil {
		return []Failure{{Release: r.Release, Reason: "building kube-apiserver and etcd: " + r.BuildErr.Error()}}
	}
	var out []Failure
	reported := map[string]bool{}
	for _, g := range gs {
		for _, t := range g.Tests {
			f := Failure{Release: r.Release, Group: g.Name, Test: t.Name, Pkg: t.Pkg}
			tr, ok := r.result(t)
			switch {
			case !ok || !tr.Ran:
				f.Reason, f.Output = "did not run (renamed, removed, or its test binary died)", tr.Output
				out = append(out, f)
			case tr.Skipped:
				f.Reason, f.Output = "was skipped (a skip fails compat)", tr.Output
				out = append(out, f)
			case !tr.Passed && len(tr.Failed) > 0:
				for _, sub := range tr.Failed {
					f.Test, f.Reason, f.Output = sub, "failed", tr.Output
					out = append(out, f)
				}
			case !tr.Passed:
				f.Reason, f.Output = "failed", tr.Output
				out = append(out, f)
			}
			if pf := r.packageFailed(t.Pkg); pf != nil && !reported[t.Pkg] {
				reported[t.Pkg] = true
				out = append(out, Failure{Release: r.Release, Group: g.Name, Pkg: t.Pkg,
					Reason: "failed outside its tests (build, TestMain or leaked goroutines)", Output: pf.Output})
			}
		}
	}
	return out
}
