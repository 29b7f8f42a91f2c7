package queue

import (
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/internal/promreg"
)

// Metrics holds the workqueue metric families, registered once per
// prometheus.Registerer and shared by every queue that is given it; each
// queue fills the series labelled with its Config.Name. The names and label
// are client-go's, so dashboards written for kube-controller-manager work.
//
// Nothing is registered at import time. A nil *Metrics means no metrics, and
// the queue then does no metric work at all.
type Metrics struct {
	depth      *prometheus.GaugeVec
	adds       *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	work       *prometheus.HistogramVec
	unfinished *prometheus.GaugeVec
	longest    *prometheus.GaugeVec
	retries    *prometheus.CounterVec
}

// metricsPeriod is how often a queue refreshes its unfinished-work and
// longest-running gauges (client-go: 500 ms).
const metricsPeriod = 500 * time.Millisecond

// durationBuckets span 10 ns to 10 s by factors of ten, as client-go's do.
var durationBuckets = prometheus.ExponentialBuckets(10e-9, 10, 10)

// NewMetrics creates the workqueue metric families and registers them with
// reg. Calling it again with the same reg returns families backed by the
// already registered collectors, so it is safe to call per queue.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	if reg == nil {
		return nil, errors.New("queue: NewMetrics needs a prometheus.Registerer")
	}
	name := []string{"name"}
	m := &Metrics{
		depth: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "workqueue", Name: "depth",
			Help: "Number of keys waiting to be processed."}, name),
		adds: prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: "workqueue", Name: "adds_total",
			Help: "Number of adds that made a key pending (duplicates of a pending key are not counted)."}, name),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: "workqueue", Name: "queue_duration_seconds",
			Help: "Seconds a key waits between becoming pending and being handed to a worker.", Buckets: durationBuckets}, name),
		work: prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: "workqueue", Name: "work_duration_seconds",
			Help: "Seconds a worker holds a key, from Get to Done.", Buckets: durationBuckets}, name),
		unfinished: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "workqueue", Name: "unfinished_work_seconds",
			Help: "Sum of the seconds that the keys now held by workers have been held; a steady rise means stuck workers."}, name),
		longest: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "workqueue", Name: "longest_running_processor_seconds",
			Help: "Seconds the longest-held key now held by a worker has been held."}, name),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: "workqueue", Name: "retries_total",
			Help: "Number of rate-limited re-adds (AddRateLimited)."}, name),
	}
	var err error
	m.depth = promreg.Keep(reg, m.depth, &err)
	m.adds = promreg.Keep(reg, m.adds, &err)
	m.latency = promreg.Keep(reg, m.latency, &err)
	m.work = promreg.Keep(reg, m.work, &err)
	m.unfinished = promreg.Keep(reg, m.unfinished, &err)
	m.longest = promreg.Keep(reg, m.longest, &err)
	m.retries = promreg.Keep(reg, m.retries, &err)
	if err != nil {
		return nil, fmt.Errorf("queue: registering workqueue metrics: %w", err)
	}
	return m, nil
}

// queueMetrics is one queue's view of Metrics plus the timestamps it needs.
// All methods are called with the queue's mutex held.
type queueMetrics[K comparable] struct {
	clock      clock.Clock
	depth      prometheus.Gauge
	adds       prometheus.Counter
	latency    prometheus.Observer
	work       prometheus.Observer
	unfinished prometheus.Gauge
	longest    prometheus.Gauge
	retries    prometheus.Counter

	// addedAt holds when each dirty key became dirty.
	addedAt map[K]time.Time
	// startedAt holds when each processing key was handed to a worker.
	startedAt map[K]time.Time
}

func newQueueMetrics[K comparable](m *Metrics, name string, clk clock.Clock) *queueMetrics[K] {
	return &queueMetrics[K]{
		clock:      clk,
		depth:      m.depth.WithLabelValues(name),
		adds:       m.adds.WithLabelValues(name),
		latency:    m.latency.WithLabelValues(name),
		work:       m.work.WithLabelValues(name),
		unfinished: m.unfinished.WithLabelValues(name),
		longest:    m.longest.WithLabelValues(name),
		retries:    m.retries.WithLabelValues(name),
		addedAt:    make(map[K]time.Time),
		startedAt:  make(map[K]time.Time),
	}
}

// addedLocked records that k became dirty.
func (m *queueMetrics[K]) addedLocked(k K) {
	m.adds.Inc()
	m.depth.Inc()
	if _, ok := m.addedAt[k]; !ok {
		m.addedAt[k] = m.clock.Now()
	}
}

// gotLocked records that k was handed to a worker.
func (m *queueMetrics[K]) gotLocked(k K) {
	now := m.clock.Now()
	m.depth.Dec()
	if t, ok := m.addedAt[k]; ok {
		m.latency.Observe(now.Sub(t).Seconds())
		delete(m.addedAt, k)
	}
	m.startedAt[k] = now
}

// doneLocked records that a worker finished k.
func (m *queueMetrics[K]) doneLocked(k K) {
	if t, ok := m.startedAt[k]; ok {
		m.work.Observe(m.clock.Since(t).Seconds())
		delete(m.startedAt, k)
	}
}

// refreshLocked sets the unfinished-work and longest-running gauges from the
// keys held by workers now.
func (m *queueMetrics[K]) refreshLocked() {
	now := m.clock.Now()
	var total, longest float64
	for _, t := range m.startedAt {
		age := now.Sub(t).Seconds()
		total += age
		longest = max(longest, age)
	}
	m.unfinished.Set(total)
	m.longest.Set(longest)
}
