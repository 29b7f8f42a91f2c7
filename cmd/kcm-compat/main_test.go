package main

import (
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Bad command lines are refused with exit code 2 before anything is built
// or run, with a message that says what is accepted.
func TestBadCommandLines(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--releases", "v1.35.4,v1.34.4"}, 2,
			`--releases: testenv: unknown Kubernetes release "v1.34.4": the supported releases are v1.35.4, v1.36.3, v1.37.2`},
		{[]string{"--releases", ","}, 2, "--releases names no release"},
		{[]string{"--groups", "list,nope"}, 2, `unknown group "nope" (known: release, list, watch, watchlist, websocket, relist-410, manager)`},
		{[]string{"extra"}, 2, `unexpected arguments ["extra"]`},
		{[]string{"--help"}, 0, "-releases"},
	} {
		var out, errOut strings.Builder
		if code := run(tc.args, &out, &errOut); code != tc.code || !strings.Contains(errOut.String(), tc.says) {
			t.Errorf("run(%q) = %d, stderr %q; want %d and %q", tc.args, code, errOut.String(), tc.code, tc.says)
		}
	}
}

func TestSplit(t *testing.T) {
	if got := strings.Join(split(" v1.35.4, ,v1.37.2,"), "|"); got != "v1.35.4|v1.37.2" {
		t.Errorf("split = %q", got)
	}
}
