//go:build unix

package clientcmd

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts the plugin as the leader of a process group of its
// own, and makes cancelling it (its timeout) kill that whole group: a shell
// script's children die with it instead of living on as orphans.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killProcessGroup(cmd) }
}

// killProcessGroup kills every process left in the plugin's group.
func killProcessGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
