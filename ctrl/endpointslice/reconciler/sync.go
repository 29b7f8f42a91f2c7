package reconciler

import (
	"context"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// reconcileAddressType reconciles svc's slices of one address type
// (reconcileByAddressType):
//
//   - existing slices not owned by svc (a Service of the same name that
//     was deleted and re-created) are to be deleted;
//   - the pods' endpoints are grouped by their port sets, and each group
//     is packed into the existing slices with those ports (pack); slices
//     of port sets no pod serves any more are to be deleted;
//   - when no slice would remain and none is to be created, the
//     placeholder — an empty slice without ports — is created, unless the
//     only slice to delete already is that placeholder, which then stays;
//   - topology hints are added or removed (applyTopology);
//   - the writes are made (finalize) and the topology Events recorded.
func (r *Reconciler) reconcileAddressType(ctx context.Context, svc *api.Service, pods []*api.Pod, existing []*api.EndpointSlice, triggerTime time.Time, addressType string) error {
	var create, update, del []*api.EndpointSlice
	existingByPorts := map[portMapKey][]*api.EndpointSlice{}
	var existingKeys []portMapKey
	for _, s := range existing {
		if !ownedBy(s, svc) {
			del = append(del, s)
			continue
		}
		k := newPortMapKey(s.Ports)
		if _, seen := existingByPorts[k]; !seen {
			existingKeys = append(existingKeys, k)
		}
		existingByPorts[k] = append(existingByPorts[k], s)
	}

	groups, order, errs, err := r.desiredEndpoints(svc, pods, addressType)
	if err != nil {
		return err
	}

	ports := servicePorts{}
	added, removed := 0, 0
	for _, k := range order {
		g := groups[k]
		n := g.endpoints.len()
		p, err := r.pack(svc, existingByPorts[k], g)
		if err != nil {
			return joinErrors(append(errs, err))
		}
		added += p.added
		removed += p.removed
		ports[k] = efficiency{endpoints: n, slices: len(existingByPorts[k]) + len(p.create) - len(p.delete)}
		create = append(create, p.create...)
		update = append(update, p.update...)
		del = append(del, p.delete...)
	}
	for _, k := range existingKeys {
		if _, ok := groups[k]; !ok {
			del = append(del, existingByPorts[k]...)
		}
	}

	if len(existing) == len(del) && len(create) == 0 {
		placeholder := r.newSlice(svc, []api.EndpointSlicePort{}, addressType)
		if len(del) == 1 && samePlaceholder(del[0], placeholder) {
			del = del[:0] // it exists already: do not delete and re-create it
		} else {
			create = append(create, placeholder)
		}
		ports[newPortMapKey(placeholder.Ports)] = efficiency{endpoints: 0, slices: 1}
	}

	r.metrics.perSync(added, removed)
	key := svc.Namespace + "/" + svc.Name
	r.cache.updateService(key, ports)

	create, update, events := r.applyTopology(svc, addressType, existing, create, update, del)

	if err := r.finalize(ctx, svc, create, update, del, triggerTime); err != nil {
		errs = append(errs, err)
	}
	for _, e := range events {
		r.recorder.Eventf(serviceRef(svc), e.Type, e.Reason, "%s", e.Message)
	}
	return joinErrors(errs)
}

// unchangedSlices are the existing slices neither updated nor deleted
// (unchangedSlices).
func unchangedSlices(existing, update, del []*api.EndpointSlice) []*api.EndpointSlice {
	changed := make(map[string]bool, len(update)+len(del))
	for _, s := range update {
		changed[s.Name] = true
	}
	for _, s := range del {
		changed[s.Name] = true
	}
	out := []*api.EndpointSlice{}
	for _, s := range existing {
		if !changed[s.Name] {
			out = append(out, s)
		}
	}
	return out
}
