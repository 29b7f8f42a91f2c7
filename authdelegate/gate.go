package authdelegate

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/time/rate"

	"github.com/kcmlab/kcm/clock"
)

// ErrTooManyReviews: the review a request needs was refused because
// reviews are being asked faster than the gate lets through. The request
// is refused (401 or 403): fail closed.
var ErrTooManyReviews = errors.New("too many reviews in flight or per second")

// Review limits: the rate and burst are those of the delegating clients
// of k8s.io/apiserver (QPS 200, burst 400), which wait for a token; kcm
// refuses instead of queueing, so the cost of a flood of bogus
// credentials is bounded by time, not by the number of requests.
const (
	DefaultReviewQPS      = 200
	DefaultReviewBurst    = 400
	DefaultReviewInFlight = 32
)

// gate bounds the reviews sent to the apiserver: at most burst at once
// and qps per second after that (a token bucket read with the injected
// clock), and at most inFlight at the same time.
type gate struct {
	clk clock.Clock
	lim *rate.Limiter
	sem chan struct{}
	// onWait, when set (tests), is called when a review must wait for
	// an in-flight slot.
	onWait func()
}

func newGate(clk clock.Clock, qps float64, burst, inFlight int) *gate {
	return &gate{clk: clk, lim: rate.NewLimiter(rate.Limit(qps), burst), sem: make(chan struct{}, inFlight)}
}

// enter takes a slot for one review, or fails at once with
// ErrTooManyReviews when the bucket is empty; it waits for a free
// in-flight slot until ctx ends. The caller calls release when the
// review is done.
func (g *gate) enter(ctx context.Context) (release func(), err error) {
	if !g.lim.AllowN(g.clk.Now(), 1) {
		return nil, ErrTooManyReviews
	}
	select {
	case g.sem <- struct{}{}:
		return func() { <-g.sem }, nil
	default:
	}
	if g.onWait != nil {
		g.onWait()
	}
	select {
	case g.sem <- struct{}{}:
		return func() { <-g.sem }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: waiting for a slot: %w", ErrTooManyReviews, ctx.Err())
	}
}
