//go:build !nocluster

package testenv

import (
	"errors"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestKubeControllerManagerRunsAndStops starts the real
// kube-controller-manager (built on first use) on the shared cluster with
// one controller that acts on nothing the other tests make (the TTL
// controller annotates nodes; there are none), checks that it serves
// /healthz and started the controller, then stops it and checks that its
// process is gone.
func TestKubeControllerManagerRunsAndStops(t *testing.T) {
	c := Shared(t)
	ctx := testContext(t)
	began := time.Now()
	cm, err := c.StartKubeControllerManager(ctx, KCMOptions{
		Controllers: []string{"ttl-controller"}, Logger: zerolog.New(zerolog.NewTestWriter(t))})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kube-controller-manager ready in %v", time.Since(began))
	pid := cm.proc.pid()
	resp, err := http.Get(strings.Replace(cm.HealthzURL(), "https:", "http:", 1))
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Error("/healthz answered over plain HTTP")
		}
	}
	if tail := cm.LogTail(400); !strings.Contains(tail, "ttl") {
		t.Errorf("the log does not mention the ttl controller:\n%s", tail)
	}
	if err := cm.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	select {
	case <-cm.Exited():
	default:
		t.Error("Exited is open after Stop")
	}
	if !pidGone(pid) {
		t.Errorf("process %d still exists after Stop", pid)
	}
	if err := cm.Stop(); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
}

// A controller-manager that dies by itself is reported by Stop, with its
// log.
func TestKubeControllerManagerCrashIsReported(t *testing.T) {
	c := Shared(t)
	cm, err := c.StartKubeControllerManager(testContext(t), KCMOptions{Controllers: []string{"ttl-controller"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(cm.proc.pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-cm.Exited()
	err = cm.Stop()
	if !errors.Is(err, ErrControllerManagerExited) || !strings.Contains(err.Error(), "signal: killed") {
		t.Errorf("Stop after a crash = %v, want ErrControllerManagerExited with the exit status", err)
	}
}

// A cluster's Stop ends the controller-managers started on it.
func TestClusterStopEndsKubeControllerManager(t *testing.T) {
	ctx := testContext(t)
	c, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	cm, err := c.StartKubeControllerManager(ctx, KCMOptions{Controllers: []string{"ttl-controller"}})
	if err != nil {
		t.Fatal(err)
	}
	pid := cm.proc.pid()
	c.Stop()
	select {
	case <-cm.Exited():
	default:
		t.Fatal("kube-controller-manager still runs after the cluster's Stop")
	}
	if !pidGone(pid) {
		t.Errorf("process %d still exists", pid)
	}
	if _, err := c.StartKubeControllerManager(ctx, KCMOptions{}); !errors.Is(err, ErrStopped) {
		t.Errorf("start on a stopped cluster: %v, want ErrStopped", err)
	}
}
