package bench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// What another process spends is read from the kernel: /proc/<pid>/stat
// for its CPU time, /proc/<pid>/status for its resident memory. The
// real-apiserver benchmark reads kube-apiserver's and etcd's this way.

// ErrProcFormat reports a /proc file that does not read as expected.
var ErrProcFormat = errors.New("bench: unexpected /proc format")

// clockTick is the unit of utime and stime in /proc/<pid>/stat: USER_HZ,
// which Linux fixes at 100 for user space on every architecture Go runs on.
const clockTick = 10 * time.Millisecond

// ParseStatCPU returns utime+stime from the contents of /proc/<pid>/stat.
// The second field (the command name) is in parentheses and may contain
// spaces and parentheses itself, so fields are counted after its last ')'.
func ParseStatCPU(stat []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("%w: stat has no command name", ErrProcFormat)
	}
	// After ") " come field 3 (state) onwards; utime and stime are fields
	// 14 and 15 of proc(5), so indexes 11 and 12 here.
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("%w: stat has %d fields after the command name", ErrProcFormat, len(f))
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%w: stat field %q", ErrProcFormat, s)
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick, nil
}

// ProcMemory is a process's resident memory as /proc/<pid>/status has it.
type ProcMemory struct {
	RSS  uint64 // VmRSS: resident now, bytes
	Peak uint64 // VmHWM: the most resident since start or the last ResetPeakRSS, bytes
}

// ParseStatus returns VmRSS and VmHWM from the contents of
// /proc/<pid>/status (kB in the file, bytes here).
func ParseStatus(status []byte) (ProcMemory, error) {
	var m ProcMemory
	var seen int
	for line := range strings.Lines(string(status)) {
		name, val, ok := strings.Cut(line, ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		f := strings.Fields(val)
		if len(f) != 2 || f[1] != "kB" {
			return m, fmt.Errorf("%w: status line %q", ErrProcFormat, strings.TrimSpace(line))
		}
		kb, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return m, fmt.Errorf("%w: status line %q", ErrProcFormat, strings.TrimSpace(line))
		}
		if name == "VmRSS" {
			m.RSS = kb << 10
		} else {
			m.Peak = kb << 10
		}
		seen++
	}
	if seen != 2 {
		return m, fmt.Errorf("%w: status lacks VmRSS or VmHWM", ErrProcFormat)
	}
	return m, nil
}

// ProcCPU returns the CPU time (user + system) process pid has used.
func ProcCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("bench: cpu of pid %d: %w", pid, err)
	}
	return ParseStatCPU(b)
}

// ReadProcMemory returns process pid's resident memory now and at peak.
func ReadProcMemory(pid int) (ProcMemory, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return ProcMemory{}, fmt.Errorf("bench: memory of pid %d: %w", pid, err)
	}
	return ParseStatus(b)
}

// ResetPeakRSS sets process pid's VmHWM back to its VmRSS (proc(5),
// clear_refs "5"), so that the next reading is the peak since now. It
// needs the rights to write the process's clear_refs (its owner's).
func ResetPeakRSS(pid int) error {
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		return fmt.Errorf("bench: reset peak RSS of pid %d: %w", pid, err)
	}
	return nil
}
