package testenv

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestKCMArgs(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts KCMOptions
		want []string // flags that must be present
		last string   // the last flag
	}{
		{"defaults: every default controller, no leader election", KCMOptions{},
			[]string{"--controllers=*", "--leader-elect=false", "--secure-port=4242", "--use-service-account-credentials=false",
				"--kubeconfig=/k", "--cert-dir=/c", "--bind-address=127.0.0.1"}, "--v=2"},
		{"controllers are joined in order", KCMOptions{Controllers: []string{"deployment-controller", "-foo"}},
			[]string{"--controllers=deployment-controller,-foo"}, "--v=2"},
		{"leader election on request", KCMOptions{LeaderElect: true}, []string{"--leader-elect=true"}, "--v=2"},
		{"extra args come last, so they override", KCMOptions{Args: []string{"--v=4"}}, nil, "--v=4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := kcmArgs("/k", "/c", 4242, tc.opts)
			for _, w := range tc.want {
				if !slices.Contains(args, w) {
					t.Errorf("args %v lack %s", args, w)
				}
			}
			if args[len(args)-1] != tc.last {
				t.Errorf("last arg %s, want %s", args[len(args)-1], tc.last)
			}
		})
	}
}

// fakeCluster is enough of a Cluster for StartKubeControllerManager to
// run a fake binary: a directory, a kubeconfig path, a ready timeout.
func fakeCluster(t *testing.T, ready time.Duration) *Cluster {
	dir := t.TempDir()
	return &Cluster{dir: dir, kubeconfigPath: filepath.Join(dir, "kubeconfig"), readyTimeout: ready}
}

func writeScript(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fake-kcm")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestStartKubeControllerManagerReportsEarlyExit(t *testing.T) {
	bin := writeScript(t, "echo \"fake kcm: unknown controller in $2\" >&2\nexit 1\n")
	_, err := fakeCluster(t, time.Minute).StartKubeControllerManager(testContext(t),
		KCMOptions{Binary: bin, Controllers: []string{"nope"}})
	if err == nil {
		t.Fatal("started a controller-manager that exits")
	}
	for _, want := range []string{"kube-controller-manager exited", "exit status 1", "fake kcm: unknown controller in --controllers=nope"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// TestStartKubeControllerManagerTimesOut: a controller-manager that never
// becomes healthy is reported with its log tail, and stopped (killed and
// reaped) before StartKubeControllerManager returns, not left running. The
// check is the process's state when the call returns, not how long it took.
func TestStartKubeControllerManagerTimesOut(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	bin := writeScript(t, "echo $$ > '"+pidFile+"'\necho 'fake kcm: hanging'\nexec sleep 600\n")
	_, err := fakeCluster(t, 300*time.Millisecond).StartKubeControllerManager(testContext(t), KCMOptions{Binary: bin})
	if !errors.Is(err, ErrNotReady) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrNotReady and DeadlineExceeded", err)
	}
	if !strings.Contains(err.Error(), "fake kcm: hanging") {
		t.Errorf("error lacks the log tail:\n%v", err)
	}
	b, rerr := os.ReadFile(pidFile)
	pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
	if rerr != nil || perr != nil {
		t.Fatalf("the fake controller-manager's pid: %v, %v", rerr, perr)
	}
	if kerr := syscall.Kill(pid, 0); !errors.Is(kerr, syscall.ESRCH) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the hanging controller-manager (pid %d) still exists after the call returned (kill 0: %v): not stopped", pid, kerr)
	}
}

func TestStartKubeControllerManagerOnStoppedCluster(t *testing.T) {
	c := fakeCluster(t, time.Second)
	c.stopped = true
	if _, err := c.StartKubeControllerManager(testContext(t), KCMOptions{Binary: "/nonexistent"}); !errors.Is(err, ErrStopped) {
		t.Errorf("err = %v, want ErrStopped", err)
	}
}

// kube-controller-manager is built like kube-apiserver (same module,
// version and linker flags) but cached under its own name and stamp, so
// neither build can be mistaken for the other.
func TestControllerManagerRecipe(t *testing.T) {
	kcm, api := controllerManagerRecipe(), apiserverRecipe(KubernetesVersion)
	if kcm.name != "kube-controller-manager" || kcm.pkg != "k8s.io/kubernetes/cmd/kube-controller-manager" {
		t.Errorf("recipe builds %s from %s", kcm.name, kcm.pkg)
	}
	if kcm.version != api.version || kcm.ldflags != api.ldflags {
		t.Errorf("version %s / ldflags differ from kube-apiserver's (%s)", kcm.version, api.version)
	}
	if kcm.stamp() == api.stamp() || !strings.Contains(kcm.stamp(), "cmd/kube-controller-manager") {
		t.Errorf("stamp %q does not name the command", kcm.stamp())
	}
}
