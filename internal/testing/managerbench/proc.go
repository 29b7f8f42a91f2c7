package managerbench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// ClockTicks is the unit of the CPU times in /proc/<pid>/stat: USER_HZ,
// which Linux fixes at 100 per second for every architecture's user-space
// ABI (sysconf(_SC_CLK_TCK) reports it; Go has no portable way to ask
// without cgo).
const ClockTicks = 100

// ErrProcFormat is returned when a /proc file does not have the shape the
// kernel documents (proc(5)).
var ErrProcFormat = errors.New("managerbench: unexpected /proc format")

// Sample is what the kernel says about one process at one moment: its
// resident memory now and at its peak, and the CPU time it has used.
type Sample struct {
	At  time.Time
	RSS int64         // bytes resident now (VmRSS)
	HWM int64         // bytes resident at the peak so far (VmHWM)
	CPU time.Duration // user + system CPU time (utime + stime)
}

// ParseStatus reads VmRSS and VmHWM, in bytes, from the text of
// /proc/<pid>/status ("VmRSS:\t  123456 kB" lines).
func ParseStatus(data []byte) (rss, hwm int64, err error) {
	var haveRSS, haveHWM bool
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		key, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, 0, fmt.Errorf("%w: status line %q", ErrProcFormat, sc.Text())
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("%w: status line %q: %w", ErrProcFormat, sc.Text(), err)
		}
		if key == "VmRSS" {
			rss, haveRSS = kb<<10, true
		} else {
			hwm, haveHWM = kb<<10, true
		}
	}
	if !haveRSS || !haveHWM {
		return 0, 0, fmt.Errorf("%w: status has no VmRSS or VmHWM (a kernel thread or a zombie)", ErrProcFormat)
	}
	return rss, hwm, nil
}

// ParseStat reads utime + stime from the text of /proc/<pid>/stat. The
// second field, the command name in parentheses, may itself hold spaces
// and parentheses, so the fields are counted from the last ')': after it
// come state (field 3), ..., utime (field 14) and stime (field 15), in
// ClockTicks.
func ParseStat(data []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, fmt.Errorf("%w: stat has no command name", ErrProcFormat)
	}
	fields := strings.Fields(string(data[i+1:]))
	const utime, stime = 14 - 3, 15 - 3 // indexes after the command name
	if len(fields) <= stime {
		return 0, fmt.Errorf("%w: stat has %d fields after the command name", ErrProcFormat, len(fields))
	}
	var ticks uint64
	for _, f := range []string{fields[utime], fields[stime]} {
		n, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%w: stat cpu field %q: %w", ErrProcFormat, f, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / ClockTicks, nil
}

// ReadSample reads /proc/<pid>/status and /proc/<pid>/stat.
func ReadSample(pid int, now time.Time) (Sample, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Sample{}, fmt.Errorf("managerbench: %w", err)
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Sample{}, fmt.Errorf("managerbench: %w", err)
	}
	s := Sample{At: now}
	if s.RSS, s.HWM, err = ParseStatus(status); err != nil {
		return Sample{}, fmt.Errorf("pid %d: %w", pid, err)
	}
	if s.CPU, err = ParseStat(stat); err != nil {
		return Sample{}, fmt.Errorf("pid %d: %w", pid, err)
	}
	return s, nil
}
