package compat

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/testenv"
)

var (
	rel135     = testenv.Release{Kubernetes: "v1.35.4", Etcd: "v3.6.6"}
	testGroups = []Group{
		{Name: "list", Tests: []Test{{Module + "/kube/rest", "TestList"}, {Module + "/informer", "TestFirstList"}}},
		{Name: "watchlist", Tests: []Test{{Module + "/informer", "TestWatchList"}}},
		{Name: "manager", Tests: []Test{{Module + "/manager", "TestSmoke"}}},
	}
)

func passed(pkg, name string, secs float64) TestResult {
	return TestResult{Test: Test{Module + "/" + pkg, name}, Ran: true, Passed: true, Elapsed: time.Duration(secs * float64(time.Second))}
}

// Each failure is reported once, as a line that names the release and the
// test (or the subtest that failed), its group and package.
func TestFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    ReleaseResult
		want []string
	}{
		{"all pass", ReleaseResult{Release: rel135, Tests: []TestResult{
			passed("kube/rest", "TestList", 1), passed("informer", "TestFirstList", 1),
			passed("informer", "TestWatchList", 1), passed("manager", "TestSmoke", 1)}}, nil},
		{"subtest, missing, skipped", ReleaseResult{Release: rel135, Tests: []TestResult{
			passed("kube/rest", "TestList", 1),
			{Test: Test{Module + "/informer", "TestFirstList"}, Ran: true, Skipped: true},
			{Test: Test{Module + "/informer", "TestWatchList"}, Ran: true, Failed: []string{"TestWatchList/gate-off"}},
		}}, []string{
			"compat: FAIL Kubernetes v1.35.4 (etcd v3.6.6): TestFirstList was skipped (a skip fails compat) (group list, package informer)",
			"compat: FAIL Kubernetes v1.35.4 (etcd v3.6.6): TestWatchList/gate-off failed (group watchlist, package informer)",
			"compat: FAIL Kubernetes v1.35.4 (etcd v3.6.6): TestSmoke did not run (renamed, removed, or its test binary died) (group manager, package manager)",
		}},
		{"package failure", ReleaseResult{Release: rel135, Tests: []TestResult{
			passed("kube/rest", "TestList", 1), passed("informer", "TestFirstList", 1),
			passed("informer", "TestWatchList", 1), passed("manager", "TestSmoke", 1)},
			Packages: []PackageFailure{{Pkg: Module + "/informer", Output: []string{"goroutines leaked"}}}}, []string{
			"compat: FAIL Kubernetes v1.35.4 (etcd v3.6.6): package informer failed outside its tests (build, TestMain or leaked goroutines) (group list)",
		}},
		{"build", ReleaseResult{Release: rel135, BuildErr: errors.New("go build: exit status 1")}, []string{
			"compat: FAIL Kubernetes v1.35.4 (etcd v3.6.6): building kube-apiserver and etcd: go build: exit status 1",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range tc.r.Failures(testGroups) {
				got = append(got, f.Message())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("failures:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			// A group passes exactly when none of its tests is in the failures.
			for _, g := range testGroups {
				ok, _ := tc.r.Group(g)
				mentioned := false
				for _, m := range got {
					mentioned = mentioned || strings.Contains(m, "(group "+g.Name) || tc.r.BuildErr != nil
				}
				if tc.name == "package failure" && g.Name == "watchlist" {
					mentioned = true // same package as list's failure, reported once
				}
				if ok == mentioned {
					t.Errorf("group %s passed=%v, mentioned in the failures=%v", g.Name, ok, mentioned)
				}
			}
		})
	}
}
