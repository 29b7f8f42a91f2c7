package rest

import (
	"context"
	"io"
	"sync/atomic"
	"time"

	"github.com/kcmlab/kcm/clock"
)

// The idle timeouts of lists and watches: a connection that TCP still
// thinks alive but that stopped sending must end in ErrIdleTimeout instead
// of hanging a reflector. Both run on the client's clock, so tests step
// time instead of waiting for it.

// idleTimer calls fire once it has not been kicked for d. It behaves like
// time.AfterFunc on an injected clock: a goroutine waits for the timer and
// stop reports whether it came before fire.
type idleTimer struct {
	d     time.Duration
	timer clock.Timer // nil when d <= 0: never fires
	done  chan struct{}
	state atomic.Int32 // idleArmed, idleFired or idleStopped
}

const (
	idleArmed int32 = iota
	idleFired
	idleStopped
)

// newIdleTimer arms a timer of d on clk (d <= 0: one that never fires).
func newIdleTimer(clk clock.Clock, d time.Duration, fire func()) *idleTimer {
	it := &idleTimer{d: d}
	if d <= 0 {
		return it
	}
	it.timer = clk.NewTimer(d)
	it.done = make(chan struct{})
	go func() {
		select {
		case <-it.timer.C():
			if it.state.CompareAndSwap(idleArmed, idleFired) {
				fire()
			}
		case <-it.done:
		}
	}()
	return it
}

// kick restarts the countdown from d.
func (it *idleTimer) kick() {
	if it.timer != nil && it.state.Load() == idleArmed {
		it.timer.Reset(it.d)
	}
}

// pause stops the countdown until the next kick.
func (it *idleTimer) pause() {
	if it.timer != nil {
		it.timer.Stop()
	}
}

// stop disarms the timer for good and ends its goroutine. It reports
// whether the timer had not fired, like time.Timer.Stop for AfterFunc.
func (it *idleTimer) stop() bool {
	if it.timer == nil {
		return true
	}
	stopped := it.state.CompareAndSwap(idleArmed, idleStopped)
	if stopped {
		it.timer.Stop()
		close(it.done)
	}
	return stopped
}

// expired reports whether the timer fired.
func (it *idleTimer) expired() bool { return it.state.Load() == idleFired }

// idleReader cancels the request when no bytes arrived for d.
type idleReader struct {
	r io.Reader
	*idleTimer
}

func newIdleReader(clk clock.Clock, r io.Reader, d time.Duration, cancel context.CancelFunc) *idleReader {
	return &idleReader{r: r, idleTimer: newIdleTimer(clk, d, cancel)}
}

func (ir *idleReader) Read(p []byte) (int, error) {
	n, err := ir.r.Read(p)
	if n > 0 {
		ir.kick()
	}
	return n, err
}
