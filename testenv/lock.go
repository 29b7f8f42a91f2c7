package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockPollInterval is how often a process waiting for the build lock
// retries; flock itself cannot be interrupted by a context.
const lockPollInterval = 250 * time.Millisecond

// lockExclusive takes an exclusive flock on path, creating the file if
// needed. `go test ./...` runs one test binary per package in parallel and
// each may want the same binary built; the lock makes exactly one of them
// build while the others wait and then find the result in the cache.
//
// The lock belongs to the open file, so it is released when unlock closes
// it or when the process dies, whichever comes first: a killed build never
// leaves a stale lock behind. onWait is called once if the lock is busy.
func lockExclusive(ctx context.Context, path string, onWait func()) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	var ticker *time.Ticker
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			_ = f.Close()
			return nil, fmt.Errorf("flock %s: %w", path, err)
		}
		if ticker == nil {
			ticker = time.NewTicker(lockPollInterval)
			defer ticker.Stop()
			if onWait != nil {
				onWait()
			}
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, fmt.Errorf("waiting for lock %s: %w", path, ctx.Err())
		case <-ticker.C:
		}
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}
