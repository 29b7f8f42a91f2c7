package managerbench

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// ErrExited is returned when a manager process ended before the harness
// stopped it.
var ErrExited = errors.New("managerbench: manager process exited")

// Proc is one manager process under measurement: started by the harness
// in its own process group, its output in a log file seen through a
// LineWatcher, its memory and CPU read from /proc.
type Proc struct {
	Name    string
	Started time.Time
	Log     *LineWatcher
	LogPath string
	// MetricsURL is the manager's /metrics, set by whoever chose its port;
	// HeapURL its text heap profile (kcm runs with --profiling).
	MetricsURL string
	HeapURL    string
	// ClientTLS is the TLS configuration that reads them: the manager's
	// self-signed serving certificate is not verified, and the client
	// certificate is a system:masters member's of the cluster's client CA.
	ClientTLS *tls.Config

	cmd     *exec.Cmd
	logFile *os.File
	exited  chan struct{}
	waitErr error // valid once exited is closed
}

// StartProc runs bin with args, its stdout and stderr appended to logPath,
// watching the output for the given strings. The process gets SIGKILL if
// the harness dies (Pdeathsig), so none outlives a crashed benchmark.
func StartProc(name, bin string, args []string, logPath string, watch ...string) (*Proc, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("managerbench: %s log: %w", name, err)
	}
	fmt.Fprintf(f, "=== managerbench: %s %s\n", bin, strings.Join(args, " "))
	lw := NewLineWatcher(f, time.Now, watch...)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = lw, lw
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	p := &Proc{Name: name, Log: lw, LogPath: logPath, cmd: cmd, logFile: f, exited: make(chan struct{})}
	p.Started = time.Now()
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("managerbench: start %s: %w", name, err)
	}
	go func() {
		p.waitErr = cmd.Wait()
		f.Close()
		close(p.exited)
	}()
	return p, nil
}

// Pid is the process id, the key to its /proc files.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Sample reads the process's memory and CPU now. It fails with ErrExited
// (and the log's tail) when the process is gone.
func (p *Proc) Sample() (Sample, error) {
	select {
	case <-p.exited:
		return Sample{}, p.exitErr()
	default:
	}
	return ReadSample(p.Pid(), time.Now())
}

// Exited is closed once the process has ended.
func (p *Proc) Exited() <-chan struct{} { return p.exited }

// exitErr describes an early exit with the log's tail.
func (p *Proc) exitErr() error {
	return fmt.Errorf("%w: %s: %v\nlast lines of %s:\n%s", ErrExited, p.Name, p.waitErr, p.LogPath, tail(p.LogPath, 20))
}

// Stop sends SIGTERM to the process group, then SIGKILL after grace, and
// waits for the process. It returns ErrExited if the process had already
// ended by itself, and is safe to call more than once.
func (p *Proc) Stop(grace time.Duration) error {
	select {
	case <-p.exited:
		if p.cmd.ProcessState != nil && p.cmd.ProcessState.Success() {
			return nil
		}
		return p.exitErr()
	default:
	}
	pgid := p.Pid() // Setpgid: the group id is the leader's pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.exited:
	case <-t.C:
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.exited
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL) // anything left in its group
	return nil
}

// WaitLine waits until a line containing s has been printed and returns
// its marks, or fails when the process exits or ctx ends first.
func (p *Proc) WaitLine(ctx context.Context, s string) (LineMarks, error) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if m := p.Log.Marks(s); m.Count > 0 {
			return m, nil
		}
		select {
		case <-ctx.Done():
			return LineMarks{}, fmt.Errorf("managerbench: %s: waiting for %q: %w", p.Name, s, ctx.Err())
		case <-p.exited:
			return LineMarks{}, p.exitErr()
		case <-tick.C:
		}
	}
}

// tail returns the last n lines of the file at path (from its last 64
// KiB), or why it cannot.
func tail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(cannot read: %v)", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > 64<<10 {
		_, _ = f.Seek(-64<<10, io.SeekEnd)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return fmt.Sprintf("(cannot read: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// freePort asks the kernel for a free loopback TCP port. Another process
// could take it before the manager binds it; the manager then exits at
// once with "address already in use", which the run reports.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("managerbench: free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
