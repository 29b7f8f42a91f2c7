package rest

import (
	"strconv"
	"time"
)

// RequestMetrics receives one observation per request a Client sends, the
// way client-go's k8s.io/client-go/tools/metrics hooks feed
// rest_client_requests_total, rest_client_request_duration_seconds and
// rest_client_rate_limiter_duration_seconds. kube/rest stays free of any
// metrics library: the manager implements this with Prometheus.
type RequestMetrics interface {
	// Request: one attempt of verb to host ended with code ("200", "403",
	// or "<error>" when no response came) after latency (to the response
	// headers; a watch's stream is not included).
	Request(verb, host, code string, latency time.Duration)
	// RateLimited: the attempt waited this long for the client's rate
	// limiter first (0 included, as client-go reports it).
	RateLimited(verb, host string, wait time.Duration)
}

// WithRequestMetrics makes the client report every request to m. Clients
// derived with WithOptions keep m.
func WithRequestMetrics(m RequestMetrics) Option { return func(c *Client) { c.metrics = m } }

// observeRequest reports one attempt; status is 0 when no response came.
func (c *Client) observeRequest(verb string, status int, start time.Time) {
	if c.metrics == nil {
		return
	}
	code := "<error>"
	if status != 0 {
		code = strconv.Itoa(status)
	}
	c.metrics.Request(verb, c.base.Host, code, c.clock.Since(start))
}

// observeLimiter reports the rate limiter's wait for one attempt.
func (c *Client) observeLimiter(verb string, start time.Time) {
	if c.metrics != nil {
		c.metrics.RateLimited(verb, c.base.Host, c.clock.Since(start))
	}
}
