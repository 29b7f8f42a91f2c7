package endpointslicemirroring

import (
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/internal/promreg"
)

// Subsystem is the prefix of the controller's metric names,
// kube-controller-manager's.
const Subsystem = "endpoint_slice_mirroring_controller"

// The operation label values of endpoint_slice_mirroring_controller_changes.
const (
	opCreate = "create"
	opUpdate = "update"
	opDelete = "delete"
)

// Metrics are the controller's families, kube-controller-manager's
// endpoint_slice_mirroring_controller_* (pkg/controller/endpointslicemirroring/metrics)
// with their names, help texts, buckets and labels. NewMetrics registers
// them on a caller's registry; nothing is registered at import time, and
// a nil *Metrics records nothing.
type Metrics struct {
	added, updated, removed, skipped prometheus.Histogram
	syncDuration                     prometheus.Histogram
	desired, slices, desiredSlices   prometheus.Gauge
	changes                          *prometheus.CounterVec
}

// NewMetrics creates the families and registers them with reg; a second
// call on the same registry returns the families registered by the first.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	if reg == nil {
		return nil, fmt.Errorf("endpointslicemirroring: NewMetrics needs a prometheus.Registerer")
	}
	perSync := func(name, help string) prometheus.Histogram {
		return prometheus.NewHistogram(prometheus.HistogramOpts{Subsystem: Subsystem, Name: name, Help: help,
			Buckets: prometheus.ExponentialBuckets(2, 2, 15)})
	}
	gauge := func(name, help string) prometheus.Gauge {
		return prometheus.NewGauge(prometheus.GaugeOpts{Subsystem: Subsystem, Name: name, Help: help})
	}
	var err error
	m := &Metrics{}
	m.added = promreg.Keep(reg, perSync("endpoints_added_per_sync", "Number of endpoints added on each Endpoints sync"), &err)
	m.updated = promreg.Keep(reg, perSync("endpoints_updated_per_sync", "Number of endpoints updated on each Endpoints sync"), &err)
	m.removed = promreg.Keep(reg, perSync("endpoints_removed_per_sync", "Number of endpoints removed on each Endpoints sync"), &err)
	m.skipped = promreg.Keep(reg, perSync("addresses_skipped_per_sync",
		"Number of addresses skipped on each Endpoints sync due to being invalid or exceeding MaxEndpointsPerSubset"), &err)
	m.syncDuration = promreg.Keep(reg, prometheus.NewHistogram(prometheus.HistogramOpts{Subsystem: Subsystem,
		Name: "endpoints_sync_duration", Help: "Duration of syncEndpoints() in seconds",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 15)}), &err)
	m.desired = promreg.Keep(reg, gauge("endpoints_desired", "Number of endpoints desired"), &err)
	m.slices = promreg.Keep(reg, gauge("num_endpoint_slices", "Number of EndpointSlices"), &err)
	m.desiredSlices = promreg.Keep(reg, gauge("desired_endpoint_slices",
		"Number of EndpointSlices that would exist with perfect endpoint allocation"), &err)
	m.changes = promreg.Keep(reg, prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: Subsystem,
		Name: "changes", Help: "Number of EndpointSlice changes"}, []string{"operation"}), &err)
	if err != nil {
		return nil, fmt.Errorf("endpointslicemirroring: registering metrics: %w", err)
	}
	return m, nil
}

func (m *Metrics) observeSkipped(n int) {
	if m != nil {
		m.skipped.Observe(float64(n))
	}
}

func (m *Metrics) observeTotals(t totals) {
	if m != nil {
		m.added.Observe(float64(t.added))
		m.updated.Observe(float64(t.updated))
		m.removed.Observe(float64(t.removed))
	}
}

// observeSync records a sync's duration in seconds, at millisecond
// resolution as upstream records it.
func (m *Metrics) observeSync(d time.Duration) {
	if m != nil {
		m.syncDuration.Observe(float64(d.Milliseconds()) / 1000)
	}
}

func (m *Metrics) change(op string) {
	if m != nil {
		m.changes.WithLabelValues(op).Inc()
	}
}

// efficiency is one group's endpoints and the slices holding them
// (upstream's EfficiencyInfo).
type efficiency struct{ endpoints, slices int }

// metricsCache keeps, per Endpoints, its groups' efficiency, and sets the
// three gauges from the totals over every Endpoints (upstream's
// metrics.Cache): endpoints desired, slices, and the slices a perfect
// packing of maxPerSlice endpoints would need. Safe for concurrent use.
type metricsCache struct {
	m           *Metrics
	maxPerSlice int

	mu        sync.Mutex
	endpoints int
	byKey     map[string]map[groupKey]efficiency
}

func newMetricsCache(m *Metrics, maxPerSlice int32) *metricsCache {
	return &metricsCache{m: m, maxPerSlice: int(maxPerSlice), byKey: map[string]map[groupKey]efficiency{}}
}

// update replaces the efficiency recorded for the Endpoints key.
func (c *metricsCache) update(key string, groups map[groupKey]efficiency) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endpoints += countEndpoints(groups) - countEndpoints(c.byKey[key])
	c.byKey[key] = groups
	c.publish()
}

// remove forgets the Endpoints key.
func (c *metricsCache) remove(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if groups, ok := c.byKey[key]; ok {
		c.endpoints -= countEndpoints(groups)
		delete(c.byKey, key)
		c.publish()
	}
}

// totals are the values the gauges show: endpoints desired, slices, and
// slices desired. Called with mu held.
func (c *metricsCache) totals() (endpoints, slices, desiredSlices int) {
	for _, groups := range c.byKey {
		for _, e := range groups {
			slices += e.slices
			desiredSlices += (e.endpoints + c.maxPerSlice - 1) / c.maxPerSlice
		}
	}
	return c.endpoints, slices, desiredSlices
}

func (c *metricsCache) publish() {
	if c.m == nil {
		return
	}
	endpoints, slices, desiredSlices := c.totals()
	c.m.desired.Set(float64(endpoints))
	c.m.slices.Set(float64(slices))
	c.m.desiredSlices.Set(float64(desiredSlices))
}

func countEndpoints(groups map[groupKey]efficiency) int {
	n := 0
	for _, e := range groups {
		n += e.endpoints
	}
	return n
}
