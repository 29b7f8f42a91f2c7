package topology

import "github.com/kcmlab/kcm/kube/api"

// SliceInfo is what one reconcile of one Service and address type hands
// to the hint logic: the slices it will create, those it will update and
// those it leaves as they are (shared with the informer: never changed in
// place). ServiceKey is "namespace/name".
type SliceInfo struct {
	ServiceKey  string
	AddressType string
	ToCreate    []*api.EndpointSlice
	ToUpdate    []*api.EndpointSlice
	Unchanged   []*api.EndpointSlice
}

// readyEndpoints counts the ready endpoints of every slice in si.
func (si *SliceInfo) readyEndpoints() int {
	n := 0
	for _, list := range [][]*api.EndpointSlice{si.ToCreate, si.ToUpdate, si.Unchanged} {
		for _, s := range list {
			n += numReady(s.Endpoints)
		}
	}
	return n
}

// keepValidUnchanged counts, per zone, the hints of the unchanged slices
// whose hints still fit the allocations, and moves (a copy of) every other
// unchanged slice to ToUpdate so that AddHints rewrites its hints. Slices
// are taken in order, so a slice that would push a zone past its maximum
// on top of the earlier ones is moved (upstream's getAllocatedHintsByZone).
func (si *SliceInfo) keepValidUnchanged(allocations map[string]allocation) map[string]int {
	allocated := map[string]int{}
	kept := si.Unchanged[:0]
	for _, s := range si.Unchanged {
		byZone := hintsByZone(s, allocated, allocations)
		if byZone == nil {
			si.ToUpdate = append(si.ToUpdate, cloneSlice(s))
			continue
		}
		kept = append(kept, s)
		for zone, n := range byZone {
			allocated[zone] += n
		}
	}
	si.Unchanged = kept
	return allocated
}

// numReady counts the ready endpoints in eps.
func numReady(eps []api.Endpoint) int {
	n := 0
	for i := range eps {
		if EndpointReady(&eps[i]) {
			n++
		}
	}
	return n
}
