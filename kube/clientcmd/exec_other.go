//go:build !unix

package clientcmd

import "os/exec"

// ownProcessGroup: without process groups, cancelling kills the plugin
// itself (exec.CommandContext's default).
func ownProcessGroup(*exec.Cmd) {}

// killProcessGroup has nothing more to kill once the plugin has ended.
func killProcessGroup(*exec.Cmd) error { return nil }
