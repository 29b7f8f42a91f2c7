package endpoint

import "sync"

// staleEndpoints remembers, per Endpoints, the resourceVersion the
// controller's last update replaced (staleEndpointsTracker): while the
// cache still holds that version, a sync would compute from an outdated
// object, so it fails and is retried once the cache has caught up.
type staleEndpoints struct {
	mu sync.Mutex
	rv map[string]string
}

func newStaleEndpoints() *staleEndpoints { return &staleEndpoints{rv: map[string]string{}} }

func (s *staleEndpoints) markStale(key, rv string) {
	s.mu.Lock()
	s.rv[key] = rv
	s.mu.Unlock()
}

func (s *staleEndpoints) isStale(key, rv string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.rv[key]
	return ok && old == rv
}

func (s *staleEndpoints) forget(key string) {
	s.mu.Lock()
	delete(s.rv, key)
	s.mu.Unlock()
}
