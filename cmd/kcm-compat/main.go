// Command kcm-compat runs kcm's real-apiserver engine tests and the
// manager smoke test against every supported Kubernetes release (package
// internal/testing/compat says what and how):
//
//	make compat                                   # every release, every group
//	go run ./cmd/kcm-compat --releases v1.35.4 --groups watchlist,manager
//
// It prints progress on stderr, the matrix (release × group: pass/fail,
// time) on stdout and into --out, and for each failure a line naming the
// release and the test, followed by the end of that test's output. It
// exits 1 when anything failed, 2 on a bad command line. Run it from the
// module root. The first run builds each release's kube-apiserver and etcd
// (minutes each); they are cached with testenv's other builds.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/kcmlab/kcm/internal/testing/compat"
	"github.com/kcmlab/kcm/testenv"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kcm-compat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var known []string
	for _, r := range testenv.Releases() {
		known = append(known, r.Kubernetes)
	}
	var groupNames []string
	for _, g := range compat.Groups() {
		groupNames = append(groupNames, g.Name)
	}
	releases := fs.String("releases", strings.Join(known, ","), "comma-separated Kubernetes releases to test")
	groups := fs.String("groups", "", "comma-separated test groups to run (default all: "+strings.Join(groupNames, ", ")+")")
	out := fs.String("out", "", "also write the matrix (markdown) to this file")
	race := fs.Bool("race", false, "run the tests with -race")
	timeout := fs.Duration("timeout", 20*time.Minute, "go test -timeout for one package")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "kcm-compat: unexpected arguments %q\n", fs.Args())
		return 2
	}
	var cfg compat.Config
	for _, v := range split(*releases) {
		rel, err := testenv.LookupRelease(v)
		if err != nil {
			fmt.Fprintf(stderr, "kcm-compat: --releases: %v\n", err)
			return 2
		}
		cfg.Releases = append(cfg.Releases, rel)
	}
	if len(cfg.Releases) == 0 {
		fmt.Fprintln(stderr, "kcm-compat: --releases names no release")
		return 2
	}
	gs, unknown := compat.SelectGroups(split(*groups))
	if unknown != "" {
		fmt.Fprintf(stderr, "kcm-compat: --groups: unknown group %q (known: %s)\n", unknown, strings.Join(groupNames, ", "))
		return 2
	}
	cfg.Groups, cfg.Progress, cfg.Timeout = gs, stderr, *timeout
	if *race {
		cfg.GoTestFlags = append(cfg.GoTestFlags, "-race")
	}
	if _, err := os.Stat("go.mod"); err != nil {
		fmt.Fprintln(stderr, "kcm-compat: run it from kcm's module root (no go.mod here)")
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	began := time.Now()
	results, err := compat.Run(ctx, cfg)
	matrix := compat.Matrix(results, gs)
	fmt.Fprint(stdout, matrix)
	if *out != "" {
		if err := os.MkdirAll(filepath.Dir(*out), 0o755); err == nil {
			err = os.WriteFile(*out, []byte(matrix), 0o644)
		}
		if err != nil {
			fmt.Fprintf(stderr, "kcm-compat: --out: %v\n", err)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "kcm-compat: stopped after %s: %v\n", time.Since(began).Round(time.Second), err)
		return 1
	}
	failed := 0
	for _, r := range results {
		for _, f := range r.Failures(gs) {
			failed++
			fmt.Fprintln(stderr, f.Message())
			for _, line := range f.Output {
				fmt.Fprintln(stderr, "    "+line)
			}
		}
	}
	for _, f := range failures(results, gs) { // again, together, after the outputs
		fmt.Fprintln(stderr, f)
	}
	fmt.Fprintf(stderr, "kcm-compat: %d release(s), %d group(s), %d failure(s) in %s\n", len(results), len(gs), failed,
		time.Since(began).Round(time.Second))
	if failed > 0 {
		return 1
	}
	return 0
}

// failures are the failure lines of every release.
func failures(results []compat.ReleaseResult, gs []compat.Group) []string {
	var out []string
	for _, r := range results {
		for _, f := range r.Failures(gs) {
			out = append(out, f.Message())
		}
	}
	return out
}

// split splits a comma-separated list, dropping empty items.
func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
