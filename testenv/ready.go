package testenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
)

// ErrNotReady is wrapped by the error of a process that was started but did
// not become ready before the context ended.
var ErrNotReady = errors.New("testenv: not ready")

// readyPollInterval is how often readiness probes are repeated.
const readyPollInterval = 100 * time.Millisecond

// waitReady calls probe until it succeeds, the process exits, or ctx ends.
// Errors carry the last probe failure and the tail of the process log.
func waitReady(ctx context.Context, p *process, probe func(context.Context) error) error {
	t := time.NewTicker(readyPollInterval)
	defer t.Stop()
	var last error
	for {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		last = probe(pctx)
		cancel()
		if last == nil {
			return nil
		}
		select {
		case <-p.exited:
			return p.exitError()
		case <-ctx.Done():
			return fmt.Errorf("%w: %s (pid %d): %w; last probe: %v\nlast lines of %s:\n%s",
				ErrNotReady, p.name, p.pid(), ctx.Err(), last, p.logPath, fileTail(p.logPath, 30))
		case <-t.C:
		}
	}
}

// freePorts returns n distinct loopback TCP ports that were free a moment
// ago. All listeners are held open together so the ports differ; another
// process can still take one before it is used, which retryPortClash
// handles.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// portClashAttempts bounds how often a start is retried with fresh ports.
const portClashAttempts = 3

// retryPortClash runs start until it succeeds, fails for another reason
// than a port taken between freePorts and the process binding it, or has
// been tried portClashAttempts times.
func retryPortClash(start func() error) error {
	var err error
	for range portClashAttempts {
		err = start()
		if err == nil || !strings.Contains(err.Error(), "address already in use") {
			return err
		}
	}
	return err
}
