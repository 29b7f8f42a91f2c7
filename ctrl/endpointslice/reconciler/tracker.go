package reconciler

import (
	"sync"

	"github.com/kcmlab/kcm/kube/api"
)

// deletionExpected marks a slice this controller deleted and whose delete
// event it has not seen yet.
const deletionExpected = -1

// Tracker remembers, per Service, the generation of each EndpointSlice
// this controller wrote (by uid), or that it deleted one. It tells the
// controller which slice events are echoes of its own writes (ShouldSync)
// and whether its cache is behind those writes (StaleSlices), as
// k8s.io/endpointslice/util's EndpointSliceTracker does. A slice belongs
// to the Service its kubernetes.io/service-name label names. Safe for
// concurrent use.
type Tracker struct {
	mu sync.Mutex
	// byService maps "namespace/service" to slice uid to generation.
	byService map[string]map[string]int64
}

// NewTracker returns an empty Tracker.
func NewTracker() *Tracker { return &Tracker{byService: map[string]map[string]int64{}} }

func serviceKeyOf(s *api.EndpointSlice) string {
	return s.Namespace + "/" + s.Labels[LabelServiceName]
}

// Has reports whether the tracker holds a generation (or an expected
// deletion) for the slice.
func (t *Tracker) Has(s *api.EndpointSlice) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.byService[serviceKeyOf(s)][s.UID]
	return ok
}

// ShouldSync reports whether a slice event needs a sync of its Service:
// the slice is not tracked, or its generation is newer than the one this
// controller last wrote (someone else changed it).
func (t *Tracker) ShouldSync(s *api.EndpointSlice) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	g, ok := t.byService[serviceKeyOf(s)][s.UID]
	return !ok || s.Generation > g
}

// StaleSlices reports whether the slices listed for svc are older than
// what this controller wrote: one of them has an older generation than
// tracked, or is one the tracker expects to be deleted, or a slice the
// tracker holds (and does not expect deleted) is missing from the list.
// A Service the tracker has never seen is never stale.
func (t *Tracker) StaleSlices(svc *api.Service, slices []*api.EndpointSlice) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	gens, ok := t.byService[svc.Namespace+"/"+svc.Name]
	if !ok {
		return false
	}
	listed := make(map[string]bool, len(slices))
	for _, s := range slices {
		listed[s.UID] = true
		if g, ok := gens[s.UID]; ok && (g == deletionExpected || g > s.Generation) {
			return true
		}
	}
	for uid, g := range gens {
		if g != deletionExpected && !listed[uid] {
			return true
		}
	}
	return false
}

// Update records the slice's generation as this controller's latest write.
func (t *Tracker) Update(s *api.EndpointSlice) { t.set(s, s.Generation) }

// ExpectDeletion records that this controller deleted the slice.
func (t *Tracker) ExpectDeletion(s *api.EndpointSlice) { t.set(s, deletionExpected) }

func (t *Tracker) set(s *api.EndpointSlice, g int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := serviceKeyOf(s)
	gens := t.byService[k]
	if gens == nil {
		gens = map[string]int64{}
		t.byService[k] = gens
	}
	gens[s.UID] = g
}

// HandleDeletion forgets a deleted slice and reports whether the deletion
// was expected (or the slice never tracked): false means someone else
// deleted a slice this controller wrote, and its Service needs a sync.
func (t *Tracker) HandleDeletion(s *api.EndpointSlice) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	gens, ok := t.byService[serviceKeyOf(s)]
	if !ok {
		return true
	}
	g, tracked := gens[s.UID]
	delete(gens, s.UID)
	return !tracked || g == deletionExpected
}

// DeleteService forgets everything tracked for the Service.
func (t *Tracker) DeleteService(namespace, name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.byService, namespace+"/"+name)
}
