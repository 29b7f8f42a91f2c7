package promreg

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// ErrOtherType: a collector of another Go type is registered under the
// description of the one asked for (prometheus.AlreadyRegisteredError
// with an ExistingCollector that the caller cannot use).
var ErrOtherType = errors.New("promreg: a collector of another type is registered under the same description")

// Register registers c with reg and returns it; when reg already holds a
// collector under c's description (prometheus.AlreadyRegisteredError) of
// c's Go type, it returns that one instead, so that every caller asking
// for the family fills the same one. Any other failure is returned, and c
// is not registered. A nil reg registers nothing and returns c.
func Register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	if reg == nil {
		return c, nil
	}
	err := reg.Register(c)
	if err == nil {
		return c, nil
	}
	var are prometheus.AlreadyRegisteredError
	if !errors.As(err, &are) {
		return c, err
	}
	existing, ok := are.ExistingCollector.(C)
	if !ok {
		return c, fmt.Errorf("%w: %T, not %T", ErrOtherType, are.ExistingCollector, c)
	}
	return existing, nil
}

// Keep is Register for a run of families registered one after another:
// it returns what Register returns and keeps the first failure in *errp,
// so that the caller checks once after the run.
func Keep[C prometheus.Collector](reg prometheus.Registerer, c C, errp *error) C {
	got, err := Register(reg, c)
	if err != nil && *errp == nil {
		*errp = err
	}
	return got
}
