package lease

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
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
	if reg != nil {
		if err := reg.Register(vec); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return nil, err
			}
			existing, ok := are.ExistingCollector.(*prometheus.GaugeVec)
			if !ok {
				return nil, err
			}
			vec = existing
		}
	}
	g := vec.WithLabelValues(name)
	g.Set(0)
	return g, nil
}
