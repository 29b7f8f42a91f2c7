package processor

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/internal/promreg"
)

// newPanicCounter returns the informer_handler_panics_total family
// registered with reg, or the identical family a processor registered
// earlier with the same reg (every informer's processor shares one). A nil
// reg means no metrics.
func newPanicCounter(reg prometheus.Registerer) (*prometheus.CounterVec, error) {
	if reg == nil {
		return nil, nil
	}
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "informer_handler_panics_total",
		Help: "Event handler calls that panicked and were recovered, by informer and handler.",
	}, []string{"informer", "handler"})
	c, err := promreg.Register(reg, c)
	if err != nil {
		return nil, fmt.Errorf("processor: registering informer_handler_panics_total: %w", err)
	}
	return c, nil
}
