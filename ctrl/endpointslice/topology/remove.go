package topology

import "github.com/kcmlab/kcm/kube/api"

// RemoveHintsFromSlices removes every hint: from the endpoints of the
// slices to create and to update, in place, and from the unchanged slices
// that have any, which move (as copies) to the update list; the others
// stay unchanged. It returns the lists to create and to update and leaves
// the remaining unchanged slices in si.Unchanged (upstream's
// RemoveHintsFromSlices).
func RemoveHintsFromSlices(si *SliceInfo) (toCreate, toUpdate []*api.EndpointSlice) {
	for _, list := range [][]*api.EndpointSlice{si.ToCreate, si.ToUpdate} {
		for _, s := range list {
			clearHints(s)
		}
	}
	kept := si.Unchanged[:0]
	for _, s := range si.Unchanged {
		if !hasHints(s) {
			kept = append(kept, s)
			continue
		}
		c := cloneSlice(s)
		clearHints(c)
		si.ToUpdate = append(si.ToUpdate, c)
	}
	si.Unchanged = kept
	return si.ToCreate, si.ToUpdate
}

// clearHints removes the hints of every endpoint of s.
func clearHints(s *api.EndpointSlice) {
	for i := range s.Endpoints {
		s.Endpoints[i].Hints = nil
	}
}

// hasHints reports whether any endpoint of s has hints (even empty ones).
func hasHints(s *api.EndpointSlice) bool {
	for i := range s.Endpoints {
		if s.Endpoints[i].Hints != nil {
			return true
		}
	}
	return false
}
