package reconciler

import (
	"github.com/kcmlab/kcm/ctrl/endpointslice/topology"
	"github.com/kcmlab/kcm/kube/api"
)

// applyTopology is the hint step of one address type, where upstream's
// reconcileByAddressType runs topologycache and trafficdist: package
// topology's Apply sets or removes the hints of the slices to create and
// update (and moves unchanged slices whose hints must change to the
// updates); the Service is filed under its trafficDistribution in the
// services_count_by_traffic_distribution gauge when that is what its
// hints come from.
func (r *Reconciler) applyTopology(svc *api.Service, addressType string, existing, create, update, del []*api.EndpointSlice) ([]*api.EndpointSlice, []*api.EndpointSlice, []topology.Event) {
	key := svc.Namespace + "/" + svc.Name
	si := &topology.SliceInfo{ServiceKey: key, AddressType: addressType,
		ToCreate: create, ToUpdate: update, Unchanged: unchangedSlices(existing, update, del)}
	create, update, events := topology.Apply(r.log, r.topology, svc.Annotations, svc.Spec.TrafficDistribution, si)
	if topology.UsesTrafficDistribution(svc.Annotations, svc.Spec.TrafficDistribution) {
		r.cache.updateTrafficDistribution(key, svc.Spec.TrafficDistribution)
	} else {
		r.cache.updateTrafficDistribution(key, nil)
	}
	return create, update, events
}

// forgetHints drops the topology cache's hints for the Service of a
// slice whose address type the Service no longer has.
func (r *Reconciler) forgetHints(s *api.EndpointSlice) {
	if r.topology == nil {
		return
	}
	name, ok := s.Labels[LabelServiceName]
	if !ok || name == "" {
		r.log.Info().Str("slice", s.Namespace+"/"+s.Name).Msg("couldn't get key to remove EndpointSlice from topology cache: no " + LabelServiceName + " label")
		return
	}
	r.topology.RemoveHints(s.Namespace+"/"+name, s.AddressType)
}

// topologyLabels are the endpointslices_changed_per_sync labels: topology
// "Auto" when the topology cache serves the Service's annotation, else
// "Disabled"; traffic_distribution the value its hints come from, or "".
func (r *Reconciler) topologyLabels(svc *api.Service) (string, string) {
	mode := "Disabled"
	if r.topology != nil && topology.HintsEnabled(svc.Annotations) {
		mode = "Auto"
	}
	td := ""
	if topology.UsesTrafficDistribution(svc.Annotations, svc.Spec.TrafficDistribution) {
		td = *svc.Spec.TrafficDistribution
	}
	return mode, td
}
