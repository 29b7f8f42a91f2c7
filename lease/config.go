package lease

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
)

// Defaults, as kube-controller-manager ships them
// (--leader-elect-lease-duration, --leader-elect-renew-deadline,
// --leader-elect-retry-period, --leader-elect-resource-namespace,
// --leader-elect-resource-name).
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
	DefaultNamespace     = "kube-system"
	DefaultName          = "kube-controller-manager"
	// DefaultHealthTolerance is how long past LeaseDuration a leader may go
	// without renewing before Healthz fails; kube-controller-manager builds
	// its leader-election healthz adaptor with 20 s.
	DefaultHealthTolerance = 20 * time.Second
)

// retryFactor is the margin RenewDeadline must keep over RetryPeriod: a
// leader must get more than one renewal attempt before its deadline.
// client-go calls the same number JitterFactor.
const retryFactor = 1.2

// Callbacks are the elector's hooks. Each runs outside the election loop, so
// a slow callback never delays a renewal.
type Callbacks struct {
	// OnStartedLeading runs in its own goroutine when this candidate becomes
	// leader. ctx is cancelled the moment leadership ends; the callback must
	// stop acting and return promptly then, because Run waits for it.
	// Required.
	OnStartedLeading func(ctx context.Context)
	// OnStoppedLeading runs once after leadership ended and OnStartedLeading
	// returned (and after the release, with ReleaseOnCancel). It runs only
	// if OnStartedLeading ran. Optional.
	OnStoppedLeading func()
	// OnNewLeader receives each new holder identity this candidate observes,
	// its own included (a lease with no holder is not reported). Calls are made in order from one goroutine; a
	// slow callback may miss intermediate holders, never the latest one.
	// Optional.
	OnNewLeader func(identity string)
}

// Config configures an Elector. Zero durations and empty strings take the
// defaults above; Validate checks what is left.
type Config struct {
	// Namespace and Name locate the Lease (for New) and label the metric
	// and logs (for every store).
	Namespace, Name string
	// Identity is this candidate's holderIdentity; "" means DefaultIdentity().
	// It must be unique among candidates: two processes with one identity
	// both believe they hold the lease.
	Identity string

	// LeaseDuration is how long a candidate waits, after it observed the
	// last change to the lease, before it may take the lease over.
	LeaseDuration time.Duration
	// RenewDeadline is how long a leader keeps acting without a successful
	// renewal; then it steps down. Must be shorter than LeaseDuration.
	RenewDeadline time.Duration
	// RetryPeriod is the pause between attempts to acquire or renew.
	RetryPeriod time.Duration

	// ReleaseOnCancel makes Run clear the holder when its ctx is cancelled
	// while leading (after OnStartedLeading returned), so another candidate
	// can take over at once instead of after LeaseDuration.
	ReleaseOnCancel bool
	// HealthTolerance is the slack Healthz allows past LeaseDuration.
	HealthTolerance time.Duration

	Callbacks Callbacks

	// Clock drives every timer; nil means clock.Real{}.
	Clock clock.Clock
	// Logger receives acquisitions, losses and new leaders. Zero value: nop.
	Logger zerolog.Logger
	// Registerer, if set, receives the leader_election_master_status gauge.
	Registerer prometheus.Registerer
}

// ErrInvalidConfig is wrapped by every Validate error.
var ErrInvalidConfig = errors.New("lease: invalid config")

// ConfigError names the setting that is wrong and its value.
type ConfigError struct {
	Field string        // e.g. "RenewDeadline"
	Value time.Duration // the offending value (0 for non-duration fields)
	Rule  string        // what it must satisfy, e.g. "must be less than LeaseDuration (15s)"
}

func (e *ConfigError) Error() string {
	if e.Value == 0 {
		return fmt.Sprintf("%v: %s %s", ErrInvalidConfig, e.Field, e.Rule)
	}
	return fmt.Sprintf("%v: %s %v %s", ErrInvalidConfig, e.Field, e.Value, e.Rule)
}

// Unwrap makes errors.Is(err, ErrInvalidConfig) hold.
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// withDefaults returns c with every unset field defaulted. Identity is left
// alone (DefaultIdentity can fail; New handles it).
func (c Config) withDefaults() Config {
	if c.Namespace == "" {
		c.Namespace = DefaultNamespace
	}
	if c.Name == "" {
		c.Name = DefaultName
	}
	if c.LeaseDuration == 0 {
		c.LeaseDuration = DefaultLeaseDuration
	}
	if c.RenewDeadline == 0 {
		c.RenewDeadline = DefaultRenewDeadline
	}
	if c.RetryPeriod == 0 {
		c.RetryPeriod = DefaultRetryPeriod
	}
	if c.HealthTolerance == 0 {
		c.HealthTolerance = DefaultHealthTolerance
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	return c
}

// Validate checks that no duration is negative (zero means the default),
// then the timing rules, after defaults are applied:
//
//	LeaseDuration ≥ 1s (the Lease stores whole seconds)
//	LeaseDuration > RenewDeadline > 1.2 × RetryPeriod > 0
//
// and that OnStartedLeading is set. The first rule broken is returned as a
// *ConfigError.
func (c Config) Validate() error {
	if c.RetryPeriod < 0 {
		return &ConfigError{"RetryPeriod", c.RetryPeriod, "must be positive"}
	}
	if c.RenewDeadline < 0 {
		return &ConfigError{"RenewDeadline", c.RenewDeadline, "must be positive"}
	}
	if c.HealthTolerance < 0 {
		return &ConfigError{"HealthTolerance", c.HealthTolerance, "must not be negative"}
	}
	c = c.withDefaults()
	if c.LeaseDuration < time.Second {
		return &ConfigError{"LeaseDuration", c.LeaseDuration, "must be at least 1s"}
	}
	if c.LeaseDuration <= c.RenewDeadline {
		return &ConfigError{"LeaseDuration", c.LeaseDuration,
			fmt.Sprintf("must be greater than RenewDeadline (%v)", c.RenewDeadline)}
	}
	if float64(c.RenewDeadline) <= retryFactor*float64(c.RetryPeriod) {
		return &ConfigError{"RenewDeadline", c.RenewDeadline,
			fmt.Sprintf("must be greater than %v × RetryPeriod (%v)", retryFactor, c.RetryPeriod)}
	}
	if c.Callbacks.OnStartedLeading == nil {
		return &ConfigError{Field: "Callbacks.OnStartedLeading", Rule: "is required"}
	}
	return nil
}
