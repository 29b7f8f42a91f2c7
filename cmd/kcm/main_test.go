package main

import (
	"os"
	"strings"
	"testing"
)

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
	//   dev      start a local etcd + kube-apiserver and print how to reach it
	//
	// Run 'kcm <command> --help' for the flags of a command.
}
