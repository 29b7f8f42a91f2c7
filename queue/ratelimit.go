package queue

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/kcmlab/kcm/clock"
)

// RateLimiter decides how long a key that failed must wait before it is
// retried. Queue.AddRateLimited asks When; Queue.Forget calls Forget once a
// key succeeded. Implementations must be safe for concurrent use.
type RateLimiter[K comparable] interface {
	// When records one more failure of k and returns the delay before k's
	// next attempt.
	When(k K) time.Duration
	// Forget clears what the limiter tracks for k.
	Forget(k K)
	// NumRequeues returns how many failures of k are being tracked.
	NumRequeues(k K) int
}

// Defaults of DefaultControllerRateLimiter, the values of client-go's
// DefaultTypedControllerRateLimiter.
const (
	DefaultBaseDelay = 5 * time.Millisecond
	DefaultMaxDelay  = 1000 * time.Second
	DefaultQPS       = 10
	DefaultBurst     = 100
)

// DefaultControllerRateLimiter is the limiter controllers use unless they
// have a reason not to: per-key exponential backoff from 5 ms doubling up to
// 1000 s, and an overall token bucket of 10 retries per second with a burst
// of 100, whichever asks for the longer wait. The bucket keeps a storm of
// failing keys from hammering the apiserver; the per-key backoff keeps one
// broken object from hot-looping.
func DefaultControllerRateLimiter[K comparable](clk clock.Clock) RateLimiter[K] {
	return NewMaxOf(
		NewItemExponential[K](DefaultBaseDelay, DefaultMaxDelay),
		NewBucket[K](clk, DefaultQPS, DefaultBurst),
	)
}

// ItemExponential is per-key exponential backoff: the n-th consecutive
// failure of a key (counting from 0) waits baseDelay·2ⁿ, capped at maxDelay.
// client-go: TypedItemExponentialFailureRateLimiter.
type ItemExponential[K comparable] struct {
	baseDelay, maxDelay time.Duration

	mu sync.Mutex
	// failures counts When calls per key since its last Forget; a key is
	// absent when it has none.
	failures map[K]int
}

// NewItemExponential returns a per-key exponential limiter.
func NewItemExponential[K comparable](baseDelay, maxDelay time.Duration) *ItemExponential[K] {
	return &ItemExponential[K]{baseDelay: baseDelay, maxDelay: maxDelay, failures: make(map[K]int)}
}

// When returns baseDelay·2ⁿ (capped at maxDelay) for the key's n-th failure.
func (l *ItemExponential[K]) When(k K) time.Duration {
	l.mu.Lock()
	n := l.failures[k]
	l.failures[k] = n + 1
	l.mu.Unlock()
	// Float arithmetic cannot overflow where a shift would.
	d := float64(l.baseDelay) * math.Pow(2, float64(n))
	return time.Duration(min(d, float64(l.maxDelay)))
}

// Forget resets the key's failure count.
func (l *ItemExponential[K]) Forget(k K) {
	l.mu.Lock()
	delete(l.failures, k)
	l.mu.Unlock()
}

// NumRequeues returns the key's failure count.
func (l *ItemExponential[K]) NumRequeues(k K) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.failures[k]
}

// Bucket is an overall token bucket shared by all keys: burst retries pass
// at once, then one per 1/qps. It does not track keys, so Forget does nothing
// and NumRequeues is 0. Time comes from the injected clock, so a fake clock
// refills the bucket. client-go: TypedBucketRateLimiter.
type Bucket[K comparable] struct {
	clock   clock.Clock
	limiter *rate.Limiter
}

// NewBucket returns a token bucket limiter refilling qps tokens per second
// up to burst.
func NewBucket[K comparable](clk clock.Clock, qps float64, burst int) *Bucket[K] {
	return &Bucket[K]{clock: clk, limiter: rate.NewLimiter(rate.Limit(qps), burst)}
}

// When takes a token, reserving a future one when the bucket is empty, and
// returns how long until that token is available.
func (l *Bucket[K]) When(K) time.Duration {
	now := l.clock.Now()
	return l.limiter.ReserveN(now, 1).DelayFrom(now)
}

// Forget does nothing: the bucket is not per key.
func (l *Bucket[K]) Forget(K) {}

// NumRequeues is always 0: the bucket is not per key.
func (l *Bucket[K]) NumRequeues(K) int { return 0 }

// MaxOf combines limiters: every one of them sees each failure, and the
// longest delay wins. client-go: TypedMaxOfRateLimiter.
type MaxOf[K comparable] struct {
	limiters []RateLimiter[K]
}

// NewMaxOf returns a limiter that waits as long as the slowest of ls.
func NewMaxOf[K comparable](ls ...RateLimiter[K]) *MaxOf[K] {
	return &MaxOf[K]{limiters: ls}
}

// When asks every limiter (each records the failure) and returns the longest
// delay.
func (l *MaxOf[K]) When(k K) time.Duration {
	var d time.Duration
	for _, r := range l.limiters {
		d = max(d, r.When(k))
	}
	return d
}

// Forget forgets k in every limiter.
func (l *MaxOf[K]) Forget(k K) {
	for _, r := range l.limiters {
		r.Forget(k)
	}
}

// NumRequeues returns the largest count any limiter tracks for k.
func (l *MaxOf[K]) NumRequeues(k K) int {
	n := 0
	for _, r := range l.limiters {
		n = max(n, r.NumRequeues(k))
	}
	return n
}
