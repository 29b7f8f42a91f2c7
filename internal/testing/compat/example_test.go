package compat_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/kcmlab/kcm/internal/testing/compat"
	"github.com/kcmlab/kcm/testenv"
)

// The matrix of a run where v1.36.3 failed its watchlist group and
// v1.35.4's build failed.
func ExampleMatrix() {
	gs := []compat.Group{
		{Name: "list", Tests: []compat.Test{{Pkg: compat.Module + "/kube/rest", Name: "TestListPagination"}}},
		{Name: "watchlist", Tests: []compat.Test{{Pkg: compat.Module + "/informer", Name: "TestWatchListAndItsFallback"}}},
	}
	ok := func(pkg, name string, d time.Duration) compat.TestResult {
		return compat.TestResult{Test: compat.Test{Pkg: compat.Module + "/" + pkg, Name: name}, Ran: true, Passed: true, Elapsed: d}
	}
	results := []compat.ReleaseResult{
		{Release: testenv.Release{Kubernetes: "v1.35.4", Etcd: "v3.6.6"}, BuildTime: 3 * time.Second, BuildErr: errors.New("exit status 1")},
		{Release: testenv.Release{Kubernetes: "v1.36.3", Etcd: "v3.6.8"}, BuildTime: 312400 * time.Millisecond, Tests: []compat.TestResult{
			ok("kube/rest", "TestListPagination", 4210*time.Millisecond),
			{Test: gs[1].Tests[0], Ran: true, Elapsed: 9 * time.Second, Failed: []string{"TestWatchListAndItsFallback/gate-off"}},
		}},
		{Release: testenv.Release{Kubernetes: "v1.37.2", Etcd: "v3.7.0"}, BuildTime: 23 * time.Millisecond, Tests: []compat.TestResult{
			ok("kube/rest", "TestListPagination", 3900*time.Millisecond),
			ok("informer", "TestWatchListAndItsFallback", 8*time.Second),
		}},
	}
	fmt.Print(compat.Matrix(results, gs))
	for _, f := range results[1].Failures(gs) {
		fmt.Println(f.Message())
	}
	// Output:
	// | group | v1.35.4 (etcd v3.6.6) | v1.36.3 (etcd v3.6.8) | v1.37.2 (etcd v3.7.0) |
	// |---|---|---|---|
	// | build | **FAIL** 3s | 5m12.4s | cached |
	// | list | **FAIL** 0s | pass 4.2s | pass 3.9s |
	// | watchlist | **FAIL** 0s | **FAIL** 9s | pass 8s |
	// | all tests | **FAIL** 0s | **FAIL** 13.2s | pass 11.9s |
	// compat: FAIL Kubernetes v1.36.3 (etcd v3.6.8): TestWatchListAndItsFallback/gate-off failed (group watchlist, package informer)
}
