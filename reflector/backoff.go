package reflector

import (
	"math/rand/v2"
	"time"
)

// Backoff is the reflector's retry delay: exponential with jitter, reset
// after a healthy period. It is plain data driven by the times it is given,
// so a test steps it without a clock.
//
// Defaults match client-go's reflector: 800 ms doubling to 30 s, jitter 1.0
// (a delay d becomes a random value in [d, 2d)), reset after 2 minutes
// without failures.
type Backoff struct {
	Initial, Max time.Duration
	Factor       float64
	Jitter       float64       // fraction of d added at random: d + rand[0, Jitter*d)
	ResetAfter   time.Duration // a failure this long after the previous one starts over at Initial
	Rand         func() float64

	// current is the base delay of the next failure; zero before any.
	current time.Duration
	// lastFailure is when the previous failure happened.
	lastFailure time.Time
}

// DefaultBackoff returns client-go's reflector backoff settings.
func DefaultBackoff() Backoff {
	return Backoff{Initial: 800 * time.Millisecond, Max: 30 * time.Second, Factor: 2, Jitter: 1, ResetAfter: 2 * time.Minute}
}

// Next records a failure at now and returns how long to wait before the
// next attempt.
func (b *Backoff) Next(now time.Time) time.Duration {
	if b.current == 0 || (!b.lastFailure.IsZero() && now.Sub(b.lastFailure) >= b.ResetAfter) {
		b.current = b.Initial
	} else {
		b.current = min(time.Duration(float64(b.current)*b.Factor), b.Max)
	}
	b.lastFailure = now
	r := b.Rand
	if r == nil {
		r = rand.Float64
	}
	return b.current + time.Duration(r()*b.Jitter*float64(b.current)) // Jitter 0: none
}

// Reset forgets past failures.
func (b *Backoff) Reset() { b.current, b.lastFailure = 0, time.Time{} }
