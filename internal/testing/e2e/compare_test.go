package e2e

import (
	"testing"
)

func TestVerdict(t *testing.T) {
	tests := []struct {
		kube, kcm State
		want      Verdict
	}{
		{Passed, Passed, BothPassed},
		{Passed, Failed, Regression},
		{Passed, TimedOut, Regression},
		{Passed, Panicked, Regression},
		{Failed, Passed, KCMOnly},
		{Failed, Failed, BothFailed},
		{TimedOut, Interrupted, BothFailed},
		{Skipped, Skipped, BothSkipped},
		{Passed, NotRun, Incomplete},
		{NotRun, Passed, Incomplete},
		{Passed, Skipped, Incomplete},
		{Skipped, Failed, Incomplete},
	}
	for _, tt := range tests {
		if got := verdict(tt.kube, tt.kcm); got != tt.want {
			t.Errorf("verdict(%q, %q) = %q, want %q", tt.kube, tt.kcm, got, tt.want)
		}
	}
}

// Compare pairs the runs' specs by name, sorted by name, classifies each, and applies known reasons only where the
// spec failed (or was skipped) under both.
func TestCompare(t *testing.T) {
	kube := readSuite(t, "testdata/kube.json")
	kcm := readSuite(t, "testdata/kcm.json")
	known := []Reason{
		{Spec: "should serve a basic image on each replica with a public image", Kind: KwokNoContainers, Text: "sends HTTP to the pods"},
		{Spec: "should validate Deployment Status endpoints", Kind: KwokNoContainers, Text: "listed by mistake"},
	}
	rows := Compare(kube, kcm, known)
	want := []struct {
		name    string
		kube    State
		kcm     State
		verdict Verdict
		reason  string
		stale   bool
	}{
		{"[sig-apps] Deployment deployment should support rollover [Conformance]", Passed, Failed, Regression, "", false},
		{"[sig-apps] Deployment should validate Deployment Status endpoints [Conformance]", Failed, Passed, KCMOnly, "", true},
		{"[sig-apps] ReplicaSet Replace and Patch tests [Conformance]", NotRun, Passed, Incomplete, "", false},
		{"[sig-apps] ReplicaSet should serve a basic image on each replica with a private image", Skipped, Skipped, BothSkipped, "", false},
		{"[sig-apps] ReplicaSet should serve a basic image on each replica with a public image [Conformance]", Failed, Failed, BothFailed, "sends HTTP to the pods", false},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(rows), len(want), rows)
	}
	for i, w := range want {
		r := rows[i]
		if r.Name != w.name || r.Kube.State != w.kube || r.KCM.State != w.kcm || r.Verdict != w.verdict ||
			r.Reason.Text != w.reason || r.Stale != w.stale {
			t.Errorf("row %d: got %q %s/%s %q reason %q stale %v\nwant %q %s/%s %q reason %q stale %v", i,
				r.Name, r.Kube.State, r.KCM.State, r.Verdict, r.Reason.Text, r.Stale,
				w.name, w.kube, w.kcm, w.verdict, w.reason, w.stale)
		}
	}
	s := Summarize(rows)
	if s.Total != 5 || s.ByVerdict[Regression] != 1 || s.ByVerdict[BothFailed] != 1 || s.Unexplained != 0 {
		t.Errorf("summary %+v", s)
	}
	if s := Summarize(Compare(kube, kcm, nil)); s.Unexplained != 1 {
		t.Errorf("without reasons, %d specs failed under both unexplained, want 1", s.Unexplained)
	}
}
