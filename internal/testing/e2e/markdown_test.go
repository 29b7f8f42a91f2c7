package e2e

import (
	"strings"
	"testing"
)

// The page names every regression and every stale known reason in its
// summary, quotes suite-level failures, lists the selection, and has one
// table row per spec.
func TestMarkdownFlags(t *testing.T) {
	kube := readSuite(t, "testdata/kube.json")
	kcm := readSuite(t, "testdata/kcm.json")
	known := []Reason{{Spec: "should validate Deployment Status endpoints", Kind: KwokNoContainers, Text: "stale"}}
	p := Page{Title: "t", Kube: Run{Label: "kube-controller-manager"}, KCM: Run{Label: "kcm"},
		KubeSuite: kube, KCMSuite: kcm, Rows: Compare(kube, kcm, known), Groups: Groups, Exclusions: Exclusions}
	md := p.Markdown()
	for _, want := range []string{
		"**Regressions** (pass under kube-controller-manager, fail under kcm):\n\n- [sig-apps] Deployment deployment should support rollover [Conformance]\n",
		"**Known reasons out of date** (listed as failing under both, but did not):\n\n- [sig-apps] Deployment should validate Deployment Status endpoints [Conformance]\n",
		"**Suite failure under kcm** (Kubernetes e2e suite report, failed): `could not write report`",
		"| REGRESSION: passes only under kube-controller-manager | 1 |",
		"failed under both: **no reason listed**",
		"skipped under both: Only supported for providers [gce] (not skeleton)",
		"| `\\[sig-apps\\] Deployment ` | deployment-controller |",
		"- `\\[sig-auth\\] ServiceAccounts should mount an API token into pods`: reads the token",
		"| 3 | [sig-apps] ReplicaSet Replace and Patch tests [Conformance] | not run | passed 4s | not comparable |",
		"  ```\n  Did not get expected responses within the timeout period of 120.00 seconds.\n  second line\n  ```\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("page lacks %q:\n%s", want, md)
		}
	}
}

func TestFirstLines(t *testing.T) {
	long := strings.Repeat("é", maxLineRunes+5)
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"a\n\nb\nc", 2, "a\nb …"},
		{"  a  \n", 3, "a"},
		{long, 1, strings.Repeat("é", maxLineRunes) + " …"},
		{"", 1, ""},
	}
	for _, tt := range tests {
		if got := firstLines(tt.in, tt.n); got != tt.want {
			t.Errorf("firstLines(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestCell(t *testing.T) {
	if got := cell("a | b\n  c"); got != `a \| b c` {
		t.Errorf("cell = %q", got)
	}
}
