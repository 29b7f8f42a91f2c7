package testenv

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rs/zerolog"
)

// E2ESuites are the packages of k8s.io/kubernetes/test/e2e whose specs the
// e2e test binary carries: the suites that exercise kube-controller-manager
// (workload controllers; garbage collector, namespace and resource quota;
// service accounts; EndpointSlice and Endpoints; node: taint eviction,
// pod garbage collection and the node API). A package is all or
// nothing: which of its specs run is chosen at run time with
// --ginkgo.focus.
var E2ESuites = []string{"apimachinery", "apps", "auth", "network", "node"}

// e2eFrameworkImports are the packages the e2e binary needs besides the
// suites: the runner (test/e2e), the framework's flag handling and test
// files, the embedded manifests and fixtures, and the framework's
// extensions (debug dumps, metrics, node checks, output formatting) that
// upstream's own test/e2e/e2e_test.go links in.
var e2eFrameworkImports = []string{
	"k8s.io/kubernetes/test/conformance/testdata",
	"k8s.io/kubernetes/test/e2e",
	"k8s.io/kubernetes/test/e2e/feature",
	"k8s.io/kubernetes/test/e2e/framework",
	"k8s.io/kubernetes/test/e2e/framework/config",
	"k8s.io/kubernetes/test/e2e/framework/debug/init",
	"k8s.io/kubernetes/test/e2e/framework/metrics/init",
	"k8s.io/kubernetes/test/e2e/framework/node/init",
	"k8s.io/kubernetes/test/e2e/framework/testfiles",
	"k8s.io/kubernetes/test/e2e/testing-manifests",
	"k8s.io/kubernetes/test/fixtures",
	"k8s.io/kubernetes/test/utils/ktesting/format",
}

// e2eImports are every package the e2e binary's test file imports, sorted.
func e2eImports() []string {
	pkgs := append([]string(nil), e2eFrameworkImports...)
	for _, s := range E2ESuites {
		pkgs = append(pkgs, "k8s.io/kubernetes/test/e2e/"+s)
	}
	return pkgs
}

// e2eTestSource is the one file of the throw-away module: a test package
// whose TestMain does what upstream's e2e_test.go does for the flags and
// test files (framework and cluster flags, the embedded manifests, then
// AfterReadingAllFlags), and whose one test runs the ginkgo suite.
func e2eTestSource() string {
	var b strings.Builder
	b.WriteString(`package e2ebin

import (
	"flag"
	"os"
	"testing"

	conformancetestdata "k8s.io/kubernetes/test/conformance/testdata"
	"k8s.io/kubernetes/test/e2e"
	"k8s.io/kubernetes/test/e2e/framework"
	"k8s.io/kubernetes/test/e2e/framework/config"
	"k8s.io/kubernetes/test/e2e/framework/testfiles"
	e2etestingmanifests "k8s.io/kubernetes/test/e2e/testing-manifests"
	testfixtures "k8s.io/kubernetes/test/fixtures"

	_ "k8s.io/kubernetes/test/e2e/feature"
	_ "k8s.io/kubernetes/test/e2e/framework/debug/init"
	_ "k8s.io/kubernetes/test/e2e/framework/metrics/init"
	_ "k8s.io/kubernetes/test/e2e/framework/node/init"
	_ "k8s.io/kubernetes/test/utils/ktesting/format"

`)
	for _, s := range E2ESuites {
		fmt.Fprintf(&b, "\t_ %q\n", "k8s.io/kubernetes/test/e2e/"+s)
	}
	b.WriteString(`)

func TestMain(m *testing.M) {
	config.CopyFlags(config.Flags, flag.CommandLine)
	framework.RegisterCommonFlags(flag.CommandLine)
	framework.RegisterClusterFlags(flag.CommandLine)
	flag.Parse()
	testfiles.AddFileSource(e2etestingmanifests.GetE2ETestingManifestsFS())
	testfiles.AddFileSource(testfixtures.GetTestFixturesFS())
	testfiles.AddFileSource(conformancetestdata.GetConformanceTestdataFS())
	framework.AfterReadingAllFlags(&framework.TestContext)
	os.Exit(m.Run())
}

func TestE2E(t *testing.T) { e2e.RunE2ETests(t) }
`)
	return b.String()
}

// e2eRecipe builds the test binary of k8s.io/kubernetes's e2e framework
// with E2ESuites, at KubernetesVersion, in a throw-away module like
// kube-apiserver's. Its dependencies are compiled first by go build -v (so
// the progress line counts them; go test -c names none), then go test -c
// compiles the test file and links. Most of the packages are
// kube-apiserver's and client-go's, so a build after kube-apiserver's
// reuses them from the Go build cache.
func e2eRecipe() recipe {
	src := e2eTestSource()
	return recipe{
		name:      "e2e.test",
		version:   KubernetesVersion,
		pkg:       ".",
		test:      true,
		compile:   e2eImports(),
		stampNote: fmt.Sprintf("e2e_test.go sha256 %x", sha256.Sum256([]byte(src))),
		ldflags:   versionLDFlags(KubernetesVersion),
		estimate:  "about 10-20 min on 2 cores, less after kube-apiserver's build",
		setup: func(ctx context.Context, g *goTool) error {
			if err := writeKubernetesGoMod(ctx, g, KubernetesVersion); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(g.dir, "e2e_test.go"), []byte(src), 0o644); err != nil {
				return fmt.Errorf("write e2e_test.go: %w", err)
			}
			args := []string{"get"}
			for _, p := range e2eImports() {
				args = append(args, p+"@"+KubernetesVersion)
			}
			return g.run(ctx, args...)
		},
	}
}

// EnsureE2E returns the cached e2e test binary (see e2eRecipe), building
// it first if it is not cached yet. Only `make e2e` needs it.
func EnsureE2E(ctx context.Context, progress io.Writer, log zerolog.Logger) (string, error) {
	b, err := newBuilder(progress, log)
	if err != nil {
		return "", err
	}
	return b.ensure(ctx, e2eRecipe())
}
