package promreg_test

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/internal/promreg"
)

// Two components built on one registry ask for the same family: the
// second gets the first one's, so both fill one family.
func Example() {
	reg := prometheus.NewRegistry()
	family := func() *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: "widgets_total", Help: "Widgets."}, []string{"component"})
	}
	a, _ := promreg.Register(reg, family())
	b, err := promreg.Register(reg, family())
	a.WithLabelValues("a").Inc()
	b.WithLabelValues("b").Add(2)
	fams, _ := reg.Gather()
	fmt.Println(a == b, err, len(fams), len(fams[0].GetMetric()))
	// Output: true <nil> 1 2
}
