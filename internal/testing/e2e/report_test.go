package e2e

import (
	"os"
	"strings"
	"testing"
	"time"
)

func readSuite(t *testing.T, path string) Suite {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := ReadReport(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// ReadReport keeps the specs that ran or were skipped at run time, in run
// order, with their full names, states, durations and failure messages;
// specs filtered out by --focus and suite-level nodes that passed are
// dropped.
func TestReadReport(t *testing.T) {
	s := readSuite(t, "testdata/kube.json")
	want := []Spec{
		{Name: "[sig-apps] Deployment deployment should support rollover [Conformance]", State: Passed, Duration: 21400 * time.Millisecond},
		{Name: "[sig-apps] ReplicaSet should serve a basic image on each replica with a public image [Conformance]", State: Failed,
			Duration: 125 * time.Second, Failure: "Did not get expected responses within the timeout period of 120.00 seconds.\nsecond line",
			Where: "k8s.io/kubernetes/test/e2e/apps/replica_set.go:230"},
		{Name: "[sig-apps] ReplicaSet should serve a basic image on each replica with a private image", State: Skipped,
			Duration: time.Millisecond, Failure: "Only supported for providers [gce] (not skeleton)",
			Where: "k8s.io/kubernetes/test/e2e/apps/replica_set.go:119"},
		{Name: "[sig-apps] Deployment should validate Deployment Status endpoints [Conformance]", State: Failed,
			Duration: 3 * time.Second, Failure: "timed out", Where: "k8s.io/kubernetes/test/e2e/apps/deployment.go:600"},
	}
	if len(s.Specs) != len(want) {
		t.Fatalf("got %d specs, want %d: %+v", len(s.Specs), len(want), s.Specs)
	}
	for i := range want {
		if s.Specs[i] != want[i] {
			t.Errorf("spec %d:\n got %+v\nwant %+v", i, s.Specs[i], want[i])
		}
	}
	if s.Description != "Kubernetes e2e suite" || s.Succeeded || s.End.Sub(s.Start) != 5*time.Minute {
		t.Errorf("suite %q succeeded=%v %s..%s", s.Description, s.Succeeded, s.Start, s.End)
	}
	if len(s.SuiteFailures) != 0 {
		t.Errorf("suite failures %+v, want none", s.SuiteFailures)
	}
	kcm := readSuite(t, "testdata/kcm.json")
	if len(kcm.SuiteFailures) != 1 || kcm.SuiteFailures[0].Name != "Kubernetes e2e suite report" ||
		kcm.SuiteFailures[0].Failure != "could not write report" {
		t.Errorf("suite failures %+v, want the failed ReportAfterSuite", kcm.SuiteFailures)
	}
}

func TestReadReportErrors(t *testing.T) {
	tests := []struct {
		name, json, says string
	}{
		{"not JSON", "{", "decode ginkgo report"},
		{"no suite", "[]", ErrNoReport.Error()},
		{"bad state type", `[{"SpecReports":[{"State":1}]}]`, "decode ginkgo report"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadReport(strings.NewReader(tt.json))
			if err == nil || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("error %v, want one saying %q", err, tt.says)
			}
		})
	}
}

func TestStateFailed(t *testing.T) {
	for s, want := range map[State]bool{Passed: false, Skipped: false, Pending: false, NotRun: false,
		Failed: true, Panicked: true, TimedOut: true, Interrupted: true, Aborted: true} {
		if s.Failed() != want {
			t.Errorf("%q.Failed() = %v, want %v", s, !want, want)
		}
	}
}
