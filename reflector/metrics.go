package reflector

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/internal/promreg"
	"github.com/kcmlab/kcm/kube/rest"
)

// Metrics are a reflector's Prometheus series, labelled with its Name.
// They carry the names client-go's reflector metrics had
// (k8s.io/client-go/tools/cache/reflector_metrics.go), so that dashboards
// written for them read kcm's, plus reflector_errors_total, which says why
// lists and watches end early (a 403 after an RBAC change shows there
// first).
type Metrics struct {
	lists, watches, shortWatches prometheus.Counter
	listDuration, watchDuration  prometheus.Observer
	itemsPerList, itemsPerWatch  prometheus.Observer
	lastRV                       prometheus.Gauge
	errors                       *prometheus.CounterVec // by op, reason
	name                         string
}

// families are the vectors every reflector of one registry shares.
type families struct {
	lists, watches, shortWatches                             *prometheus.CounterVec
	listDuration, watchDuration, itemsPerList, itemsPerWatch *prometheus.HistogramVec
	lastRV                                                   *prometheus.GaugeVec
	errors                                                   *prometheus.CounterVec
}

func newFamilies() families {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: "reflector", Name: name, Help: help},
			append([]string{"name"}, labels...))
	}
	histogram := func(name, help string, buckets []float64) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: "reflector", Name: name, Help: help,
			Buckets: buckets}, []string{"name"})
	}
	seconds := prometheus.ExponentialBuckets(0.005, 4, 10) // 5 ms … 22 min
	items := prometheus.ExponentialBuckets(1, 4, 10)       // 1 … 262144
	return families{
		lists:         counter("lists_total", "Lists (and WatchList streams) started, by reflector."),
		watches:       counter("watches_total", "Watches started, by reflector."),
		shortWatches:  counter("short_watches_total", "Watches that ended within a second without an event (the reflector backs off)."),
		listDuration:  histogram("list_duration_seconds", "How long a complete list took, all pages.", seconds),
		watchDuration: histogram("watch_duration_seconds", "How long a watch lasted.", seconds),
		itemsPerList:  histogram("items_per_list", "Objects in a complete list.", items),
		itemsPerWatch: histogram("items_per_watch", "Events a watch delivered.", items),
		lastRV: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "reflector", Name: "last_resource_version",
			Help: "The resourceVersion the reflector last synced to (0 when not numeric)."}, []string{"name"}),
		errors: counter("errors_total", "Lists and watches that ended with an error, by operation and reason "+
			"(a Kubernetes Status reason or HTTP code, else timeout, connection, refused or other).", "op", "reason"),
	}
}

// NewMetrics registers the reflector families with reg (or finds the ones
// another reflector registered there) and returns the series of the
// reflector called name, for Options.Metrics. A nil reg means no metrics
// (a nil *Metrics records nothing).
func NewMetrics(reg prometheus.Registerer, name string) (*Metrics, error) {
	if reg == nil {
		return nil, nil
	}
	f := newFamilies()
	var err error
	f.lists = promreg.Keep(reg, f.lists, &err)
	f.watches = promreg.Keep(reg, f.watches, &err)
	f.shortWatches = promreg.Keep(reg, f.shortWatches, &err)
	f.listDuration = promreg.Keep(reg, f.listDuration, &err)
	f.watchDuration = promreg.Keep(reg, f.watchDuration, &err)
	f.itemsPerList = promreg.Keep(reg, f.itemsPerList, &err)
	f.itemsPerWatch = promreg.Keep(reg, f.itemsPerWatch, &err)
	f.lastRV = promreg.Keep(reg, f.lastRV, &err)
	f.errors = promreg.Keep(reg, f.errors, &err)
	if err != nil {
		return nil, fmt.Errorf("reflector: registering metrics: %w", err)
	}
	return &Metrics{
		lists: f.lists.WithLabelValues(name), watches: f.watches.WithLabelValues(name),
		shortWatches: f.shortWatches.WithLabelValues(name),
		listDuration: f.listDuration.WithLabelValues(name), watchDuration: f.watchDuration.WithLabelValues(name),
		itemsPerList: f.itemsPerList.WithLabelValues(name), itemsPerWatch: f.itemsPerWatch.WithLabelValues(name),
		lastRV: f.lastRV.WithLabelValues(name), errors: f.errors, name: name,
	}, nil
}

// The methods below are no-ops on a nil *Metrics (no registry).

func (m *Metrics) listStarted() {
	if m != nil {
		m.lists.Inc()
	}
}

func (m *Metrics) listFinished(items int, took time.Duration, rv string) {
	if m != nil {
		m.listDuration.Observe(took.Seconds())
		m.itemsPerList.Observe(float64(items))
		m.synced(rv)
	}
}

func (m *Metrics) watchStarted() {
	if m != nil {
		m.watches.Inc()
	}
}

func (m *Metrics) watchFinished(events int, took time.Duration) {
	if m != nil {
		m.watchDuration.Observe(took.Seconds())
		m.itemsPerWatch.Observe(float64(events))
	}
}

func (m *Metrics) shortWatch() {
	if m != nil {
		m.shortWatches.Inc()
	}
}

func (m *Metrics) synced(rv string) {
	if m != nil {
		v, _ := strconv.ParseFloat(rv, 64)
		m.lastRV.Set(v)
	}
}

func (m *Metrics) failed(op string, err error) {
	if m != nil {
		m.errors.WithLabelValues(m.name, op, errorReason(err)).Inc()
	}
}

// errorReason sorts an error into a bounded set of label values: the
// Status reason of an API error ("Forbidden", "Gone", …), else timeout,
// connection (a connection lost, refused or reset), refused (the sink
// refused an object) or other.
func errorReason(err error) string {
	var se *rest.StatusError
	switch {
	case errors.Is(err, ErrRefused):
		return "refused"
	case errors.As(err, &se):
		if knownReasons[string(se.Status.Reason)] {
			return string(se.Status.Reason)
		}
		if c := se.Status.Code; c >= 100 && c < 600 {
			return strconv.Itoa(int(c))
		}
		return "other"
	case errors.Is(err, rest.ErrIdleTimeout), errors.Is(err, rest.ErrListPageTimeout), isTimeout(err):
		return "timeout"
	case errors.Is(err, rest.ErrConnectionLost):
		return "connection"
	}
	return "other"
}

// isTimeout reports a network or context timeout.
func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// knownReasons are the Status reasons Kubernetes defines
// (metav1.StatusReason): a label takes only these, so that a server cannot
// grow the series without bound by inventing reasons.
var knownReasons = map[string]bool{
	"Unauthorized": true, "Forbidden": true, "NotFound": true, "AlreadyExists": true, "Conflict": true,
	"Gone": true, "Invalid": true, "ServerTimeout": true, "Timeout": true, "TooManyRequests": true,
	"BadRequest": true, "MethodNotAllowed": true, "NotAcceptable": true, "RequestEntityTooLarge": true,
	"UnsupportedMediaType": true, "InternalError": true, "Expired": true, "ServiceUnavailable": true,
}
