package lease

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/internal/promreg"
)

// masterStatusName is client-go's name for the gauge, so dashboards built
// for kube-controller-manager work unchanged.
const masterStatusName = "leader_election_master_status"

// newMasterStatus returns the gauge for lease name, registered on reg. A
// second elector on the same registry shares the first one's vector. With
// no registerer the gauge is still kept (and readable in tests), just not
// exported.
func newMasterStatus(reg prometheus.Registerer, name string) (prometheus.Gauge, error) {
	vec := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: masterStatusName,
		Help: "1 while this process leads the named lease, 0 while it is a candidate.",
	}, []string{"name"})
	vec, err := promreg.Register(reg, vec)
	if err != nil {
		return nil, fmt.Errorf("lease: registering %s: %w", masterStatusName, err)
	}
	g := vec.WithLabelValues(name)
	g.Set(0)
	return g, nil
}
