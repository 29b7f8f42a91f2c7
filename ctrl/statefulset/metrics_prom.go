package statefulset

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/internal/promreg"
)

// Metrics are kube-controller-manager's statefulset_controller_* gauges
// (pkg/controller/statefulset/metrics): component-base names a family
// <subsystem>_<name>, so the series are
// statefulset_controller_statefulset_max_unavailable and
// statefulset_controller_statefulset_unavailable_replicas, labelled
// statefulset_namespace, statefulset_name and pod_management_policy, with
// its help texts behind the stability level ("[ALPHA] ", which
// component-base writes in front). The third family,
// statefulset_controller_stale_sync_skips_total, is the kit's
// (ctrl.Metrics.StaleSyncSkips).
//
// Nothing is registered at import time: NewMetrics registers the gauges
// on the Registerer it is given. A nil *Metrics records nothing.
type Metrics struct {
	maxUnavailable, unavailable *prometheus.GaugeVec
}

const subsystem = "statefulset_controller"

var setLabels = []string{"statefulset_namespace", "statefulset_name", "pod_management_policy"}

// NewMetrics creates the gauges and registers them with reg. Calling it
// again with the same reg returns gauges backed by the collectors already
// registered.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	if reg == nil {
		return nil, errors.New("statefulset: NewMetrics needs a prometheus.Registerer")
	}
	var err error
	m := &Metrics{
		maxUnavailable: promreg.Keep(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: subsystem,
			Name: "statefulset_max_unavailable",
			Help: "[ALPHA] Maximum number of unavailable pods allowed during StatefulSet rolling updates"}, setLabels), &err),
		unavailable: promreg.Keep(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: subsystem,
			Name: "statefulset_unavailable_replicas",
			Help: "[ALPHA] Current number of unavailable pods in StatefulSet"}, setLabels), &err),
	}
	if err != nil {
		return nil, fmt.Errorf("statefulset: registering metrics: %w", err)
	}
	return m, nil
}

// SetMaxUnavailable sets the maxUnavailable a rolling update of the set
// allows (upstream sets it on every rolling-update pass).
func (m *Metrics) SetMaxUnavailable(namespace, name, policy string, v int) {
	if m != nil {
		m.maxUnavailable.WithLabelValues(namespace, name, policy).Set(float64(v))
	}
}

// SetUnavailableReplicas sets how many of the set's pods are missing or
// not available.
func (m *Metrics) SetUnavailableReplicas(namespace, name, policy string, v int) {
	if m != nil {
		m.unavailable.WithLabelValues(namespace, name, policy).Set(float64(v))
	}
}

// Forget drops every series of the set namespace/name, whatever its
// policy: the sync of a set that is gone calls it. kube-controller-manager
// keeps a deleted set's series until it restarts; kcm does not export
// sets that no longer exist.
func (m *Metrics) Forget(namespace, name string) {
	if m == nil {
		return
	}
	match := prometheus.Labels{"statefulset_namespace": namespace, "statefulset_name": name}
	m.maxUnavailable.DeletePartialMatch(match)
	m.unavailable.DeletePartialMatch(match)
}
