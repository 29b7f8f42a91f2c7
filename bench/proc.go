package bench

import (
	"fmt"
	"os"
)

// What another process spends is read from the kernel with
// internal/testing/managerbench's readers (/proc/<pid>/stat for CPU time,
// /proc/<pid>/status for resident memory). The real-apiserver benchmark
// reads kube-apiserver's and etcd's this way, and resets kube-apiserver's
// peak before each sync so that the peak read after it is that sync's.

// ResetPeakRSS sets process pid's VmHWM back to its VmRSS (proc(5),
// clear_refs "5"), so that the next reading is the peak since now. It
// needs the rights to write the process's clear_refs (its owner's).
func ResetPeakRSS(pid int) error {
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		return fmt.Errorf("bench: reset peak RSS of pid %d: %w", pid, err)
	}
	return nil
}
