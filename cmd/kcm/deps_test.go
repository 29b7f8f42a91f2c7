package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestBinaryDeps: the kcm binary carries `kcm dev` (testenv's builder and
// starter of a local etcd + kube-apiserver) on purpose, but not the test
// framework: package testing and the client-go world must stay out of it.
// It reads the import graph the go command computes for the binary.
func TestBinaryDeps(t *testing.T) {
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(gobin, "list", "-deps", "github.com/kcmlab/kcm/cmd/kcm").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	have := map[string]bool{}
	for _, d := range deps {
		have[d] = true
		if strings.HasPrefix(d, "k8s.io/") || strings.HasPrefix(d, "sigs.k8s.io/") {
			t.Errorf("the kcm binary imports %s: no Kubernetes Go module may enter it", d)
		}
	}
	if have["testing"] {
		t.Errorf("the kcm binary links package testing (through testenv?); testenv must use its own TB and M interfaces")
	}
	if !have["github.com/kcmlab/kcm/testenv"] {
		t.Errorf("the kcm binary no longer links testenv: update the README's statement that `kcm dev` is built in")
	}
}
