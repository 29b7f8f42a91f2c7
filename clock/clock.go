package clock

import "time"

// Clock is the source of time for everything in kcm that waits or measures.
// Production code receives Real; tests receive a *Fake and step it.
//
// There is deliberately no Sleep: code that waits should select on a Timer's
// channel together with its context, so that it can always be cancelled.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Since returns the time elapsed since t (Now().Sub(t)).
	Since(t time.Time) time.Duration
	// NewTimer returns a Timer that fires once, d after Now.
	// A d ≤ 0 fires immediately.
	NewTimer(d time.Duration) Timer
	// After is NewTimer(d).C(), for callers that never stop the timer.
	After(d time.Duration) <-chan time.Time
	// NewTicker returns a Ticker that fires every d. It panics if d ≤ 0,
	// as time.NewTicker does.
	NewTicker(d time.Duration) Ticker
}

// Timer is a one-shot timer. Its semantics follow Go 1.23+ time.Timer: after
// Stop or Reset returns, no value from before the call is received from C.
type Timer interface {
	// C returns the channel on which the deadline is delivered.
	C() <-chan time.Time
	// Stop prevents the timer from firing. It returns true if the call
	// stopped the timer, false if it had already fired (and the value was
	// received) or had been stopped.
	Stop() bool
	// Reset re-arms the timer to fire d after Now. It returns what Stop
	// would have returned.
	Reset(d time.Duration) bool
}

// Ticker delivers ticks at a fixed period. Like time.Ticker, a slow receiver
// misses ticks rather than queueing them.
type Ticker interface {
	// C returns the channel on which ticks are delivered.
	C() <-chan time.Time
	// Stop turns the ticker off; no tick is delivered after Stop returns.
	Stop()
	// Reset changes the period to d and restarts the ticker from Now.
	Reset(d time.Duration)
}

// Real is the Clock backed by package time.
type Real struct{}

var _ Clock = Real{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// Since returns time.Since(t).
func (Real) Since(t time.Time) time.Duration { return time.Since(t) }

// NewTimer wraps time.NewTimer.
func (Real) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

// After returns time.After(d).
func (Real) After(d time.Duration) <-chan time.Time { return time.After(d) }

// NewTicker wraps time.NewTicker.
func (Real) NewTicker(d time.Duration) Ticker { return realTicker{time.NewTicker(d)} }

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time        { return r.t.C }
func (r realTimer) Stop() bool                 { return r.t.Stop() }
func (r realTimer) Reset(d time.Duration) bool { return r.t.Reset(d) }
func (r realTicker) C() <-chan time.Time       { return r.t.C }
func (r realTicker) Stop()                     { r.t.Stop() }
func (r realTicker) Reset(d time.Duration)     { r.t.Reset(d) }

type realTicker struct{ t *time.Ticker }
