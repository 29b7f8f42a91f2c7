package promreg_test

import (
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/internal/promreg"
)

func counter(help string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: "things_total", Help: help}, []string{"l"})
}

// TestRegisterReusesExisting: the second Register of a family returns the
// collector the first registered, not its own.
func TestRegisterReusesExisting(t *testing.T) {
	reg := prometheus.NewRegistry()
	first, err := promreg.Register(reg, counter("Things."))
	if err != nil {
		t.Fatal(err)
	}
	second := counter("Things.")
	got, err := promreg.Register(reg, second)
	if err != nil {
		t.Fatal(err)
	}
	if got != first || got == second {
		t.Fatalf("Register returned %p, want the registered %p (not its own %p)", got, first, second)
	}
}

// TestRegisterFailures: a clash that is not "the same family again" is an
// error, and the caller's collector is the one returned (unregistered).
func TestRegisterFailures(t *testing.T) {
	for _, tc := range []struct {
		name     string
		existing prometheus.Collector
		want     error // nil: any error
	}{
		{"same description, another type",
			prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "things_total", Help: "Things."}, []string{"l"}), promreg.ErrOtherType},
		{"same name, other help", counter("Other things."), nil},
		{"same name, other labels",
			prometheus.NewCounterVec(prometheus.CounterOpts{Name: "things_total", Help: "Things."}, []string{"m"}), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			reg.MustRegister(tc.existing)
			mine := counter("Things.")
			got, err := promreg.Register(reg, mine)
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if got != mine {
				t.Fatalf("Register returned %p, want the caller's %p", got, mine)
			}
		})
	}
}

// TestKeepKeepsFirstFailure: Keep registers a run and reports its first
// failure only.
func TestKeepKeepsFirstFailure(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewGauge(prometheus.GaugeOpts{Name: "a", Help: "clash"}))
	var err error
	promreg.Keep(reg, prometheus.NewCounter(prometheus.CounterOpts{Name: "a", Help: "A."}), &err)
	first := err
	promreg.Keep(reg, prometheus.NewCounter(prometheus.CounterOpts{Name: "a", Help: "A again."}), &err)
	ok := promreg.Keep(reg, prometheus.NewCounter(prometheus.CounterOpts{Name: "b", Help: "B."}), &err)
	if first == nil || err != first {
		t.Fatalf("err = %v, want the first failure %v", err, first)
	}
	ok.Inc()
	if n, _ := reg.Gather(); len(n) != 2 {
		t.Fatalf("%d families registered, want a and b", len(n))
	}
}

// TestNilRegisterer: no registry, nothing registered, the collector back.
func TestNilRegisterer(t *testing.T) {
	c := counter("Things.")
	if got, err := promreg.Register(nil, c); got != c || err != nil {
		t.Fatalf("Register(nil) = %p, %v", got, err)
	}
}
