package tainteviction

import (
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/internal/promreg"
)

// Metrics are kube-controller-manager's taint_eviction_controller_*
// families (pkg/controller/tainteviction/metrics): component-base names a
// family <subsystem>_<name>, so the series are
// taint_eviction_controller_pod_deletions_total (a counter) and
// taint_eviction_controller_pod_deletion_duration_seconds (a histogram
// with upstream's buckets, 5 ms to 4 min), with the help texts behind
// the stability level ("[ALPHA] ").
//
// Nothing is registered at import time: NewMetrics registers the families
// on the Registerer it is given. A nil *Metrics records nothing.
type Metrics struct {
	deletions prometheus.Counter
	latency   prometheus.Histogram
}

const subsystem = "taint_eviction_controller"

// deletionBuckets are upstream's buckets for the deletion latency.
var deletionBuckets = []float64{0.005, 0.025, 0.1, 0.5, 1, 2.5, 10, 30, 60, 120, 180, 240}

// NewMetrics creates the families and registers them with reg. Calling it
// again with the same reg returns the collectors already registered.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	if reg == nil {
		return nil, errors.New("tainteviction: NewMetrics needs a prometheus.Registerer")
	}
	var err error
	m := &Metrics{
		deletions: promreg.Keep(reg, prometheus.NewCounter(prometheus.CounterOpts{Subsystem: subsystem,
			Name: "pod_deletions_total",
			Help: "[ALPHA] Total number of Pods deleted by TaintEvictionController since its start."}), &err),
		latency: promreg.Keep(reg, prometheus.NewHistogram(prometheus.HistogramOpts{Subsystem: subsystem,
			Name: "pod_deletion_duration_seconds",
			Help: "[ALPHA] Latency, in seconds, between the time when a taint effect has been activated " +
				"for the Pod and its deletion via TaintEvictionController.",
			Buckets: deletionBuckets}), &err),
	}
	if err != nil {
		return nil, fmt.Errorf("tainteviction: registering metrics: %w", err)
	}
	return m, nil
}

// deleted counts one deletion, late by d after the time it was due.
// Upstream observes float64(time.Since(fireAt) * time.Second), a
// nanosecond count multiplied by 10^9, so every observation lands in its
// +Inf bucket; kcm observes the seconds the help text promises.
func (m *Metrics) deleted(d time.Duration) {
	if m == nil {
		return
	}
	m.deletions.Inc()
	m.latency.Observe(d.Seconds())
}
