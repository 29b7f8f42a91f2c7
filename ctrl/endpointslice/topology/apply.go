package topology

import (
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
)

// Apply is the hint step of one reconcile of one Service and address type,
// as upstream's reconcileByAddressType runs it after it has packed the
// endpoints into slices: it returns the slices to create and to update,
// with their hints set, and the Events to record on the Service.
// si.Unchanged keeps the slices that still need no write. cache may be
// nil (the topology annotation is then not served).
//
//   - The Service asks for the cache's hints (HintsEnabled) and cache is
//     set: cache.AddHints decides. The annotation wins over
//     trafficDistribution.
//   - Otherwise, if the cache had hints for the Service, it forgets them
//     and a Warning TopologyAwareHintsDisabled ("Topology Aware Hints has
//     been disabled") is returned; then with a trafficDistribution of
//     PreferClose, PreferSameZone or PreferSameNode ReconcileHints sets
//     its hints, and with none every hint is removed.
func Apply(logger zerolog.Logger, cache *Cache, annotations map[string]string, trafficDistribution *string, si *SliceInfo) (toCreate, toUpdate []*api.EndpointSlice, events []Event) {
	hints := HintsEnabled(annotations)
	if cache != nil && hints {
		return cache.AddHints(logger, si)
	}
	if cache != nil {
		if cache.HasPopulatedHints(si.ServiceKey) {
			logger.Info().Str("key", si.ServiceKey).Str("addressType", si.AddressType).
				Msg("topology: TopologyAwareHints annotation has changed, removing hints")
			events = append(events, HintsDisabledEvent(si.AddressType))
		}
		cache.RemoveHints(si.ServiceKey, si.AddressType)
	}
	if hints || !ValidTrafficDistribution(trafficDistribution) {
		toCreate, toUpdate = RemoveHintsFromSlices(si)
		return toCreate, toUpdate, events
	}
	toCreate, toUpdate, si.Unchanged = ReconcileHints(trafficDistribution, si.ToCreate, si.ToUpdate, si.Unchanged)
	si.ToCreate, si.ToUpdate = toCreate, toUpdate
	return toCreate, toUpdate, events
}

// UsesTrafficDistribution reports whether a Service's hints come from its
// trafficDistribution: a value this controller serves, and no topology
// annotation (which wins). The reconciler's metrics label the Service
// with that value then (upstream's canUseTrafficDistribution).
func UsesTrafficDistribution(annotations map[string]string, trafficDistribution *string) bool {
	return ValidTrafficDistribution(trafficDistribution) && !HintsEnabled(annotations)
}
