package topology

import "github.com/kcmlab/kcm/kube/api"

// The values of a Service's spec.trafficDistribution that ask for hints.
// PreferClose is the original spelling of PreferSameZone; PreferSameNode
// adds a node hint to the zone hint.
const (
	TrafficDistributionPreferClose    = "PreferClose"
	TrafficDistributionPreferSameZone = "PreferSameZone"
	TrafficDistributionPreferSameNode = "PreferSameNode"
)

// ValidTrafficDistribution reports whether trafficDistribution is set to a
// value this controller serves: PreferClose, PreferSameZone or
// PreferSameNode. The last two are behind the PreferSameTrafficDistribution
// gate, GA and locked on since Kubernetes 1.35, so 1.37 always accepts them
// (upstream's Reconciler.validTrafficDistribution with the gate on).
func ValidTrafficDistribution(trafficDistribution *string) bool {
	if trafficDistribution == nil {
		return false
	}
	switch *trafficDistribution {
	case TrafficDistributionPreferClose, TrafficDistributionPreferSameZone, TrafficDistributionPreferSameNode:
		return true
	}
	return false
}

// ReconcileHints sets the hints that trafficDistribution asks for on the
// slices to create and to update, and moves each unchanged slice whose
// hints are missing or wrong to the update list (as a copy: unchanged
// slices are the informer's). With PreferClose or PreferSameZone every
// ready endpoint gets a zone hint naming its own zone; with PreferSameNode
// also a node hint naming its own node; with any other value (nil
// included) every hint is removed. Endpoints that are not ready keep
// whatever they have, as upstream.
//
// It returns the three lists; toCreate's slices are changed in place, as
// are toUpdate's, and unchanged is filtered in place.
func ReconcileHints(trafficDistribution *string, toCreate, toUpdate, unchanged []*api.EndpointSlice) (outCreate, outUpdate, outUnchanged []*api.EndpointSlice) {
	h := heuristic{}
	if ValidTrafficDistribution(trafficDistribution) {
		h = heuristic{close: true, nodeHints: *trafficDistribution == TrafficDistributionPreferSameNode}
	}
	kept := unchanged[:0]
	for _, s := range unchanged {
		if h.needsUpdate(s) {
			toUpdate = append(toUpdate, cloneSlice(s))
		} else {
			kept = append(kept, s)
		}
	}
	for _, s := range toCreate {
		h.update(s)
	}
	for _, s := range toUpdate {
		h.update(s)
	}
	return toCreate, toUpdate, kept
}

// heuristic is one of upstream's two: close (zone hints, and node hints
// for PreferSameNode) or the default, no hints at all.
type heuristic struct {
	close     bool
	nodeHints bool
}

// needsUpdate reports whether s has a hint the heuristic would not set,
// or lacks one it would.
func (h heuristic) needsUpdate(s *api.EndpointSlice) bool {
	if s == nil {
		return false
	}
	for i := range s.Endpoints {
		ep := &s.Endpoints[i]
		if !h.close {
			if ep.Hints != nil {
				return true
			}
			continue
		}
		if !EndpointReady(ep) {
			continue
		}
		if !hintsEqual(ep.Hints, h.want(ep)) {
			return true
		}
	}
	return false
}

// update sets the heuristic's hints on every endpoint it governs.
func (h heuristic) update(s *api.EndpointSlice) {
	for i := range s.Endpoints {
		ep := &s.Endpoints[i]
		if h.close && !EndpointReady(ep) {
			continue
		}
		ep.Hints = h.want(ep)
	}
}

// want is the hints the heuristic gives ep: nil for the default; for
// close, its zone (when known) and, for PreferSameNode, its node (when
// known); nil when neither is known.
func (h heuristic) want(ep *api.Endpoint) *api.EndpointHints {
	if !h.close {
		return nil
	}
	var hints api.EndpointHints
	if ep.Zone != nil {
		hints.ForZones = []api.ForZone{{Name: *ep.Zone}}
	}
	if h.nodeHints && ep.NodeName != nil {
		hints.ForNodes = []api.ForNode{{Name: *ep.NodeName}}
	}
	if hints.ForZones == nil && hints.ForNodes == nil {
		return nil
	}
	return &hints
}

// hintsEqual compares two hints as the API does: nil and empty lists are
// the same, and a nil *EndpointHints equals one without zones or nodes.
func hintsEqual(a, b *api.EndpointHints) bool {
	var az, bz []api.ForZone
	var an, bn []api.ForNode
	if a != nil {
		az, an = a.ForZones, a.ForNodes
	}
	if b != nil {
		bz, bn = b.ForZones, b.ForNodes
	}
	if len(az) != len(bz) || len(an) != len(bn) {
		return false
	}
	for i := range az {
		if az[i] != bz[i] {
			return false
		}
	}
	for i := range an {
		if an[i] != bn[i] {
			return false
		}
	}
	return true
}

// EndpointReady reports whether ep's ready condition is true (upstream's
// EndpointReady: a nil ready is not ready here).
func EndpointReady(ep *api.Endpoint) bool {
	return ep.Conditions.Ready != nil && *ep.Conditions.Ready
}
