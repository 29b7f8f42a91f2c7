//go:build !nocluster

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The failover test runs the real kcm binary as separate OS processes:
// this file builds it and handles the processes and their logs.

// buildTimeout bounds `go build` of the kcm binary: seconds with a warm
// build cache, minutes on a cold one on a loaded machine.
const buildTimeout = 10 * time.Minute

// buildKCM builds the kcm binary of this package into a temporary
// directory, without -race: the test runs the binary an operator runs.
func buildKCM(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "kcm")
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	began := time.Now()
	out, err := exec.CommandContext(ctx, gobin, "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build of the kcm binary: %v\n%s", err, out)
	}
	t.Logf("built %s in %v", bin, time.Since(began).Round(time.Millisecond))
	return bin
}

// kcmProcess is one running `kcm` manager process.
type kcmProcess struct {
	name    string
	cmd     *exec.Cmd
	logPath string

	// exited is closed once the process has been reaped; waitErr is its
	// exit status, readable after exited is closed.
	exited  chan struct{}
	waitErr error
}

// startKCM starts bin with args, its stdout and stderr going to logPath.
// The process dies with the test binary (Pdeathsig) even if the test
// never stops it; the test's cleanup kills and reaps it otherwise.
func startKCM(t *testing.T, name, bin, logPath string, args []string) *kcmProcess {
	t.Helper()
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close() // the child has its own descriptor
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	p := &kcmProcess{name: name, cmd: cmd, logPath: logPath, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = cmd.Process.Signal(syscall.SIGKILL)
			<-p.exited
		}
	})
	return p
}

// String names the process in messages.
func (p *kcmProcess) String() string { return fmt.Sprintf("%s (pid %d)", p.name, p.cmd.Process.Pid) }

// kill sends SIGKILL — no shutdown, no lease release, requests cut off —
// and waits until the process is reaped, so it is certainly gone.
func (p *kcmProcess) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 %s: %v", p, err)
	}
	<-p.exited // SIGKILL cannot be caught: no bound needed
	var ee *exec.ExitError
	if !errors.As(p.waitErr, &ee) {
		t.Fatalf("%s after SIGKILL: wait = %v, want a signal exit", p, p.waitErr)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("%s after SIGKILL: exit status %v, want killed by SIGKILL", p, p.waitErr)
	}
}

// terminate sends SIGTERM and waits up to bound for exit status 0 (the
// binary drains its syncs and releases the lease first).
func (p *kcmProcess) terminate(t *testing.T, bound time.Duration) {
	t.Helper()
	select {
	case <-p.exited:
		t.Fatalf("%s exited by itself before SIGTERM: %v\n%s", p, p.waitErr, p.tail(30))
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM %s: %v", p, err)
	}
	timer := time.NewTimer(bound)
	defer timer.Stop()
	select {
	case <-p.exited:
	case <-timer.C:
		t.Fatalf("%s did not exit within %v of SIGTERM\n%s", p, bound, p.tail(30))
	}
	if p.waitErr != nil {
		t.Fatalf("%s after SIGTERM: %v, want exit status 0\n%s", p, p.waitErr, p.tail(30))
	}
}

// alive fails the test if the process has exited.
func (p *kcmProcess) alive(t *testing.T) {
	t.Helper()
	select {
	case <-p.exited:
		t.Fatalf("%s exited: %v\n%s", p, p.waitErr, p.tail(30))
	default:
	}
}

// tail returns the last n lines of the log, headed by its path.
func (p *kcmProcess) tail(n int) string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", p.logPath, err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return fmt.Sprintf("--- last %d lines of %s, %s:\n%s", len(lines), p, p.logPath, strings.Join(lines, "\n"))
}

// logLine is the part of a JSON log line (--logging-format=json) the test
// reads.
type logLine struct {
	Message  string `json:"message"`
	Identity string `json:"identity"`
	Pod      string `json:"pod"`
}

// logLines parses the process's log so far; lines that are not JSON (a
// Go runtime message) are skipped.
func (p *kcmProcess) logLines(t *testing.T) []logLine {
	t.Helper()
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		t.Fatal(err)
	}
	var out []logLine
	s := bufio.NewScanner(bytes.NewReader(b))
	s.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for s.Scan() {
		var l logLine
		if json.Unmarshal(s.Bytes(), &l) == nil {
			out = append(out, l)
		}
	}
	return out
}

// count returns how many log lines carry message msg.
func (p *kcmProcess) count(t *testing.T, msg string) int {
	t.Helper()
	n := 0
	for _, l := range p.logLines(t) {
		if l.Message == msg {
			n++
		}
	}
	return n
}

// identity returns the lease holder identity the process logged
// (kube-controller-manager's "<hostname>_<uuid>", drawn at start: every
// line of the elector carries it), or "" when none is logged yet.
func (p *kcmProcess) identity(t *testing.T) string {
	t.Helper()
	for _, l := range p.logLines(t) {
		if l.Identity != "" {
			return l.Identity
		}
	}
	return ""
}

// byIdentity polls the processes' logs until each has logged its
// identity, and maps identities to processes. Every candidate logs one
// once it has read the Lease ("acquired the lease; leading" or "new
// leader observed"), so the caller waits for a holder first.
func byIdentity(t *testing.T, ctx context.Context, procs []*kcmProcess) map[string]*kcmProcess {
	t.Helper()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		ids := map[string]*kcmProcess{}
		for _, p := range procs {
			p.alive(t)
			if id := p.identity(t); id != "" {
				if other, dup := ids[id]; dup {
					t.Fatalf("%s and %s logged one identity %q", other, p, id)
				}
				ids[id] = p
			}
		}
		if len(ids) == len(procs) {
			return ids
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for every kcm process to log its lease identity: %v (have %d of %d)", ctx.Err(), len(ids), len(procs))
		case <-tick.C:
		}
	}
}
