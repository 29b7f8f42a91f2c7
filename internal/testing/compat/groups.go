package compat

import "strings"

// Module is kcm's module path; packages are named by import path.
const Module = "github.com/kcmlab/kcm"

// Test is one top-level test function of a package.
type Test struct {
	Pkg  string // import path: "github.com/kcmlab/kcm/informer"
	Name string // "TestWatchListAndItsFallback"
}

// ShortPkg is the package path within kcm ("informer").
func (t Test) ShortPkg() string { return ShortPkg(t.Pkg) }

// ShortPkg strips kcm's module path from an import path.
func ShortPkg(pkg string) string { return strings.TrimPrefix(strings.TrimPrefix(pkg, Module), "/") }

// Group is a named set of tests that together check one behaviour of kcm
// against a release.
type Group struct {
	Name  string // the matrix row: "watchlist"
	What  string // one line for the README
	Tests []Test
}

func pkg(p string) string { return Module + "/" + p }

// groups are the tests `make compat` runs against every release. They are
// the real-apiserver tests of `make test`, picked per behaviour; see each
// test's comment for the Kubernetes rule it checks.
var groups = []Group{
	{Name: "release", What: "the cluster runs the release: kube-apiserver /version and etcd's version", Tests: []Test{
		{pkg("testenv"), "TestSharedClusterServesVersion"},
	}},
	{Name: "list", What: "LIST: pagination with continue tokens, metadata-only lists, the informer's first list from the watch cache and from etcd", Tests: []Test{
		{pkg("kube/rest"), "TestListPagination"},
		{pkg("kube/rest"), "TestMetadataOnlyList"},
		{pkg("informer"), "TestFirstListFromTheCacheAgainstKubeAPIServer"},
	}},
	{Name: "watch", What: "WATCH: event order, server timeout, informers converging under churn and across a kube-apiserver restart", Tests: []Test{
		{pkg("kube/rest"), "TestWatchChunked"},
		{pkg("kube/rest"), "TestWatchServerTimeoutEndsWithEOF"},
		{pkg("informer"), "TestConvergesUnderChurn"},
		{pkg("informer"), "TestConvergesAcrossAPIServerRestart"},
	}},
	{Name: "watchlist", What: "WatchList (sendInitialEvents) with the feature gate on, and the fallback to LIST+WATCH with it off", Tests: []Test{
		{pkg("informer"), "TestWatchListAndItsFallback"},
	}},
	{Name: "websocket", What: "watch over WebSocket (and WatchList over it)", Tests: []Test{
		{pkg("kube/rest"), "TestWatchWebSocket"},
	}},
	{Name: "relist-410", What: "410 Gone after etcd compaction: the watch error, and the informer relisting", Tests: []Test{
		{pkg("kube/rest"), "TestWatchExpiredAfterCompaction"},
		{pkg("informer"), "TestRelistsAfterCompaction"},
	}},
	{Name: "manager", What: "kcm's manager: ServiceAccount, Deployment rollout and scale, garbage collection, namespace deletion", Tests: []Test{
		{pkg("manager"), "TestManagerSmoke"},
	}},
}

// Groups returns the groups, in matrix order.
func Groups() []Group {
	out := make([]Group, len(groups))
	for i, g := range groups {
		out[i] = g
		out[i].Tests = append([]Test(nil), g.Tests...)
	}
	return out
}

// SelectGroups returns the groups named in names (all when names is
// empty), in matrix order, or the first unknown name.
func SelectGroups(names []string) ([]Group, string) {
	all := Groups()
	if len(names) == 0 {
		return all, ""
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []Group
	for _, g := range all {
		if want[g.Name] {
			out = append(out, g)
			delete(want, g.Name)
		}
	}
	for _, n := range names {
		if want[n] {
			return nil, n
		}
	}
	return out, ""
}

// packagesOf returns the packages the groups' tests are in, in first-seen
// order, with each package's tests.
func packagesOf(gs []Group) (pkgs []string, tests map[string][]string) {
	tests = map[string][]string{}
	for _, g := range gs {
		for _, t := range g.Tests {
			if _, ok := tests[t.Pkg]; !ok {
				pkgs = append(pkgs, t.Pkg)
			}
			tests[t.Pkg] = append(tests[t.Pkg], t.Name)
		}
	}
	return pkgs, tests
}

// runPattern is the -run pattern that selects exactly names (top-level
// tests, with all their subtests).
func runPattern(names []string) string { return "^(" + strings.Join(names, "|") + ")$" }
