package main

import (
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Bad command lines are refused with exit code 2 before anything starts.
func TestBadCommandLines(t *testing.T) {
	tests := []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--benchmarks", "scale,nope"}, 2, `unknown benchmark "nope"`},
		{[]string{"--kcm", "/nonexistent/kcm"}, 2, "build it: go build -o bin/kcm ./cmd/kcm"},
		{[]string{"--runs"}, 2, "flag needs an argument"},
		{[]string{"--benchmarks", "endpoints", "--es-services", "0"}, 2, "--es-services and --es-pods-per-service must be at least 1"},
		{[]string{"--benchmarks", "endpoints", "--es-pods-per-service", "-1"}, 2, "must be at least 1"},
		{[]string{"--es-services", "many"}, 2, "invalid value"},
		{[]string{"--benchmarks", "endpoints", "--es-create-rate", "-1"}, 2, "--es-create-rate not negative"},
		{[]string{"--benchmarks", "statefulsets", "--sts-sets", "0"}, 2, "--sts-sets and --sts-replicas must be at least 1"},
		{[]string{"--benchmarks", "statefulsets", "--sts-replicas", "-3"}, 2, "--sts-sets and --sts-replicas must be at least 1"},
		{[]string{"--benchmarks", "statefulsets", "--sts-create-rate", "-1"}, 2, "--sts-create-rate not negative"},
		{[]string{"--benchmarks", "statefulsets", "--sts-managers", "kcm,kubelet"}, 2, `unknown manager "kubelet"`},
		{[]string{"--help"}, 0, "-sts-replicas"},
		{[]string{"--benchmarks", "nodes", "--nl-silent", "11", "--nl-nodes", "10"}, 2, "invalid nodes workload: 11 silent nodes of 10"},
		{[]string{"--benchmarks", "nodes", "--nl-grace", "0s"}, 2, "invalid nodes workload: grace period 0s"},
		{[]string{"--benchmarks", "nodes", "--nl-nodes", "300"}, 2, "300 nodes (1 to 255)"},
		{[]string{"--help"}, 0, "-kube-controller-manager-args"},
		{[]string{"--benchmarks", "quotas", "--rq-namespaces", "0"}, 2, "invalid quotas workload: 0 namespaces (1 to 10000)"},
		{[]string{"--benchmarks", "quotas", "--rq-pods-per-namespace", "1001"}, 2, "1001 pods per namespace (1 to 1000)"},
		{[]string{"--benchmarks", "quotas", "--rq-delete-per-namespace", "11"}, 2, "11 pods deleted per namespace of 10"},
		{[]string{"--help"}, 0, "-rq-delete-per-namespace"},
	}
	for _, tt := range tests {
		var out, errOut strings.Builder
		if code := run(tt.args, &out, &errOut); code != tt.code || !strings.Contains(errOut.String(), tt.says) {
			t.Errorf("run(%q) = %d, stderr %q; want %d and %q", tt.args, code, errOut.String(), tt.code, tt.says)
		}
	}
}

// An unknown benchmark name is named in the error.
func Example_unknownBenchmark() {
	run([]string{"--benchmarks", "speed"}, os.Stdout, os.Stdout)
	// Output: kcm-bench: unknown benchmark "speed" (want scale, sync, endpoints, statefulsets, nodes or quotas)
}
