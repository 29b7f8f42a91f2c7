package reconciler

import (
	"fmt"
	"slices"

	"github.com/kcmlab/kcm/kube/api"
)

// packing is the outcome of packing one port set's desired endpoints
// into its existing slices.
type packing struct {
	create, update, delete []*api.EndpointSlice
	added, removed         int
}

// pack compares the endpoints in the existing slices of one port set with
// the desired ones and decides the slices to create, update and delete
// (reconcileByPortMapping), in three steps:
//
//  1. Each existing slice keeps the endpoints still desired, in their
//     place, each replaced by its desired version. A slice that lost an
//     endpoint or holds one that changed is to be updated — or deleted,
//     when nothing in it is desired any more; a slice whose labels no
//     longer follow the Service's is to be updated; the others are
//     unchanged.
//  2. The endpoints left (new ones) first fill the slices already being
//     updated, the fullest first, up to MaxEndpointsPerSlice: those
//     writes happen anyway.
//  3. What is still left goes, when it is less than a full slice, into
//     the unchanged slice it fills best (getSliceToFill), which is then
//     updated; otherwise into new slices.
//
// So every slice is written at most once per sync, and a sync that
// changes nothing writes nothing. Unlike upstream, which iterates Go maps,
// the order is deterministic: existing slices by name, new endpoints in
// the order of the pods.
func (r *Reconciler) pack(svc *api.Service, existing []*api.EndpointSlice, g *portGroup) (packing, error) {
	var out packing
	existing = slices.Clone(existing)
	slices.SortFunc(existing, func(a, b *api.EndpointSlice) int { return compareNames(a.Name, b.Name) })
	byName := make(map[string]*api.EndpointSlice, len(existing))
	state := make(map[string]sliceState, len(existing))
	desired := g.endpoints

	// 1. Keep what is still desired; note what changed.
	for _, s := range existing {
		byName[s.Name] = s
		kept := []api.Endpoint{}
		changed := false
		for i := range s.Endpoints {
			ep := &s.Endpoints[i]
			want := desired.get(ep)
			if want == nil {
				continue
			}
			kept = append(kept, *want)
			if !endpointsEqualBeyondKey(want, ep) {
				changed = true
			}
			desired.remove(ep)
		}
		labels, labelsChanged := sliceLabels(s, svc, r.controllerName)
		switch {
		case changed || len(kept) != len(s.Endpoints):
			out.removed += len(s.Endpoints) - len(kept)
			if len(kept) == 0 {
				state[s.Name] = toDelete
				continue
			}
			c, err := api.DeepCopy(s)
			if err != nil {
				return packing{}, fmt.Errorf("copying EndpointSlice %s: %w", s.Name, err)
			}
			c.Endpoints, c.Labels = kept, labels
			byName[s.Name], state[s.Name] = c, toUpdate
		case labelsChanged:
			c, err := api.DeepCopy(s)
			if err != nil {
				return packing{}, fmt.Errorf("copying EndpointSlice %s: %w", s.Name, err)
			}
			c.Labels = labels
			byName[s.Name], state[s.Name] = c, toUpdate
		default:
			state[s.Name] = unchanged
		}
	}
	out.added = desired.len()

	// 2. Fill the slices being updated anyway, the fullest first.
	if desired.len() > 0 {
		var updating []*api.EndpointSlice
		for _, s := range existing {
			if state[s.Name] == toUpdate {
				updating = append(updating, byName[s.Name])
			}
		}
		slices.SortStableFunc(updating, func(a, b *api.EndpointSlice) int { return len(b.Endpoints) - len(a.Endpoints) })
		for _, s := range updating {
			for desired.len() > 0 && len(s.Endpoints) < r.maxPerSlice {
				s.Endpoints = append(s.Endpoints, *desired.pop())
			}
		}
	}

	// 3. The rest: into the unchanged slice that it fills best, or new ones.
	for desired.len() > 0 {
		var fill *api.EndpointSlice
		if desired.len() < r.maxPerSlice {
			var candidates []*api.EndpointSlice
			for _, s := range existing {
				if state[s.Name] == unchanged {
					candidates = append(candidates, byName[s.Name])
				}
			}
			if pick := sliceToFill(candidates, desired.len(), r.maxPerSlice); pick != nil {
				c, err := api.DeepCopy(pick)
				if err != nil {
					return packing{}, fmt.Errorf("copying EndpointSlice %s: %w", pick.Name, err)
				}
				fill = c
				byName[c.Name] = c
			}
		}
		if fill == nil {
			fill = r.newSlice(svc, g.ports, g.addressType)
		}
		for desired.len() > 0 && len(fill.Endpoints) < r.maxPerSlice {
			fill.Endpoints = append(fill.Endpoints, *desired.pop())
		}
		if fill.Name != "" {
			state[fill.Name] = toUpdate
		} else {
			out.create = append(out.create, fill)
		}
	}

	for _, s := range existing {
		switch state[s.Name] {
		case toUpdate:
			out.update = append(out.update, byName[s.Name])
		case toDelete:
			out.delete = append(out.delete, byName[s.Name])
		}
	}
	return out, nil
}

type sliceState int

const (
	unchanged sliceState = iota
	toUpdate
	toDelete
)

func compareNames(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// sliceToFill returns the slice that n more endpoints bring closest to
// full without passing max, or nil when none has room (getSliceToFill);
// of equally good slices, the first.
func sliceToFill(candidates []*api.EndpointSlice, n, max int) *api.EndpointSlice {
	best, bestGap := (*api.EndpointSlice)(nil), max
	for _, s := range candidates {
		gap := max - (n + len(s.Endpoints))
		if gap >= 0 && gap < bestGap {
			best, bestGap = s, gap
			if gap == 0 {
				break
			}
		}
	}
	return best
}

// newSlice is an empty slice of svc for the given ports and address type
// (newEndpointSlice): generateName "<service>-", the controller reference
// to the Service, and the Service's labels with the controller's.
func (r *Reconciler) newSlice(svc *api.Service, ports []api.EndpointSlicePort, addressType string) *api.EndpointSlice {
	s := &api.EndpointSlice{
		ObjectMeta: api.ObjectMeta{
			Namespace:       svc.Namespace,
			GenerateName:    slicePrefix(svc.Name),
			OwnerReferences: []api.OwnerReference{controllerRef(svc)},
		},
		Ports:       slices.Clone(ports),
		AddressType: addressType,
		Endpoints:   []api.Endpoint{},
	}
	s.Labels, _ = sliceLabels(s, svc, r.controllerName)
	return s
}
