package scheduler

import (
	"time"

	"github.com/kcmlab/kcm/clock"
)

// TokenBucket is a token bucket of qps tokens a second holding at most
// burst, full when made (client-go's flowcontrol.NewTokenBucketRateLimiter
// over golang.org/x/time/rate). A qps <= 0 never accepts
// (flowcontrol.NewFakeNeverRateLimiter). Not safe for concurrent use: the
// queue calls it under its lock.
type TokenBucket struct {
	clk    clock.Clock
	qps    float32
	burst  int
	tokens float64
	last   time.Time
}

// NewTokenBucket returns a full bucket.
func NewTokenBucket(clk clock.Clock, qps float32, burst int) *TokenBucket {
	return &TokenBucket{clk: clk, qps: qps, burst: burst, tokens: float64(burst), last: clk.Now()}
}

// QPS is the bucket's rate.
func (b *TokenBucket) QPS() float32 { return b.qps }

// TryAccept takes a token if one is there.
func (b *TokenBucket) TryAccept() bool {
	if b.qps <= 0 {
		return false
	}
	now := b.clk.Now()
	if now.After(b.last) {
		b.tokens += now.Sub(b.last).Seconds() * float64(b.qps)
		if b.tokens > float64(b.burst) {
			b.tokens = float64(b.burst)
		}
		b.last = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
