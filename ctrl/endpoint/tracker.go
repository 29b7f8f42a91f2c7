package endpoint

import (
	"sync"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// triggerTimes computes the last-change-trigger-time annotation
// (endpointslice/util TriggerTimeTracker): per Service, the trigger times
// seen at its last sync — each pod's Ready condition's lastTransitionTime
// and the Service's creationTimestamp. A sync's trigger time is the
// earliest of those that moved forward since; the first sync of a Service
// this process sees uses its creationTimestamp. Like upstream it is an
// approximation when one object changes twice between syncs. Syncs of
// different keys run in parallel; one key is never synced twice at once
// (the queue's guarantee), so only the map needs the lock.
type triggerTimes struct {
	mu     sync.Mutex
	states map[string]triggerState
}

type triggerState struct {
	service time.Time
	pods    map[string]time.Time
}

func newTriggerTimes() *triggerTimes { return &triggerTimes{states: map[string]triggerState{}} }

// compute records the Service's and pods' trigger times under key and
// returns the time to write, or the zero time for none.
func (t *triggerTimes) compute(key string, svc *api.Service, pods []*api.Pod) time.Time {
	t.mu.Lock()
	prev, known := t.states[key]
	t.mu.Unlock()

	var earliest time.Time
	earlier := func(x time.Time) {
		if earliest.IsZero() || x.Before(earliest) {
			earliest = x
		}
	}
	next := triggerState{pods: make(map[string]time.Time, len(pods)), service: svc.CreationTimestamp.Time}
	for _, p := range pods {
		c := api.GetPodCondition(&p.Status, api.PodReady)
		if c == nil || c.LastTransitionTime.IsZero() {
			continue
		}
		at := c.LastTransitionTime.Time
		next.pods[p.Name] = at
		if at.After(prev.pods[p.Name]) {
			earlier(at)
		}
	}
	if next.service.After(prev.service) {
		earlier(next.service)
	}
	t.mu.Lock()
	t.states[key] = next
	t.mu.Unlock()
	if !known {
		return svc.CreationTimestamp.Time
	}
	return earliest
}

// forget drops a deleted Service's state.
func (t *triggerTimes) forget(key string) {
	t.mu.Lock()
	delete(t.states, key)
	t.mu.Unlock()
}

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
