package main

import (
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/kcmlab/kcm/internal/testing/e2e"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Bad command lines are refused with exit code 2 before anything starts;
// --render-only without reports fails naming the missing file.
func TestBadCommandLines(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--modes", "kcm,nope"}, 2, `unknown mode "nope"`},
		{[]string{"--kcm", "/nonexistent/kcm"}, 2, "build it: go build -o bin/kcm ./cmd/kcm"},
		{[]string{"--nodes", "0"}, 2, "at least one node"},
		{[]string{"--timeout"}, 2, "flag needs an argument"},
		{[]string{"--help"}, 0, "-render-only"},
		{[]string{"--render-only", "--workdir", dir}, 1, "kube-controller-manager.result.json"},
	}
	for _, tt := range tests {
		var out, errOut strings.Builder
		if code := run(tt.args, &out, &errOut); code != tt.code || !strings.Contains(errOut.String(), tt.says) {
			t.Errorf("run(%q) = %d, stderr %q; want %d and %q", tt.args, code, errOut.String(), tt.code, tt.says)
		}
	}
}

// The nodes spread over three zones.
func TestNodes(t *testing.T) {
	n := Nodes(4)
	if len(n) != 4 || n[0].Zone != "zone-a" || n[1].Zone != "zone-b" || n[2].Zone != "zone-c" || n[3].Zone != "zone-a" ||
		n[3].Name != "kwok-node-3" {
		t.Errorf("nodes %+v", n)
	}
}

// An unknown mode is named in the error.
func Example_unknownMode() {
	run([]string{"--modes", "both"}, os.Stdout, os.Stdout)
	// Output: kcm-e2e: unknown mode "both" (want kube-controller-manager or kcm)
}

// The page says how to render it again, and says so when its run selected
// other specs than make e2e's.
func TestSelection(t *testing.T) {
	def := e2e.Config{WorkDir: defaultWorkDir, Focus: e2e.Focus(e2e.Groups), Skip: e2e.Skip(e2e.Exclusions)}
	if got := selection(def); len(got) != 1 || !strings.Contains(got[0], "`go run ./cmd/kcm-e2e --render-only` renders it again from the reports in bin/e2e") {
		t.Errorf("make e2e's page: %q", got)
	}
	narrow := def
	narrow.WorkDir, narrow.Focus = "bin/e2e-endpoints", `\[sig-network\] EndpointSlice `
	got := selection(narrow)
	if len(got) != 2 || !strings.Contains(got[0], "--render-only --workdir bin/e2e-endpoints`") ||
		!strings.Contains(got[1], "Not make e2e's selection: this run's --ginkgo.focus `\\[sig-network\\] EndpointSlice `") {
		t.Errorf("a narrower run's page: %q", got)
	}
}
