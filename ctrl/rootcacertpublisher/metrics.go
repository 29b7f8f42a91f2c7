package rootcacertpublisher

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/internal/promreg"
	"github.com/kcmlab/kcm/kube/rest"
)

// Subsystem is the prefix of the controller's metric names,
// kube-controller-manager's.
const Subsystem = "root_ca_cert_publisher"

// Metrics are kube-controller-manager's two series of the publisher, by
// HTTP code: root_ca_cert_publisher_sync_total and
// root_ca_cert_publisher_sync_duration_seconds (exponential buckets from
// 1ms, doubling, 15 of them; upstream's help text, which describes both as
// a number of syncs, kept verbatim). Nothing is registered at import time;
// a nil *Metrics records nothing.
type Metrics struct {
	total   *prometheus.CounterVec
	latency *prometheus.HistogramVec
}

// NewMetrics creates the series and registers them with reg; a second
// call on the same registry returns the ones registered by the first.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	if reg == nil {
		return nil, errors.New("rootcacertpublisher: NewMetrics needs a prometheus.Registerer")
	}
	var err error
	m := &Metrics{
		total: promreg.Keep(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: Subsystem, Name: "sync_total",
			Help: "Number of namespace syncs happened in root ca cert publisher.",
		}, []string{"code"}), &err),
		latency: promreg.Keep(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: Subsystem, Name: "sync_duration_seconds",
			Help:    "Number of namespace syncs happened in root ca cert publisher.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 15),
		}, []string{"code"}), &err),
	}
	if err != nil {
		return nil, fmt.Errorf("rootcacertpublisher: registering metrics: %w", err)
	}
	return m, nil
}

// observe counts one sync that ended with err after took.
func (m *Metrics) observe(err error, took time.Duration) {
	if m == nil {
		return
	}
	code := syncCode(err)
	m.total.WithLabelValues(code).Inc()
	m.latency.WithLabelValues(code).Observe(took.Seconds())
}

// syncCode is the code label: "200" for a success, the apiserver's status
// code for its error, "500" for anything else (upstream's recordMetrics).
func syncCode(err error) string {
	if err == nil {
		return "200"
	}
	var se *rest.StatusError
	if errors.As(err, &se) && se.Status.Code != 0 {
		return strconv.Itoa(int(se.Status.Code))
	}
	return "500"
}
