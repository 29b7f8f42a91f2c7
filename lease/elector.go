package lease

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/rest"
)

// ErrAlreadyStarted is returned by a second call of Run: an Elector
// campaigns once. Make a new one to campaign again.
var ErrAlreadyStarted = errors.New("lease: Run called twice on one Elector")

// Elector campaigns for one Lease and runs Callbacks.OnStartedLeading while
// it holds it. Create it with New or NewWithStore, then call Run.
// IsLeader, Leader, Check and Healthz may be called from any goroutine.
type Elector struct {
	cfg   Config // defaulted and validated; Identity set
	me    Candidate
	store Store
	clk   clock.Clock
	log   zerolog.Logger
	gauge prometheus.Gauge

	started atomic.Bool // Run has been called

	mu sync.Mutex
	// leading and lastRenew mirror the run loop's State for readers on
	// other goroutines; guarded by mu. leading turns false the moment the
	// leader's context is cancelled, before anything else happens.
	leading   bool
	lastRenew time.Time
	// leader is the last holder identity observed ("" if none); guarded by mu.
	leader string
	// observed is the run loop's last State, for Status; guarded by mu.
	observed State
}

// New returns an Elector for the Lease cfg.Namespace/cfg.Name, read and
// written through c. Each request is bounded by RenewDeadline/2, so that a
// hung request leaves room for another attempt before the deadline.
func New(c *rest.Client, cfg Config) (*Elector, error) {
	d := cfg.withDefaults()
	return NewWithStore(NewKubeStore(c, d.Namespace, d.Name, d.RenewDeadline/2), cfg)
}

// NewWithStore returns an Elector that keeps its record in store.
// cfg.Name still labels the metric and the logs.
func NewWithStore(store Store, cfg Config) (*Elector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if cfg.Identity == "" {
		id, err := DefaultIdentity()
		if err != nil {
			return nil, err
		}
		cfg.Identity = id
	}
	gauge, err := newMasterStatus(cfg.Registerer, cfg.Name)
	if err != nil {
		return nil, fmt.Errorf("lease: register metrics: %w", err)
	}
	return &Elector{
		cfg:   cfg,
		me:    Candidate{Identity: cfg.Identity, LeaseDuration: cfg.LeaseDuration, RenewDeadline: cfg.RenewDeadline},
		store: store,
		clk:   cfg.Clock,
		log:   cfg.Logger.With().Str("lease", cfg.Namespace+"/"+cfg.Name).Str("identity", cfg.Identity).Logger(),
		gauge: gauge,
	}, nil
}

// Identity returns this candidate's holderIdentity.
func (e *Elector) Identity() string { return e.cfg.Identity }

// IsLeader reports whether this candidate currently believes it leads.
func (e *Elector) IsLeader() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.leading
}

// Leader returns the holder identity last observed, "" when none.
func (e *Elector) Leader() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.leader
}

// setLeading publishes the loop's view of leadership to other goroutines.
func (e *Elector) setLeading(leading bool, lastRenew time.Time) {
	e.mu.Lock()
	e.leading, e.lastRenew = leading, lastRenew
	e.mu.Unlock()
	if leading {
		e.gauge.Set(1)
	} else {
		e.gauge.Set(0)
	}
}

func (e *Elector) setLeader(id string) {
	e.mu.Lock()
	e.leader = id
	e.mu.Unlock()
}

// setObserved publishes the run loop's State for Status.
func (e *Elector) setObserved(s State) {
	e.mu.Lock()
	e.observed = s
	e.mu.Unlock()
}
