//go:build linux

package clientcmd

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// kcPluginScript replaces p's script.
func kcPluginScript(t *testing.T, p kcPlugin, script string) {
	t.Helper()
	if err := os.WriteFile(p.path, []byte("#!/bin/sh\nd='"+p.dir+"'\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// kcChildPID reads the pid a plugin script wrote to the file "child", and
// makes sure the process is killed when the test ends whatever happens.
func kcChildPID(t *testing.T, p kcPlugin) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(p.dir, "child"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	return pid
}

// kcExits waits, without polling, up to limit for process pid (not our
// child) to exit, through a pidfd. It reports whether it did.
func kcExits(t *testing.T, pid int, limit time.Duration) bool {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return true // gone already
	}
	if err != nil {
		t.Fatalf("pidfd_open: %v", err)
	}
	defer unix.Close(fd)
	n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(limit.Milliseconds()))
	if err != nil {
		t.Fatalf("poll: %v", err)
	}
	return n == 1
}

// TestExecPluginTimeoutKillsProcessGroup: a plugin that hangs past its
// timeout is killed with everything it started (its process group), so no
// orphan outlives it; a helper it leaves behind holding stdout open after
// printing its credential does not cost that credential.
func TestExecPluginTimeoutKillsProcessGroup(t *testing.T) {
	t.Run("hanging plugin and its child", func(t *testing.T) {
		p := kcWritePlugin(t, "", "", 0)
		kcPluginScript(t, p, "sleep 1000 &\necho $! > \"$d/child\"\nsleep 1000\n")
		e := kcNewExec(t, p, ExecAPIVersionV1, ExecOptions{Timeout: 300 * time.Millisecond})
		if _, err := e.Authorization(t.Context()); !errors.Is(err, ErrExecPlugin) {
			t.Fatalf("err = %v, want the plugin's timeout", err)
		}
		if pid := kcChildPID(t, p); !kcExits(t, pid, 10*time.Second) {
			t.Fatalf("the plugin's child %d still runs 10s after the plugin timed out: an orphan", pid)
		}
	})
	t.Run("child holding stdout after the credential", func(t *testing.T) {
		p := kcWritePlugin(t, kcExecCredential(ExecAPIVersionV1, map[string]string{"token": "T"}), "", 0)
		kcPluginScript(t, p, "cat \"$d/stdout\"\nsleep 1000 &\necho $! > \"$d/child\"\nexit 0\n")
		e := kcNewExec(t, p, ExecAPIVersionV1, ExecOptions{Timeout: 30 * time.Second})
		if h, err := e.Authorization(t.Context()); err != nil || h != "Bearer T" {
			t.Fatalf("Authorization = %q, %v; want the credential the plugin printed", h, err)
		}
		if pid := kcChildPID(t, p); !kcExits(t, pid, 10*time.Second) {
			t.Fatalf("the plugin's child %d outlives it", pid)
		}
	})
}
