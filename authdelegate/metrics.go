package authdelegate

import (
	"errors"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/internal/promreg"
	"github.com/kcmlab/kcm/kube/rest"
)

// reviewMetrics are k8s.io/apiserver's delegated authentication or
// authorization metrics, under their names: requests sent, and their
// latency, by the HTTP status code of the answer ("<error>" when none
// came back).
type reviewMetrics struct {
	total   *prometheus.CounterVec
	latency *prometheus.HistogramVec
}

// newReviewMetrics registers the families of kind ("authn" for
// TokenReviews, "authz" for SubjectAccessReviews) with reg; nil reg
// registers nothing.
func newReviewMetrics(reg prometheus.Registerer, kind string) (*reviewMetrics, error) {
	var err error
	m := &reviewMetrics{
		total: promreg.Keep(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_delegated_" + kind + "_request_total",
			Help: "Number of HTTP requests partitioned by status code.",
		}, []string{"code"}), &err),
		latency: promreg.Keep(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_delegated_" + kind + "_request_duration_seconds",
			Help:    "Request latency in seconds. Broken down by status code.",
			Buckets: []float64{0.25, 0.5, 0.7, 1, 1.5, 3, 5, 10},
		}, []string{"code"}), &err),
	}
	return m, err
}

// observe records one review: err is RawPost's.
func (m *reviewMetrics) observe(err error, took time.Duration) {
	code := "201"
	var se *rest.StatusError
	switch {
	case errors.As(err, &se):
		code = strconv.Itoa(int(se.Status.Code))
	case err != nil:
		code = "<error>"
	}
	m.total.WithLabelValues(code).Inc()
	m.latency.WithLabelValues(code).Observe(took.Seconds())
}
