package compat

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/testenv"
)

// Every test a group names exists as a top-level test function in its
// package's source, so a rename is caught here and not first by a compat
// run (which would also fail: a test that did not run fails its group).
func TestGroupsNameExistingTests(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	seen := map[string]bool{}
	for _, g := range Groups() {
		if len(g.Tests) == 0 || g.Name == "" || g.What == "" {
			t.Errorf("group %+v is incomplete", g)
		}
		if seen[g.Name] {
			t.Errorf("group %s appears twice", g.Name)
		}
		seen[g.Name] = true
		for _, tc := range g.Tests {
			dir := filepath.Join(root, filepath.FromSlash(tc.ShortPkg()))
			files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
			if err != nil || len(files) == 0 {
				t.Fatalf("group %s: package %s has no test files in %s (%v)", g.Name, tc.Pkg, dir, err)
			}
			decl := regexp.MustCompile(`(?m)^func ` + regexp.QuoteMeta(tc.Name) + `\(t \*testing\.T\)`)
			found := false
			for _, f := range files {
				src, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				found = found || decl.Match(src)
			}
			if !found {
				t.Errorf("group %s: no func %s(t *testing.T) in %s", g.Name, tc.Name, dir)
			}
		}
	}
	// The behaviours issue 27 asks `make compat` to check.
	for _, want := range []string{"list", "watch", "watchlist", "websocket", "relist-410", "manager"} {
		if !seen[want] {
			t.Errorf("no group %s", want)
		}
	}
}

func TestSelectGroups(t *testing.T) {
	for _, tc := range []struct {
		in      []string
		want    []string
		unknown string
	}{
		{in: nil, want: []string{"release", "list", "watch", "watchlist", "websocket", "relist-410", "manager"}},
		{in: []string{"manager", "list"}, want: []string{"list", "manager"}}, // matrix order
		{in: []string{"list", "nope"}, unknown: "nope"},
	} {
		gs, unknown := SelectGroups(tc.in)
		var names []string
		for _, g := range gs {
			names = append(names, g.Name)
		}
		if unknown != tc.unknown || (tc.unknown == "" && !slices.Equal(names, tc.want)) {
			t.Errorf("SelectGroups(%q) = %v, %q; want %v, %q", tc.in, names, unknown, tc.want, tc.unknown)
		}
	}
}

// One go test per package, running exactly that package's tests of the
// chosen groups, uncached, as JSON, against the release in
// KCM_KUBE_VERSION (an inherited value replaced).
func TestGoTestCommandLine(t *testing.T) {
	gs, _ := SelectGroups([]string{"list", "watchlist"})
	pkgs, tests := packagesOf(gs)
	if want := []string{Module + "/kube/rest", Module + "/informer"}; !slices.Equal(pkgs, want) {
		t.Fatalf("packages %v, want %v", pkgs, want)
	}
	got := strings.Join(goTestArgs(Config{GoTestFlags: []string{"-race"}}, pkgs[1], tests[pkgs[1]]), " ")
	want := "test -json -count=1 -timeout 20m0s -run ^(TestFirstListFromTheCacheAgainstKubeAPIServer|TestWatchListAndItsFallback)$ -race " + Module + "/informer"
	if got != want {
		t.Errorf("go %s\nwant go %s", got, want)
	}
	rel := testenv.Releases()[0]
	env := testEnv([]string{"HOME=/h", testenv.EnvKubeVersion + "=v9.9.9", "PATH=/bin"}, rel)
	if want := []string{"HOME=/h", "PATH=/bin", testenv.EnvKubeVersion + "=" + rel.Kubernetes}; !slices.Equal(env, want) {
		t.Errorf("env %v, want %v", env, want)
	}
}
