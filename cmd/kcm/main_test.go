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
		{[]string{"no-such-command"}, 2, `unknown command "no-such-command"`},
		{[]string{"help"}, 0, "Commands (kcm <command>"},
		{[]string{"help"}, 0, "Leader election flags:"},
		{[]string{"--help"}, 0, "  dev "},
		{[]string{"-h"}, 0, "--leader-elect-resource-lock"},
		{[]string{"version"}, 0, "kcm "},
		{[]string{"version", "extra"}, 2, "unexpected arguments"},
		{[]string{"--version"}, 0, "kube-controller-manager v1.37 flags"},
		{[]string{"--no-such-flag"}, 2, "unknown flag: --no-such-flag"},
		{[]string{"--allocate-node-cidrs"}, 2, "kcm does not support kube-controller-manager's flag --allocate-node-cidrs; see kcm --help"},
		{[]string{"--leader-elect-resource-lock=endpoints"}, 2, `kcm supports only "leases"`},
		{[]string{"--secure-port=0", "extra"}, 2, "unexpected arguments"},
		// Flags parse, the manager starts and cannot find its cluster: 1.
		{[]string{"--secure-port=0", "--kubeconfig=/nonexistent/kubeconfig"}, 1, "finding the cluster"},
		{[]string{"dev", "--no-such-flag"}, 2, "unknown flag: --no-such-flag"},
		{[]string{"dev", "extra"}, 2, "unexpected arguments"},
		{[]string{"dev", "--help"}, 0, "--build-only"},
		{[]string{"dev", "--help"}, 0, "--demo"},
		{[]string{"dev", "--help"}, 0, "--no-manager"},
		{[]string{"dev", "--help"}, 0, "--nodes"},
		{[]string{"dev", "--nodes=-1"}, 2, "--nodes=-1: want 0 to 100"},
		{[]string{"dev", "--nodes=101"}, 2, "--nodes=101: want 0 to 100"},
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

// The subcommands, as `kcm --help` ends.
func Example() {
	usage(os.Stdout)
	// Output:
	// Commands (kcm <command> [flags]; without one, kcm runs the manager):
	//   dev      run a local etcd + kube-apiserver built from the Go module proxy, and the manager on it
	//   trace    print each event of a resource on its way through the informer
	//   version  print kcm's version
	//
	// Run 'kcm <command> --help' for the flags of a command.
}

// TestWatchHint: the hint follows the controllers the manager runs.
func TestWatchHint(t *testing.T) {
	for _, tt := range []struct {
		controllers []string
		want, not   string
	}{
		{[]string{"serviceaccount-controller", "deployment-controller"}, "kubectl --kubeconfig /k create deployment web --image=nginx --replicas=3", "create namespace"},
		{[]string{"serviceaccount-controller"}, "kubectl --kubeconfig /k create namespace hello", "deployment"},
	} {
		got := watchHint("/k", tt.controllers)
		if !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) || !strings.Contains(got, "kcm-only: kcm trace") {
			t.Errorf("watchHint(%v) = %q; want %q, a kcm-only line, and no %q", tt.controllers, got, tt.want, tt.not)
		}
	}
}
