package testenv

import (
	"fmt"
	"strings"
	"time"
)

// progressInterval is how often a running build reports that it is alive.
const progressInterval = 15 * time.Second

// buildProgress follows the output of the go command during one build and
// turns it into the lines a waiting human sees. It is a pure state machine:
// observe feeds it output lines, report asks it for a line at a given time.
// The goroutine that calls them (and its clock) lives in build.go.
type buildProgress struct {
	what     string    // "kube-apiserver v1.37.2"
	estimate string    // "about 5 min on 2 cores"
	dir      string    // where the binary will be cached
	start    time.Time // when the build began

	// downloads counts "go: downloading" lines: modules fetched from the
	// proxy. compiled counts the import paths that go build -v prints, one
	// per package it actually compiles (cached packages are not printed).
	downloads int
	compiled  int
}

func newBuildProgress(r recipe, dir string, start time.Time) *buildProgress {
	return &buildProgress{what: r.name + " " + r.version, estimate: r.estimate, dir: dir, start: start}
}

// observe accounts for one line of go command output.
func (p *buildProgress) observe(line string) {
	line = strings.TrimSpace(line)
	switch {
	case line == "":
	case strings.HasPrefix(line, "go: downloading "):
		p.downloads++
	case strings.HasPrefix(line, "go: "), strings.HasPrefix(line, "#"):
		// other go command chatter, and compiler error headers
	case !strings.ContainsAny(line, " \t:"):
		p.compiled++ // an import path printed by go build -v
	}
}

// banner is the first line shown: what is built, where it goes, and that
// it happens only once.
func (p *buildProgress) banner() string {
	return fmt.Sprintf("testenv: building %s from the Go module proxy (first build only, %s; cached afterwards in %s)",
		p.what, p.estimate, p.dir)
}

// report is the periodic "still working" line.
func (p *buildProgress) report(now time.Time) string {
	return fmt.Sprintf("testenv: building %s: %s elapsed, %d modules downloaded, %d packages compiled",
		p.what, elapsed(p.start, now), p.downloads, p.compiled)
}

// done is the closing line of a successful build.
func (p *buildProgress) done(now time.Time) string {
	return fmt.Sprintf("testenv: built %s in %s (%d modules downloaded, %d packages compiled)",
		p.what, elapsed(p.start, now), p.downloads, p.compiled)
}

func elapsed(from, to time.Time) time.Duration { return to.Sub(from).Round(time.Second) }
