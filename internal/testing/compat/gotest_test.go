package compat

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// A go test -json stream (as cmd/test2json writes it) of a package where
// one test passes, one fails in a subtest, one is skipped, one asked for
// never runs, and a test not asked for is ignored.
const stream = `{"Action":"start","Package":"github.com/kcmlab/kcm/informer"}
{"Action":"run","Package":"github.com/kcmlab/kcm/informer","Test":"TestA"}
{"Action":"output","Package":"github.com/kcmlab/kcm/informer","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"pass","Package":"github.com/kcmlab/kcm/informer","Test":"TestA","Elapsed":1.5}
{"Action":"run","Package":"github.com/kcmlab/kcm/informer","Test":"TestB"}
{"Action":"run","Package":"github.com/kcmlab/kcm/informer","Test":"TestB/ok"}
{"Action":"pass","Package":"github.com/kcmlab/kcm/informer","Test":"TestB/ok","Elapsed":0.1}
{"Action":"run","Package":"github.com/kcmlab/kcm/informer","Test":"TestB/gate-off"}
{"Action":"output","Package":"github.com/kcmlab/kcm/informer","Test":"TestB/gate-off","Output":"    x_test.go:9: phase changes [], want [watch-listing→listing]\n"}
{"Action":"fail","Package":"github.com/kcmlab/kcm/informer","Test":"TestB/gate-off","Elapsed":2}
{"Action":"fail","Package":"github.com/kcmlab/kcm/informer","Test":"TestB","Elapsed":2.25}
{"Action":"run","Package":"github.com/kcmlab/kcm/informer","Test":"TestOther"}
{"Action":"fail","Package":"github.com/kcmlab/kcm/informer","Test":"TestOther","Elapsed":9}
{"Action":"skip","Package":"github.com/kcmlab/kcm/informer","Test":"TestC","Elapsed":0}
not json: the go command said something
{"Action":"output","Package":"github.com/kcmlab/kcm/informer","Output":"FAIL\n"}
{"Action":"fail","Package":"github.com/kcmlab/kcm/informer","Elapsed":5}
`

func TestCollector(t *testing.T) {
	var ended []string
	c := newCollector(Module+"/informer", []string{"TestA", "TestB", "TestC", "TestGone"}, func(tr TestResult) {
		ended = append(ended, tr.Name)
	})
	if err := c.read(strings.NewReader(stream)); err != nil {
		t.Fatal(err)
	}
	got, pf := c.finish()
	if pf != nil {
		t.Errorf("package failure %+v: a test failed, so the package's failure is that test's", pf)
	}
	if !slices.Equal(ended, []string{"TestA", "TestB", "TestC"}) {
		t.Errorf("ended %v", ended)
	}
	want := []struct {
		name                 string
		ran, passed, skipped bool
		elapsed              time.Duration
		failed               []string
		outputHas            string
	}{
		{"TestA", true, true, false, 1500 * time.Millisecond, nil, "=== RUN   TestA"},
		{"TestB", true, false, false, 2250 * time.Millisecond, []string{"TestB/gate-off"}, "want [watch-listing→listing]"},
		{"TestC", true, false, true, 0, nil, ""},
		{"TestGone", false, false, false, 0, nil, ""},
	}
	if len(got) != len(want) {
		t.Fatalf("%d results: %+v", len(got), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Name != w.name || g.Ran != w.ran || g.Passed != w.passed || g.Skipped != w.skipped || g.Elapsed != w.elapsed ||
			!slices.Equal(g.Failed, w.failed) || !strings.Contains(strings.Join(g.Output, "\n"), w.outputHas) {
			t.Errorf("result %d = %+v, want %+v", i, g, w)
		}
	}
}

// A package that fails while every test asked for passed failed outside
// them: its output is kept for the report.
func TestCollectorPackageFailure(t *testing.T) {
	c := newCollector(Module+"/manager", []string{"TestA"}, nil)
	in := `{"Action":"pass","Package":"github.com/kcmlab/kcm/manager","Test":"TestA","Elapsed":1}
{"Action":"output","Package":"github.com/kcmlab/kcm/manager","Output":"testenv: goroutines leaked: found unexpected goroutines\n"}
{"Action":"fail","Package":"github.com/kcmlab/kcm/manager","Elapsed":2}
`
	if err := c.read(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	_, pf := c.finish()
	if pf == nil || pf.Pkg != Module+"/manager" || !strings.Contains(strings.Join(pf.Output, "\n"), "goroutines leaked") {
		t.Fatalf("package failure %+v", pf)
	}
}

// A build failure reports no test at all: every test asked for did not
// run, and the build output is the package's output.
func TestCollectorBuildFailure(t *testing.T) {
	c := newCollector(Module+"/manager", []string{"TestA"}, nil)
	in := `{"ImportPath":"github.com/kcmlab/kcm/manager [github.com/kcmlab/kcm/manager.test]","Action":"build-output","Output":"manager/x.go:1:1: syntax error\n"}
{"ImportPath":"github.com/kcmlab/kcm/manager [github.com/kcmlab/kcm/manager.test]","Action":"build-fail"}
{"Action":"start","Package":"github.com/kcmlab/kcm/manager"}
{"Action":"output","Package":"github.com/kcmlab/kcm/manager","Output":"FAIL\tgithub.com/kcmlab/kcm/manager [build failed]\n"}
{"Action":"fail","Package":"github.com/kcmlab/kcm/manager","Elapsed":0,"FailedBuild":"github.com/kcmlab/kcm/manager [github.com/kcmlab/kcm/manager.test]"}
`
	if err := c.read(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	got, pf := c.finish()
	if len(got) != 1 || got[0].Ran {
		t.Fatalf("results %+v: the test cannot have run", got)
	}
	if pf != nil {
		t.Errorf("package failure %+v: the tests did not pass, so they carry the failure", pf)
	}
	if out := strings.Join(got[0].Output, "\n"); !strings.Contains(out, "syntax error") {
		t.Errorf("the test's output %q lacks the build error that kept it from running", out)
	}
}

func TestTailKeepsTheLastLines(t *testing.T) {
	var tl tail
	for i := range 1000 {
		tl.add(strings.Repeat("x", i%3) + string(rune('a'+i%26)))
	}
	got := tl.lines()
	if len(got) != outputLines || got[len(got)-1] != "l" { // i = 999: 999%3 = 0, 999%26 = 11
		t.Fatalf("%d lines, last %q", len(got), got[len(got)-1])
	}
}
