package clock

import "time"

// A deadline computed from Now and armed a moment later with a relative
// duration drifts by however much time passed in between. Under Real that is
// nanoseconds; under a Fake a Step can land in the gap and push the deadline
// a whole step late, which makes tests hang. NewTimerAt and ResetAt arm for
// an absolute time, atomically on this package's clocks.

// atTimer is implemented by this package's timers.
type atTimer interface {
	resetAt(at time.Time) bool
}

// NewTimerAt returns a timer from c that fires at the absolute time at
// (immediately if at is not after Now).
func NewTimerAt(c Clock, at time.Time) Timer {
	if f, ok := c.(*Fake); ok {
		return f.newTimerAt(at)
	}
	return c.NewTimer(at.Sub(c.Now()))
}

// ResetAt re-arms t, created from c, to fire at the absolute time at. It
// returns what t.Stop would have returned.
func ResetAt(c Clock, t Timer, at time.Time) bool {
	if a, ok := t.(atTimer); ok {
		return a.resetAt(at)
	}
	return t.Reset(at.Sub(c.Now()))
}

func (r realTimer) resetAt(at time.Time) bool { return r.t.Reset(time.Until(at)) }

func (f *Fake) newTimerAt(at time.Time) Timer {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.newTimerLocked(at)
}

func (t *fakeTimer) resetAt(at time.Time) bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	return t.resetLocked(at)
}
