package ctrl

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/internal/promreg"
	"github.com/kcmlab/kcm/queue"
)

// Metrics are the framework's metric families, registered once per
// prometheus.Registerer and shared by every controller, each filling the
// series labelled with its name. The reconcile series carry
// controller-runtime's names, so its dashboards and alerts work unchanged;
// the queue's are client-go's workqueue series (label name=<controller>).
//
// Nothing is registered at import time; a nil *Metrics records nothing.
type Metrics struct {
	// Queue is handed to every controller's queue.
	Queue *queue.Metrics

	// reg is where the families are registered, and a controller's own
	// (StaleSyncSkips).
	reg prometheus.Registerer

	total    *prometheus.CounterVec
	errors   *prometheus.CounterVec
	terminal *prometheus.CounterVec
	panics   *prometheus.CounterVec
	time     *prometheus.HistogramVec
	workers  *prometheus.GaugeVec
	maxConc  *prometheus.GaugeVec
	events   *prometheus.CounterVec
}

// Registerer is where the families are registered, for a controller's
// own families (the endpointslice controller's endpoint_slice_controller_*
// series); nil for a nil Metrics (no Registerer configured).
func (m *Metrics) Registerer() prometheus.Registerer {
	if m == nil {
		return nil
	}
	return m.reg
}

// Reconcile results, the values of controller_runtime_reconcile_total's
// result label.
const (
	resultSuccess      = "success"
	resultError        = "error"
	resultRequeueAfter = "requeue_after"
	resultRequeue      = "requeue"
)

// reconcileBuckets are controller-runtime's reconcile-time buckets: fine
// below a second, where most syncs land, coarse up to a minute.
var reconcileBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5,
	0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60}

// NewMetrics creates the families and registers them with reg. Calling it
// again with the same reg returns families backed by the collectors
// already registered.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	if reg == nil {
		return nil, errors.New("ctrl: NewMetrics needs a prometheus.Registerer")
	}
	qm, err := queue.NewMetrics(reg)
	if err != nil {
		return nil, err
	}
	ctl := []string{"controller"}
	m := &Metrics{
		Queue: qm,
		reg:   reg,
		total: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_reconcile_total",
			Help: "Total number of reconciliations per controller, by result (success, error, requeue_after)."},
			[]string{"controller", "result"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_reconcile_errors_total",
			Help: "Total number of reconciliation errors per controller (panics and terminal errors included)."}, ctl),
		terminal: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_terminal_reconcile_errors_total",
			Help: "Total number of terminal reconciliation errors per controller (not retried)."}, ctl),
		panics: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_reconcile_panics_total",
			Help: "Total number of reconciliation panics per controller."}, ctl),
		time: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "controller_runtime_reconcile_time_seconds",
			Help: "Length of time per reconciliation per controller.", Buckets: reconcileBuckets}, ctl),
		workers: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "controller_runtime_active_workers",
			Help: "Number of workers (threads processing jobs from the work queue) per controller."}, ctl),
		maxConc: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "controller_runtime_max_concurrent_reconciles",
			Help: "Maximum number of concurrent reconciles per controller."}, ctl),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kcm_events_total",
			Help: "core/v1 Events per reporting component, by outcome (created, patched, spam_filtered, dropped, failed)."},
			[]string{"component", "outcome"}),
	}
	m.total = promreg.Keep(reg, m.total, &err)
	m.errors = promreg.Keep(reg, m.errors, &err)
	m.terminal = promreg.Keep(reg, m.terminal, &err)
	m.panics = promreg.Keep(reg, m.panics, &err)
	m.time = promreg.Keep(reg, m.time, &err)
	m.workers = promreg.Keep(reg, m.workers, &err)
	m.maxConc = promreg.Keep(reg, m.maxConc, &err)
	m.events = promreg.Keep(reg, m.events, &err)
	if err != nil {
		return nil, fmt.Errorf("ctrl: registering metrics: %w", err)
	}
	return m, nil
}

// loopMetrics is one controller's view of Metrics; the zero value (from
// a nil *Metrics) records nothing.
type loopMetrics struct {
	success, failure, requeueAfter, requeue prometheus.Counter
	errors, terminal, panics                prometheus.Counter
	time                                    prometheus.Observer
	workers, maxConc                        prometheus.Gauge
	on                                      bool
}

func newLoopMetrics(m *Metrics, name string) loopMetrics {
	if m == nil {
		return loopMetrics{}
	}
	return loopMetrics{
		on:           true,
		success:      m.total.WithLabelValues(name, resultSuccess),
		failure:      m.total.WithLabelValues(name, resultError),
		requeueAfter: m.total.WithLabelValues(name, resultRequeueAfter),
		requeue:      m.total.WithLabelValues(name, resultRequeue),
		errors:       m.errors.WithLabelValues(name),
		terminal:     m.terminal.WithLabelValues(name),
		panics:       m.panics.WithLabelValues(name),
		time:         m.time.WithLabelValues(name),
		workers:      m.workers.WithLabelValues(name),
		maxConc:      m.maxConc.WithLabelValues(name),
	}
}
