package podgc

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/internal/promreg"
)

// Subsystem is the prefix of the controller's metric names,
// kube-controller-manager's (pkg/controller/podgc/metrics).
const Subsystem = "pod_gc_collector"

// The values of the reason label: which rule force-deleted the pod
// (upstream's PodGCReason* constants).
const (
	// ReasonTerminated: beyond --terminated-pod-gc-threshold.
	ReasonTerminated = "terminated"
	// ReasonOutOfService: terminating on a not-ready node tainted
	// node.kubernetes.io/out-of-service.
	ReasonOutOfService = "out-of-service"
	// ReasonOrphaned: bound to a node that no longer exists.
	ReasonOrphaned = "orphaned"
	// ReasonUnscheduled: terminating and bound to no node.
	ReasonUnscheduled = "unscheduled"
)

// Metrics are the controller's two counters, by namespace and reason,
// with kube-controller-manager's names and help texts:
// pod_gc_collector_force_delete_pods_total (every force deletion
// attempted, failed ones included, as upstream counts) and
// pod_gc_collector_force_delete_pod_errors_total (the attempts that
// failed, at the status patch or the delete). NewMetrics registers them
// on a caller's registry; nothing is registered at import time, and a nil
// *Metrics records nothing.
type Metrics struct {
	deleting, errors *prometheus.CounterVec
}

// NewMetrics creates the counters and registers them with reg; a second
// call on the same registry returns the counters registered by the first
// (one manager, one set of series).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	if reg == nil {
		return nil, fmt.Errorf("podgc: NewMetrics needs a prometheus.Registerer")
	}
	var err error
	m := &Metrics{
		deleting: promreg.Keep(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: Subsystem, Name: "force_delete_pods_total",
			Help: "Number of pods that are being forcefully deleted since the Pod GC Controller started.",
		}, []string{"namespace", "reason"}), &err),
		errors: promreg.Keep(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: Subsystem, Name: "force_delete_pod_errors_total",
			Help: "Number of errors encountered when forcefully deleting the pods since the Pod GC Controller started.",
		}, []string{"namespace", "reason"}), &err),
	}
	if err != nil {
		return nil, fmt.Errorf("podgc: registering metrics: %w", err)
	}
	return m, nil
}

// attempt counts one force deletion of a pod of ns for reason, and its
// failure when failed.
func (m *Metrics) attempt(ns, reason string, failed bool) {
	if m == nil {
		return
	}
	m.deleting.WithLabelValues(ns, reason).Inc()
	if failed {
		m.errors.WithLabelValues(ns, reason).Inc()
	}
}
