package compat

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// TestResult is what one top-level test did in one run.
type TestResult struct {
	Test
	// Ran: the test reported an outcome. A test that never did (renamed,
	// removed, left out by a build tag, or its binary died) counts as failed.
	Ran     bool
	Passed  bool
	Skipped bool
	Elapsed time.Duration
	// Failed lists the failing subtests ("TestX/case"), sorted; empty when
	// the test failed by itself.
	Failed []string
	// Output is the end of the test's output (its subtests' included).
	Output []string
}

// PackageFailure is a package that failed while every test asked for
// passed: it did not build, or its TestMain failed (leaked goroutines).
type PackageFailure struct {
	Pkg    string
	Output []string // the end of what the package printed outside its tests
}

// outputLines bounds the output kept per test and per package.
const outputLines = 60

// event is one line of `go test -json` (cmd/test2json's TestEvent; a
// build failure's lines come as Action "build-output" with ImportPath).
type event struct {
	Action     string
	Package    string
	ImportPath string
	Test       string
	Elapsed    float64
	Output     string
}

// collector turns the event stream of one package's `go test -json` run
// into results for the tests that were asked for.
type collector struct {
	pkg     string
	want    []string               // top-level tests asked for, in order
	results map[string]*TestResult // by top-level name
	output  map[string]*tail       // by top-level name
	pkgOut  *tail                  // output outside any test
	failed  bool                   // the package reported fail
	done    func(TestResult)       // called as each asked-for test ends; may be nil
	subFail map[string]map[string]bool
}

func newCollector(pkg string, want []string, done func(TestResult)) *collector {
	c := &collector{pkg: pkg, want: want, results: map[string]*TestResult{}, output: map[string]*tail{},
		pkgOut: &tail{}, done: done, subFail: map[string]map[string]bool{}}
	for _, name := range want {
		c.results[name] = &TestResult{Test: Test{Pkg: pkg, Name: name}}
		c.output[name] = &tail{}
		c.subFail[name] = map[string]bool{}
	}
	return c
}

// read consumes a whole event stream. Lines that are not JSON events (the
// go command's own messages) count as package output.
func (c *collector) read(r io.Reader) error {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for s.Scan() {
		line := s.Bytes()
		var ev event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &ev) != nil {
			c.pkgOut.add(string(line))
			continue
		}
		c.add(ev)
	}
	if err := s.Err(); err != nil {
		return fmt.Errorf("reading go test -json: %w", err)
	}
	return nil
}

// add applies one event.
func (c *collector) add(ev event) {
	if ev.Action == "build-output" || ev.Action == "build-fail" {
		c.pkgOut.add(strings.TrimRight(ev.Output, "\n"))
		return
	}
	top, _, _ := strings.Cut(ev.Test, "/")
	r := c.results[top]
	if ev.Test == "" || r == nil {
		if ev.Action == "output" {
			c.pkgOut.add(strings.TrimRight(ev.Output, "\n"))
		}
		if ev.Test == "" && ev.Action == "fail" {
			c.failed = true
		}
		return
	}
	switch ev.Action {
	case "output":
		c.output[top].add(strings.TrimRight(ev.Output, "\n"))
	case "fail":
		if ev.Test != top {
			c.subFail[top][ev.Test] = true
			return
		}
		r.Ran, r.Passed, r.Elapsed = true, false, seconds(ev.Elapsed)
		c.end(r)
	case "pass", "skip":
		if ev.Test != top {
			return
		}
		r.Ran, r.Passed, r.Skipped, r.Elapsed = true, ev.Action == "pass", ev.Action == "skip", seconds(ev.Elapsed)
		c.end(r)
	}
}

// end completes r when its top-level test ends.
func (c *collector) end(r *TestResult) {
	r.Failed = nil
	for name := range c.subFail[r.Name] {
		r.Failed = append(r.Failed, name)
	}
	sort.Strings(r.Failed)
	r.Output = c.output[r.Name].lines()
	if c.done != nil {
		c.done(*r)
	}
}

// finish returns one result per test asked for, in the order asked, and
// the package failure, if the package failed with every test passing.
func (c *collector) finish() ([]TestResult, *PackageFailure) {
	out := make([]TestResult, 0, len(c.want))
	allPassed := true
	for _, name := range c.want {
		r := *c.results[name]
		if !r.Ran { // the package's output says why (a build error, a panic)
			r.Output = append(c.output[name].lines(), c.pkgOut.lines()...)
		}
		allPassed = allPassed && r.Ran && r.Passed
		out = append(out, r)
	}
	if c.failed && allPassed {
		return out, &PackageFailure{Pkg: c.pkg, Output: c.pkgOut.lines()}
	}
	return out, nil
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// tail keeps the last outputLines lines added.
type tail struct{ buf []string }

func (t *tail) add(s string) {
	t.buf = append(t.buf, s)
	if len(t.buf) > 2*outputLines {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-outputLines:]...)
	}
}

func (t *tail) lines() []string {
	if len(t.buf) > outputLines {
		return append([]string(nil), t.buf[len(t.buf)-outputLines:]...)
	}
	return append([]string(nil), t.buf...)
}
