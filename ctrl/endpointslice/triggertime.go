package endpointslice

import (
	"sync"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// triggerTimes computes the endpoints.kubernetes.io/last-change-trigger-time
// annotation the reconciler writes on the slices it changes (upstream's
// util.TriggerTimeTracker). It keeps, per Service, the trigger times its
// last sync saw: each selected pod's Ready condition's lastTransitionTime
// and the Service's creationTimestamp. A sync's trigger time is the
// earliest of those that moved forward since; the first sync of a Service
// this process sees uses its creationTimestamp. A pod or Service that
// changes twice between two syncs makes it an approximation, as upstream
// says of its own.
//
// Syncs of different Services run in parallel; one Service is never synced
// twice at once (the queue's guarantee), so only the map is locked.
type triggerTimes struct {
	mu     sync.Mutex
	states map[string]triggerState
}

// triggerState is what one Service's last sync saw.
type triggerState struct {
	service time.Time
	pods    map[string]time.Time
}

func newTriggerTimes() *triggerTimes { return &triggerTimes{states: map[string]triggerState{}} }

// compute records svc's and pods' trigger times under key and returns the
// time to write, or the zero time for none. It runs before the reconciler,
// so that the state moves on even when the sync writes nothing.
func (t *triggerTimes) compute(key string, svc *api.Service, pods []*api.Pod) time.Time {
	t.mu.Lock()
	prev, known := t.states[key]
	t.mu.Unlock()

	var earliest time.Time
	consider := func(at time.Time) {
		if earliest.IsZero() || at.Before(earliest) {
			earliest = at
		}
	}
	next := triggerState{service: svc.CreationTimestamp.Time, pods: make(map[string]time.Time, len(pods))}
	for _, p := range pods {
		ready := api.GetPodCondition(&p.Status, api.PodReady)
		if ready == nil || ready.LastTransitionTime.IsZero() {
			continue
		}
		at := ready.LastTransitionTime.Time
		next.pods[p.Name] = at
		if at.After(prev.pods[p.Name]) {
			consider(at)
		}
	}
	if next.service.After(prev.service) {
		consider(next.service)
	}
	t.mu.Lock()
	t.states[key] = next
	t.mu.Unlock()
	if !known {
		return svc.CreationTimestamp.Time
	}
	return earliest
}

// forget drops a deleted Service's state (DeleteService).
func (t *triggerTimes) forget(key string) {
	t.mu.Lock()
	delete(t.states, key)
	t.mu.Unlock()
}
