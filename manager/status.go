package manager

import (
	"errors"
	"fmt"
	"sync"
)

// Errors the health checks report.
var (
	// ErrControllerFailed: a controller's constructor or Run failed while
	// this instance led.
	ErrControllerFailed = errors.New("controller failed")
	// ErrCachesNotSynced: this instance leads but the shared informers
	// have not synced yet.
	ErrCachesNotSynced = errors.New("informer caches not synced yet")
)

// status is what the health checks read: whether this instance leads,
// whether the shared caches synced, and each enabled controller's error.
// The manager writes it; HTTP handlers read it from other goroutines.
type status struct {
	mu      sync.Mutex
	leading bool
	synced  bool
	failed  map[string]error
}

func newStatus() *status { return &status{failed: map[string]error{}} }

// startLeading records that the controllers are being started.
func (s *status) startLeading() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.leading, s.synced = true, false
}

// stopLeading records that the controllers have stopped.
func (s *status) stopLeading() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.leading, s.synced = false, false
}

func (s *status) cachesSynced() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.synced = true
}

func (s *status) controllerFailed(name string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failed[name] = err
}

// controllerCheck is the /healthz check of one controller (kube-controller-
// manager registers one per controller, named after it): it fails once the
// controller has failed while leading. A standby's controllers are not
// built, and pass.
func (s *status) controllerCheck(name string) HealthCheck {
	return NamedCheck(name, func() error {
		s.mu.Lock()
		defer s.mu.Unlock()
		if err := s.failed[name]; err != nil {
			return fmt.Errorf("%w: %w", ErrControllerFailed, err)
		}
		return nil
	})
}

// syncCheck is the /readyz check "informer-sync": a leader is ready once
// its shared caches synced. A standby runs no informers and is ready.
func (s *status) syncCheck() HealthCheck {
	return NamedCheck("informer-sync", func() error {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.leading && !s.synced {
			return ErrCachesNotSynced
		}
		return nil
	})
}
