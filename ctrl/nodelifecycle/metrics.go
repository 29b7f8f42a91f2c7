package nodelifecycle

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/internal/promreg"
)

// Metrics are kube-controller-manager's node_collector_* families
// (pkg/controller/nodelifecycle/metrics.go): zone_health, zone_size and
// unhealthy_nodes_in_zone gauges and the evictions_total counter, each
// labelled zone (the zone key, ZoneKey, as upstream labels it), and the
// update_node_health_duration_seconds and
// update_all_nodes_health_duration_seconds histograms. The help texts
// carry the stability level as component-base writes it. A nil *Metrics
// records nothing.
type Metrics struct {
	zoneHealth, zoneSize, unhealthy *prometheus.GaugeVec
	evictions                       *prometheus.CounterVec
	nodeHealth, allNodesHealth      prometheus.Histogram
}

const subsystem = "node_collector"

// NewMetrics creates the families and registers them with reg; a second
// call with the same reg returns the ones already registered.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	if reg == nil {
		return nil, errors.New("nodelifecycle: NewMetrics needs a prometheus.Registerer")
	}
	zone := []string{"zone"}
	var err error
	m := &Metrics{
		zoneHealth: promreg.Keep(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: subsystem, Name: "zone_health",
			Help: "[ALPHA] Gauge measuring percentage of healthy nodes per zone."}, zone), &err),
		zoneSize: promreg.Keep(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: subsystem, Name: "zone_size",
			Help: "[ALPHA] Gauge measuring number of registered Nodes per zones."}, zone), &err),
		unhealthy: promreg.Keep(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: subsystem, Name: "unhealthy_nodes_in_zone",
			Help: "[ALPHA] Gauge measuring number of not Ready Nodes per zones."}, zone), &err),
		evictions: promreg.Keep(reg, prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: subsystem, Name: "evictions_total",
			Help: "[STABLE] Number of Node evictions that happened since current instance of NodeController started."}, zone), &err),
		nodeHealth: promreg.Keep(reg, prometheus.NewHistogram(prometheus.HistogramOpts{Subsystem: subsystem,
			Name:    "update_node_health_duration_seconds",
			Help:    "[ALPHA] Duration in seconds for NodeController to update the health of a single node.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 8)}), &err),
		allNodesHealth: promreg.Keep(reg, prometheus.NewHistogram(prometheus.HistogramOpts{Subsystem: subsystem,
			Name:    "update_all_nodes_health_duration_seconds",
			Help:    "[ALPHA] Duration in seconds for NodeController to update the health of all nodes.",
			Buckets: prometheus.ExponentialBuckets(0.01, 4, 8)}), &err),
	}
	if err != nil {
		return nil, fmt.Errorf("nodelifecycle: registering metrics: %w", err)
	}
	return m, nil
}

// setZone sets a zone's three gauges (handleDisruption).
func (m *Metrics) setZone(zone string, size, unhealthy int, healthPercent float64) {
	if m == nil {
		return
	}
	m.zoneSize.WithLabelValues(zone).Set(float64(size))
	m.zoneHealth.WithLabelValues(zone).Set(healthPercent)
	m.unhealthy.WithLabelValues(zone).Set(float64(unhealthy))
}

// evicted counts one node tainted NoExecute in zone; n = 0 initialises the
// zone's series (addPodEvictorForNewZone).
func (m *Metrics) evicted(zone string, n float64) {
	if m != nil {
		m.evictions.WithLabelValues(zone).Add(n)
	}
}

func (m *Metrics) observeNode(seconds float64) {
	if m != nil {
		m.nodeHealth.Observe(seconds)
	}
}

func (m *Metrics) observeAll(seconds float64) {
	if m != nil {
		m.allNodesHealth.Observe(seconds)
	}
}
