package topology

import (
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
)

// AddHints gives every ready endpoint of the Service's slices a zone hint
// for a Service annotated topology-mode: Auto, and returns the slices to
// create and to update; si.Unchanged keeps the slices whose hints are
// still right. Each zone's endpoints are hinted to it first; then zones
// with more than their CPU share of the endpoints give some to zones with
// fewer, so that no zone's endpoints carry more than their share plus the
// overload threshold. Unchanged slices whose hints still fit are left
// alone; the others are copied to the update list.
//
// When hints are impossible — the nodes do not allow them, too few
// endpoints for the zones or for the minimum of each, a ready endpoint
// without a zone — it removes every hint instead (RemoveHintsFromSlices),
// forgets the Service and returns a Warning TopologyAwareHintsDisabled
// saying why. When the Service had no hints from this cache yet it
// returns a Normal TopologyAwareHintsEnabled. Endpoints that are not
// ready are not counted and keep what they have, as upstream.
func (c *Cache) AddHints(logger zerolog.Logger, si *SliceInfo) (toCreate, toUpdate []*api.EndpointSlice, events []Event) {
	allocs, ev := c.allocations(si.readyEndpoints())
	if ev != nil {
		logger.Info().Str("key", si.ServiceKey).Str("addressType", si.AddressType).Msg("topology: " + ev.Message + ", removing hints")
		ev.Message = FormatWithAddressType(ev.Message, si.AddressType)
		return c.removeAll(si, *ev)
	}

	allocated := si.keepValidUnchanged(allocs)
	allocatable := make([]*api.EndpointSlice, 0, len(si.ToCreate)+len(si.ToUpdate))
	allocatable = append(append(allocatable, si.ToCreate...), si.ToUpdate...)

	// Each ready endpoint starts with a hint for its own zone.
	for _, s := range allocatable {
		for i := range s.Endpoints {
			ep := &s.Endpoints[i]
			if !EndpointReady(ep) {
				continue
			}
			if ep.Zone == nil || *ep.Zone == "" {
				logger.Info().Str("key", si.ServiceKey).Str("addressType", si.AddressType).
					Msg("topology: endpoint found without zone specified, removing hints")
				return c.removeAll(si, disabled(NoZoneSpecified, si.AddressType))
			}
			allocated[*ep.Zone]++
			ep.Hints = &api.EndpointHints{ForZones: []api.ForZone{{Name: *ep.Zone}}}
		}
	}

	// Zones over their share give endpoints to zones under it.
	giving, receiving := givingAndReceivingZones(allocs, allocated)
	for zone, diff := range redistributeHints(logger, allocatable, giving, receiving) {
		allocated[zone] += diff
	}

	if len(allocated) == 0 {
		logger.Debug().Str("key", si.ServiceKey).Str("addressType", si.AddressType).Msg("topology: no hints allocated for zones, removing them")
		return c.removeAll(si, disabled(NoAllocatedHintsForZones, si.AddressType))
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	_, had := c.hintsPopulated[si.ServiceKey]
	c.setHintsLocked(si.ServiceKey, si.AddressType, allocated)
	if !had {
		logger.Info().Str("key", si.ServiceKey).Str("addressType", si.AddressType).Msg("topology: Topology Aware Hints has been enabled, adding hints")
		events = append(events, Event{Type: api.EventTypeNormal, Reason: ReasonHintsEnabled,
			Message: FormatWithAddressType(TopologyAwareHintsEnabled, si.AddressType)})
	}
	return si.ToCreate, si.ToUpdate, events
}

// removeAll forgets the Service's hints, removes them from its slices and
// returns ev as the only event.
func (c *Cache) removeAll(si *SliceInfo, ev Event) (toCreate, toUpdate []*api.EndpointSlice, events []Event) {
	c.RemoveHints(si.ServiceKey, si.AddressType)
	toCreate, toUpdate = RemoveHintsFromSlices(si)
	return toCreate, toUpdate, []Event{ev}
}
