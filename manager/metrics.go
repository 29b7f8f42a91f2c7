package manager

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
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
