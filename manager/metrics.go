package manager

import (
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kcmlab/kcm/kube/rest"
)

// newRegistry returns the registry /metrics serves: the Go runtime and
// process collectors now; the leader gauge (leader_election_master_status),
// the informers' reflector series and the framework's workqueue and
// reconcile series are added by the elector and CreateControllerContext.
// One registry per Run: two managers in one process (tests) never share
// series.
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// metricsHandler serves reg in the Prometheus text (or OpenMetrics)
// format; a collector's error is logged by promhttp and the rest is served.
func metricsHandler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// restClientMetrics feeds client-go's rest_client_* series from every
// request the manager's clients send (kube-controller-manager registers
// the same names through k8s.io/component-base/metrics/prometheus/restclient).
type restClientMetrics struct {
	requests           *prometheus.CounterVec
	latency, rateLimit *prometheus.HistogramVec
}

// restClientBuckets are client-go's buckets for request latency.
var restClientBuckets = []float64{0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60}

func newRESTClientMetrics(reg prometheus.Registerer) (*restClientMetrics, error) {
	m := &restClientMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rest_client_requests_total",
			Help: "Number of HTTP requests, partitioned by status code, method, and host."}, []string{"code", "host", "method"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rest_client_request_duration_seconds",
			Help: "Request latency in seconds, to the response headers. Broken down by verb and host.", Buckets: restClientBuckets},
			[]string{"host", "verb"}),
		rateLimit: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rest_client_rate_limiter_duration_seconds",
			Help: "Client side rate limiter latency in seconds. Broken down by verb and host.", Buckets: restClientBuckets},
			[]string{"host", "verb"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.latency, m.rateLimit} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("registering rest_client metrics: %w", err)
		}
	}
	return m, nil
}

// Request implements rest.RequestMetrics.
func (m *restClientMetrics) Request(verb, host, code string, latency time.Duration) {
	m.requests.WithLabelValues(code, host, verb).Inc()
	m.latency.WithLabelValues(host, verb).Observe(latency.Seconds())
}

// RateLimited implements rest.RequestMetrics.
func (m *restClientMetrics) RateLimited(verb, host string, wait time.Duration) {
	m.rateLimit.WithLabelValues(host, verb).Observe(wait.Seconds())
}

var _ rest.RequestMetrics = (*restClientMetrics)(nil)
