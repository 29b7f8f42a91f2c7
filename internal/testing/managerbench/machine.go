package managerbench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
)

// LoadAvg is the kernel's load averages over 1, 5 and 15 minutes: the
// number of runnable (and uninterruptible) tasks, averaged. On a machine
// with N cores, a load above N means tasks waited for a CPU.
type LoadAvg struct {
	One, Five, Fifteen float64
}

// ParseLoadAvg reads the first three fields of /proc/loadavg
// ("1.09 0.80 0.33 2/311 8085").
func ParseLoadAvg(data []byte) (LoadAvg, error) {
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return LoadAvg{}, fmt.Errorf("%w: loadavg %q", ErrProcFormat, data)
	}
	var v [3]float64
	for i := range v {
		x, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return LoadAvg{}, fmt.Errorf("%w: loadavg %q: %w", ErrProcFormat, data, err)
		}
		v[i] = x
	}
	return LoadAvg{v[0], v[1], v[2]}, nil
}

// String prints the three averages as uptime does.
func (l LoadAvg) String() string { return fmt.Sprintf("%.2f %.2f %.2f", l.One, l.Five, l.Fifteen) }

// ReadLoadAvg reads /proc/loadavg.
func ReadLoadAvg() (LoadAvg, error) {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return LoadAvg{}, fmt.Errorf("managerbench: %w", err)
	}
	return ParseLoadAvg(data)
}

// Machine is what a reader needs to weigh the numbers: the hardware, the
// toolchain, the code measured, and how busy the machine was.
type Machine struct {
	CPUs       int
	CPUModel   string
	MemTotal   int64 // bytes
	GoVersion  string
	Commit     string // of the kcm tree measured, "+dirty" when it has changes
	LoadBefore LoadAvg
	LoadAfter  LoadAvg
}

// ParseMemInfoTotal reads MemTotal, in bytes, from /proc/meminfo's text.
func ParseMemInfoTotal(data []byte) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			f := strings.Fields(v)
			if len(f) == 2 && f[1] == "kB" {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				if err == nil {
					return kb << 10, nil
				}
			}
			return 0, fmt.Errorf("%w: meminfo line %q", ErrProcFormat, sc.Text())
		}
	}
	return 0, fmt.Errorf("%w: meminfo has no MemTotal", ErrProcFormat)
}

// ParseCPUModel returns the first "model name" of /proc/cpuinfo's text, or
// "" when there is none (some architectures do not print it).
func ParseCPUModel(data []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// ReadMachine gathers the machine facts; the load average is the one now
// (LoadBefore). A fact that cannot be read is left empty rather than
// failing the run: the benchmark itself does not depend on it.
func ReadMachine(ctx context.Context, repo string) Machine {
	m := Machine{CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		m.CPUModel = ParseCPUModel(b)
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		m.MemTotal, _ = ParseMemInfoTotal(b)
	}
	m.LoadBefore, _ = ReadLoadAvg()
	m.Commit = gitCommit(ctx, repo)
	return m
}

// gitCommit is the short commit of the tree at repo, with "+dirty" when it
// has uncommitted changes; "unknown" without git.
func gitCommit(ctx context.Context, repo string) string {
	out, err := exec.CommandContext(ctx, "git", "-C", repo, "rev-parse", "--short=7", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.CommandContext(ctx, "git", "-C", repo, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		c += "+dirty"
	}
	return c
}
