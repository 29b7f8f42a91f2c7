package main

import (
	"os"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/testenv"
)

// TestMain runs the tests with testenv.Main: the integration tests share
// one real cluster, stopped after the tests, and no goroutine may leak.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

func TestDispatch(t *testing.T) {
	tests := []struct {
		args     []string
		wantCode int
		wantErr  string
	}{
		{nil, 2, "usage: kcm <command>"},
		{[]string{"no-such-command"}, 2, `unknown command "no-such-command"`},
		{[]string{"help"}, 0, "dev "},
		{[]string{"--help"}, 0, "usage: kcm <command>"},
		{[]string{"dev", "--no-such-flag"}, 2, "unknown flag: --no-such-flag"},
		{[]string{"dev", "extra"}, 2, "unexpected arguments"},
		{[]string{"dev", "--help"}, 0, "--build-only"},
		{[]string{"dev", "--help"}, 0, "--no-demo"},
		{[]string{"trace"}, 2, "want exactly one resource"},
		{[]string{"trace", "pods", "cm"}, 2, "want exactly one resource"},
		{[]string{"trace", "pods", "--transport=carrier-pigeon"}, 2, `--transport "carrier-pigeon"`},
		{[]string{"trace", "--no-such-flag", "pods"}, 2, "unknown flag: --no-such-flag"},
		{[]string{"trace", "--help"}, 0, "--watch-list"},
		{[]string{"trace", "pods", "--kubeconfig=/nonexistent/kubeconfig"}, 1, "kcm trace:"},
	}
	for _, tt := range tests {
		var stderr strings.Builder
		code := dispatch(tt.args, &stderr, &stderr)
		if code != tt.wantCode || !strings.Contains(stderr.String(), tt.wantErr) {
			t.Errorf("dispatch(%q) = %d, stderr %q; want %d and %q", tt.args, code, stderr.String(), tt.wantCode, tt.wantErr)
		}
	}
}

func Example() {
	dispatch([]string{"help"}, os.Stdout, os.Stdout)
	// Output:
	// usage: kcm <command> [flags]
	//
	// commands:
	//   dev      run a local etcd + kube-apiserver built from the Go module proxy, a demo and a trace
	//   trace    print each event of a resource on its way through the informer
	//
	// Run 'kcm <command> --help' for the flags of a command.
}
