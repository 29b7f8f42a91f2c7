package testenv

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// stopGrace is how long a process gets to exit after SIGTERM before it is
// killed.
const stopGrace = 10 * time.Second

// process is one running etcd or kube-apiserver.
//
// It runs in its own process group, so that stopping it reaches anything
// it started, and with Pdeathsig=SIGKILL, so that it dies with the test
// binary even when the test binary is killed and never calls Stop.
// (Pdeathsig fires when the OS thread that started the child exits; the Go
// runtime keeps its threads alive for the life of the process unless a
// goroutine exits while locked to one, which testenv never does.)
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string

	// exited is closed once the process has been reaped; waitErr is its exit
	// status and may be read only after exited is closed.
	exited  chan struct{}
	waitErr error
}

// startProcess starts bin with args, appending its stdout and stderr to
// logPath (a restart keeps the earlier run's lines above a marker).
func startProcess(name, bin string, args []string, logPath string) (*process, error) {
	return startProcessEnv(name, bin, args, nil, logPath)
}

// startProcessEnv is startProcess with env ("KEY=value") added to the
// inherited environment.
func startProcessEnv(name, bin string, args, env []string, logPath string) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s log: %w", name, err)
	}
	defer logFile.Close() // the child has its own copy of the descriptor
	fmt.Fprintf(logFile, "=== testenv: starting %s at %s\n", name, time.Now().Format(time.RFC3339Nano))

	cmd := exec.Command(bin, args...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, logPath: logPath, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// stop sends SIGTERM to the process group, waits up to grace, then sends
// SIGKILL and waits for the process to be reaped. It is safe to call on a
// process that already exited, and more than once.
func (p *process) stop(grace time.Duration) {
	select {
	case <-p.exited:
		return
	default:
	}
	pgid := p.cmd.Process.Pid // Setpgid: the group id is the child's pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.exited:
	case <-t.C:
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.exited
	}
	// Children of the leader, if any, are in the same group: make sure none
	// outlives it.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// exitError describes why the process ended early, with its log tail.
func (p *process) exitError() error {
	return fmt.Errorf("%s exited: %v\nlast lines of %s:\n%s", p.name, p.waitErr, p.logPath, fileTail(p.logPath, 30))
}

// pid returns the process id.
func (p *process) pid() int { return p.cmd.Process.Pid }

// fileTail returns the last n lines of the file at path, or a note saying
// why it could not be read. Large logs are read from their last 64 KiB.
func fileTail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	defer f.Close()
	const window = 64 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > window {
		if _, err := f.Seek(-window, io.SeekEnd); err != nil {
			return fmt.Sprintf("(cannot read log: %v)", err)
		}
	}
	b, err := io.ReadAll(f)
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
