package compat

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/testenv"
)

// Config says what Run runs.
type Config struct {
	// Releases to test, in order; each one's kube-apiserver and etcd are
	// built (or found cached) first.
	Releases []testenv.Release
	// Groups of tests to run against each release.
	Groups []Group
	// GoTestFlags are added to every `go test` command line (e.g. -race).
	GoTestFlags []string
	// Timeout is go test's -timeout for one package; zero: 20 minutes.
	Timeout time.Duration
	// Progress receives build progress and one line per finished test. Nil:
	// os.Stderr.
	Progress io.Writer
	Logger   zerolog.Logger
}

// ReleaseResult is what happened against one release.
type ReleaseResult struct {
	Release   testenv.Release
	BuildTime time.Duration // EnsureRelease: a first build, or a cache lookup
	BuildErr  error         // the build failed; no test ran
	Tests     []TestResult
	Packages  []PackageFailure
	Wall      time.Duration // the whole release: build and tests
}

// Run builds and tests each release in turn. It returns early, with the
// results so far and ctx's error, only when ctx ends; failures of builds
// and tests are in the results.
func Run(ctx context.Context, cfg Config) ([]ReleaseResult, error) {
	progress := cfg.Progress
	if progress == nil {
		progress = os.Stderr
	}
	pkgs, tests := packagesOf(cfg.Groups)
	var results []ReleaseResult
	for _, rel := range cfg.Releases {
		began := time.Now()
		rr := ReleaseResult{Release: rel}
		fmt.Fprintf(progress, "compat: %s: kube-apiserver and etcd (a first build takes minutes, then they are cached)\n", rel)
		_, err := testenv.EnsureRelease(ctx, rel, progress, cfg.Logger)
		rr.BuildTime = time.Since(began)
		if err != nil {
			if ctx.Err() != nil {
				return results, ctx.Err()
			}
			rr.BuildErr, rr.Wall = err, time.Since(began)
			fmt.Fprintf(progress, "compat: %s: build failed: %v\n", rel, err)
			results = append(results, rr)
			continue
		}
		fmt.Fprintf(progress, "compat: %s: ready in %s\n", rel, rr.BuildTime.Round(100*time.Millisecond))
		for _, p := range pkgs {
			fmt.Fprintf(progress, "compat: %s: go test %s -run '%s'\n", rel.Kubernetes, ShortPkg(p), runPattern(tests[p]))
			trs, pf, err := runPackage(ctx, cfg, rel, p, tests[p], func(tr TestResult) {
				fmt.Fprintf(progress, "compat: %s: %s %s %s (%s)\n", rel.Kubernetes, outcome(tr), ShortPkg(tr.Pkg), tr.Name,
					tr.Elapsed.Round(100*time.Millisecond))
			})
			if err != nil {
				return results, err
			}
			rr.Tests = append(rr.Tests, trs...)
			if pf != nil {
				rr.Packages = append(rr.Packages, *pf)
			}
		}
		rr.Wall = time.Since(began)
		results = append(results, rr)
	}
	return results, nil
}

func outcome(tr TestResult) string {
	switch {
	case !tr.Ran:
		return "DID NOT RUN"
	case tr.Skipped:
		return "SKIP"
	case tr.Passed:
		return "pass"
	}
	return "FAIL"
}

// goTestArgs is the go test command line for names in pkg.
func goTestArgs(cfg Config, pkg string, names []string) []string {
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 20 * time.Minute
	}
	args := []string{"test", "-json", "-count=1", "-timeout", timeout.String(), "-run", runPattern(names)}
	args = append(args, cfg.GoTestFlags...)
	return append(args, pkg)
}

// testEnv is the environment of a go test run against rel: the caller's,
// with EnvKubeVersion naming the release (an inherited one is replaced).
func testEnv(environ []string, rel testenv.Release) []string {
	out := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		if !strings.HasPrefix(kv, testenv.EnvKubeVersion+"=") {
			out = append(out, kv)
		}
	}
	return append(out, testenv.EnvKubeVersion+"="+rel.Kubernetes)
}

// runPackage runs names of pkg against rel and collects their results.
// Its error is ctx's, or a failure to run the go command at all.
func runPackage(ctx context.Context, cfg Config, rel testenv.Release, pkg string, names []string,
	done func(TestResult)) ([]TestResult, *PackageFailure, error) {
	cmd := exec.CommandContext(ctx, "go", goTestArgs(cfg, pkg, names)...)
	cmd.Env = testEnv(os.Environ(), rel)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	// go test starts the test binary, which starts etcd and kube-apiserver:
	// cancelling kills the whole process group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("compat: start go test: %w", err)
	}
	c := newCollector(pkg, names, done)
	readErr := c.read(stdout)
	waitErr := cmd.Wait()
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	for _, line := range strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n") {
		if line != "" {
			c.pkgOut.add(line)
		}
	}
	if readErr != nil {
		c.pkgOut.add(readErr.Error())
		c.failed = true
	}
	var exit *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exit) {
		c.pkgOut.add(waitErr.Error())
		c.failed = true
	} else if exit != nil {
		c.failed = true
	}
	trs, pf := c.finish()
	return trs, pf, nil
}
