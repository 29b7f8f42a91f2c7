package testenv

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kcmlab/kcm/internal/testing/syncbuf"
)

// helloRecipe builds a tiny local program, offline, through the same
// machinery as etcd and kube-apiserver. setups counts how often it ran.
func helloRecipe(setups *atomic.Int32) recipe {
	return recipe{
		name: "hello", version: "v0.0.1", pkg: "kcm.local/hello", estimate: "a second",
		ldflags: "-X main.greeting=built-by-testenv",
		setup: func(ctx context.Context, g *goTool) error {
			setups.Add(1)
			files := map[string]string{
				"go.mod":  "module kcm.local/hello\n\ngo 1.22\n",
				"main.go": "package main\n\nvar greeting = \"default\"\n\nfunc main() { println(greeting) }\n",
			}
			for name, text := range files {
				if err := os.WriteFile(filepath.Join(g.dir, name), []byte(text), 0o644); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

func TestBuilderBuildsOnceAndCaches(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the go command is required: %v", err)
	}
	cache := t.TempDir()
	var setups atomic.Int32
	r := helloRecipe(&setups)
	var progress syncbuf.Buffer

	// Two builders at once, as two test binaries would be: the lock makes
	// one build and the other find the result.
	paths := make([]string, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := &builder{cacheDir: cache, progress: &progress}
			paths[i], errs[i] = b.ensure(t.Context(), r)
		}()
	}
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil {
			t.Fatalf("ensure %d: %v", i, errs[i])
		}
	}
	want := filepath.Join(cache, "hello-v0.0.1", "hello")
	if paths[0] != want || paths[1] != want {
		t.Errorf("paths %q, want %q", paths, want)
	}
	if n := setups.Load(); n != 1 {
		t.Errorf("built %d times, want once", n)
	}
	out, err := exec.Command(want).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "built-by-testenv" {
		t.Errorf("built program says %q, %v: the ldflags were not applied", out, err)
	}
	for _, line := range []string{"testenv: building hello v0.0.1", "testenv: built hello v0.0.1"} {
		if !strings.Contains(progress.String(), line) {
			t.Errorf("progress lacks %q:\n%s", line, progress.String())
		}
	}
	if entries, _ := filepath.Glob(filepath.Join(cache, "hello-v0.0.1", "build-*")); len(entries) != 0 {
		t.Errorf("throw-away modules left behind: %q", entries)
	}

	// Cached: no setup, no output.
	progress = syncbuf.Buffer{}
	b := &builder{cacheDir: cache, progress: &progress}
	if _, err := b.ensure(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	if setups.Load() != 1 || progress.String() != "" {
		t.Errorf("a cached binary was rebuilt (setups=%d, progress %q)", setups.Load(), progress.String())
	}

	// A changed recipe invalidates the cached binary through its stamp.
	r.ldflags = "-X main.greeting=rebuilt"
	if _, err := b.ensure(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	if setups.Load() != 2 {
		t.Errorf("changing the recipe did not rebuild")
	}
}

func TestBuilderFailureShowsOutputTail(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the go command is required: %v", err)
	}
	var setups atomic.Int32
	r := helloRecipe(&setups)
	r.pkg = "kcm.local/hello/missing" // no such package: go build fails offline
	b := &builder{cacheDir: t.TempDir(), progress: &syncbuf.Buffer{}}
	_, err := b.ensure(t.Context(), r)
	if err == nil {
		t.Fatal("build of a missing package succeeded")
	}
	for _, want := range []string{"build hello v0.0.1", "last lines of", "kcm.local/hello/missing"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	t.Logf("error: %v", err)
	if _, statErr := os.Stat(filepath.Join(b.cacheDir, "hello-v0.0.1", "hello")); !os.IsNotExist(statErr) {
		t.Errorf("a failed build installed a binary: %v", statErr)
	}
}

// helloTestRecipe builds the test binary of a tiny local package, with a
// compile step for the package it imports, as the e2e recipe does. unique
// goes into the imported package's source, so that the Go build cache
// cannot hold it yet and go build -v names it.
func helloTestRecipe(unique string) recipe {
	return recipe{
		name: "hello.test", version: "v0.0.1", pkg: ".", estimate: "a second", test: true,
		compile:   []string{"kcm.local/hellotest/greet"},
		stampNote: "source 1",
		ldflags:   "-X kcm.local/hellotest/greet.greeting=built-by-testenv",
		setup: func(ctx context.Context, g *goTool) error {
			files := map[string]string{
				"go.mod": "module kcm.local/hellotest\n\ngo 1.22\n",
				"greet/greet.go": "package greet\n\nvar greeting = \"default\"\n\nconst unique = " + strconv.Quote(unique) + "\n\n" +
					"func Greeting() string { return greeting }\n",
				"hello_test.go": "package hellotest\n\nimport (\n\t\"testing\"\n\n\t\"kcm.local/hellotest/greet\"\n)\n\n" +
					"func TestHello(t *testing.T) { t.Log(greet.Greeting()) }\n",
			}
			for name, text := range files {
				path := filepath.Join(g.dir, name)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

func TestBuilderBuildsTestBinary(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the go command is required: %v", err)
	}
	var progress syncbuf.Buffer
	cache := t.TempDir()
	b := &builder{cacheDir: cache, progress: &progress}
	r := helloTestRecipe(cache)
	path, err := b.ensure(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(path, "-test.v", "-test.run", "TestHello").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "built-by-testenv") || !strings.Contains(string(out), "--- PASS: TestHello") {
		t.Errorf("the test binary says %q, %v: want TestHello to pass and log the linker-set greeting", out, err)
	}
	// The compile step ran go build -v, which named the imported package.
	if !strings.Contains(progress.String(), "1 packages compiled") {
		t.Errorf("progress did not count the compile step's package:\n%s", progress.String())
	}
	// The generated source is part of the stamp.
	r.stampNote = "source 2"
	if isCurrent(path, r) {
		t.Errorf("a binary built from other generated source counts as current")
	}
}

func TestE2ERecipe(t *testing.T) {
	r := e2eRecipe()
	args := strings.Join(r.buildArgs("OUT"), " ")
	if !strings.HasPrefix(args, "test -c -trimpath ") || !strings.HasSuffix(args, "-o OUT .") {
		t.Errorf("build args %q: want go test -c -trimpath ... -o OUT .", args)
	}
	src := e2eTestSource()
	for _, pkg := range e2eImports() {
		if !strings.Contains(src, "\""+pkg+"\"") {
			t.Errorf("the test file does not import %s, which the compile step builds", pkg)
		}
		if !slices.Contains(r.compile, pkg) {
			t.Errorf("the compile step lacks %s", pkg)
		}
	}
	for _, s := range []string{"apps", "apimachinery", "auth", "network", "node"} {
		if !strings.Contains(src, "\"k8s.io/kubernetes/test/e2e/"+s+"\"") {
			t.Errorf("the e2e binary lacks the %s suite", s)
		}
	}
}
