package reconciler

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/internal/promreg"
)

// Metrics are kube-controller-manager's endpoint_slice_controller_*
// families (k8s.io/endpointslice/metrics), with its names, labels,
// buckets and help texts (component-base prefixes the help with the
// stability level, and so does kcm). Nothing is registered at import
// time: NewMetrics registers them on the Registerer it is given. A nil
// *Metrics records nothing.
type Metrics struct {
	added, removed *prometheus.HistogramVec
	desired        *prometheus.GaugeVec
	numSlices      *prometheus.GaugeVec
	desiredSlices  *prometheus.GaugeVec
	changes        *prometheus.CounterVec
	changedPerSync *prometheus.HistogramVec
	syncs          *prometheus.CounterVec
	byTrafficDist  *prometheus.GaugeVec
}

// The endpoint_slice_controller_changes operations and syncs results.
const (
	opCreate = "create"
	opUpdate = "update"
	opDelete = "delete"

	SyncSuccess = "success"
	SyncStale   = "stale"
	SyncError   = "error"
)

const subsystem = "endpoint_slice_controller"

// NewMetrics creates the families and registers them with reg. Calling it
// again with the same reg returns families backed by the collectors
// already registered.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	if reg == nil {
		return nil, errors.New("reconciler: NewMetrics needs a prometheus.Registerer")
	}
	perSync := prometheus.ExponentialBuckets(2, 2, 15)
	m := &Metrics{
		added: prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: subsystem, Name: "endpoints_added_per_sync",
			Help: "[BETA] Number of endpoints added on each Service sync", Buckets: perSync}, nil),
		removed: prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: subsystem, Name: "endpoints_removed_per_sync",
			Help: "[BETA] Number of endpoints removed on each Service sync", Buckets: perSync}, nil),
		desired: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: subsystem, Name: "endpoints_desired",
			Help: "[BETA] Number of endpoints desired"}, nil),
		numSlices: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: subsystem, Name: "num_endpoint_slices",
			Help: "[BETA] Number of EndpointSlices"}, nil),
		desiredSlices: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: subsystem, Name: "desired_endpoint_slices",
			Help: "[BETA] Number of EndpointSlices that would exist with perfect endpoint allocation"}, nil),
		changes: prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: subsystem, Name: "changes",
			Help: "[ALPHA] Number of EndpointSlice changes"}, []string{"operation"}),
		changedPerSync: prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: subsystem, Name: "endpointslices_changed_per_sync",
			Help: "[ALPHA] Number of EndpointSlices changed on each Service sync", Buckets: prometheus.DefBuckets},
			[]string{"topology", "traffic_distribution"}),
		syncs: prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: subsystem, Name: "syncs",
			Help: "[ALPHA] Number of EndpointSlice syncs"}, []string{"result"}),
		byTrafficDist: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: subsystem, Name: "services_count_by_traffic_distribution",
			Help: "[BETA] Number of Services using some specific trafficDistribution"}, []string{"traffic_distribution"}),
	}
	var err error
	m.added = promreg.Keep(reg, m.added, &err)
	m.removed = promreg.Keep(reg, m.removed, &err)
	m.desired = promreg.Keep(reg, m.desired, &err)
	m.numSlices = promreg.Keep(reg, m.numSlices, &err)
	m.desiredSlices = promreg.Keep(reg, m.desiredSlices, &err)
	m.changes = promreg.Keep(reg, m.changes, &err)
	m.changedPerSync = promreg.Keep(reg, m.changedPerSync, &err)
	m.syncs = promreg.Keep(reg, m.syncs, &err)
	m.byTrafficDist = promreg.Keep(reg, m.byTrafficDist, &err)
	if err != nil {
		return nil, fmt.Errorf("reconciler: registering metrics: %w", err)
	}
	return m, nil
}

// ObserveSync counts one sync of the controller by its result
// (endpoint_slice_controller_syncs): "stale" for ErrStaleInformerCache,
// "error" for any other error, else "success" (the controller's
// trackSync).
func (m *Metrics) ObserveSync(err error) {
	if m == nil {
		return
	}
	result := SyncSuccess
	switch {
	case errors.Is(err, ErrStaleInformerCache):
		result = SyncStale
	case err != nil:
		result = SyncError
	}
	m.syncs.WithLabelValues(result).Inc()
}

func (m *Metrics) change(op string) {
	if m != nil {
		m.changes.WithLabelValues(op).Inc()
	}
}

func (m *Metrics) perSync(added, removed int) {
	if m != nil {
		m.added.WithLabelValues().Observe(float64(added))
		m.removed.WithLabelValues().Observe(float64(removed))
	}
}

func (m *Metrics) slicesChanged(topology, trafficDistribution string, n int) {
	if m != nil {
		m.changedPerSync.WithLabelValues(topology, trafficDistribution).Observe(float64(n))
	}
}
