package endpointslicemirroring

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/endpoint"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// reconcile makes the mirrored slices of eps match its subsets (upstream's
// reconciler.reconcile):
//
//  1. the subsets are repacked into Kubernetes' canonical layout;
//  2. each subset's addresses, ready ones first, join the group of their
//     address type and the subset's ports, at most maxPerSubset of them
//     per subset; addresses that are not IPs are skipped, and both kinds
//     of skipping are reported by a Warning Event on the Endpoints;
//  3. each group is compared with its existing slices (reconcileGroup);
//     slices of groups no longer desired are deleted;
//  4. creates paired with deletes of the same address type become updates
//     (recycle), then the writes are made.
func (c *Controller) reconcile(ctx context.Context, eps *api.Endpoints, existing []*api.EndpointSlice) error {
	var d desired
	invalid, skipped := 0, 0
	for _, subset := range endpoint.RepackSubsets(eps.Subsets) {
		groups := d.groupsOf(subset.Ports)
		total := len(subset.Addresses) + len(subset.NotReadyAddresses)
		added := 0
		for _, list := range []struct {
			addrs []api.EndpointAddress
			ready bool
		}{{subset.Addresses, true}, {subset.NotReadyAddresses, false}} {
			for _, a := range list.addrs {
				if added >= int(c.maxPerSubset) {
					break
				}
				if addAddress(groups, a, list.ready) {
					added++
					continue
				}
				invalid++
				c.log.Info().Str("endpoints", eps.Key()).Str("ip", a.IP).
					Msg("address in Endpoints is not a valid IP, it will not be mirrored to an EndpointSlice")
			}
		}
		skipped += total - added
	}
	c.metrics.observeSkipped(skipped)
	ref := ctrl.Ref(rest.Endpoints, eps)
	if invalid > 0 {
		c.recorder.Eventf(ref, api.EventTypeWarning, ReasonInvalidIPAddress,
			"Skipped %d invalid IP addresses when mirroring to EndpointSlices", invalid)
	}
	if skipped > invalid {
		c.log.Info().Str("endpoints", eps.Key()).Int("skippedAddresses", skipped).
			Msg("addresses in Endpoints were skipped due to exceeding MaxEndpointsPerSubset")
		c.recorder.Eventf(ref, api.EventTypeWarning, ReasonTooManyAddressesToMirror,
			"A max of %d addresses can be mirrored to EndpointSlices per Endpoints subset. %d addresses were skipped", c.maxPerSubset, skipped)
	}

	existingByGroup := map[groupKey][]*api.EndpointSlice{}
	for _, s := range existing {
		k := groupOf(s)
		existingByGroup[k] = append(existingByGroup[k], s)
	}
	var p plan
	var t totals
	eff := map[groupKey]efficiency{}
	for _, g := range d.groups {
		have := existingByGroup[g.key]
		gp, gt := c.reconcileGroup(eps, g, have)
		p.merge(gp)
		t.add(gt)
		eff[g.key] = efficiency{endpoints: g.endpoints.len(), slices: len(have) + len(gp.create) - len(gp.delete)}
	}
	// Groups no longer desired, in a stable order.
	for _, k := range sortedKeys(existingByGroup) {
		if _, ok := d.byKey[k]; !ok {
			p.delete = append(p.delete, existingByGroup[k]...)
		}
	}
	c.metrics.observeTotals(t)
	c.metricsCache.update(eps.Key(), eff)
	return c.finalize(ctx, eps, p)
}

// reconcileGroup compares one desired group with its existing slices
// (reconcileByPortMapping): no endpoints desired deletes them all;
// otherwise every slice but the first is deleted, and the first is left
// alone when it already holds exactly the desired endpoints, the
// Endpoints' labels and mirrored annotations and an ownerReference to
// this Endpoints (not to a deleted one of the same name); else it is
// rewritten, or a slice created, with up to maxPerSubset endpoints.
func (c *Controller) reconcileGroup(eps *api.Endpoints, g *group, existing []*api.EndpointSlice) (plan, totals) {
	var p plan
	var t totals
	if g.endpoints.len() == 0 {
		p.delete = existing
		for _, s := range existing {
			t.removed += len(s.Endpoints)
		}
		return p, t
	}
	if len(existing) == 0 {
		t.added = g.endpoints.len()
	} else {
		p.delete = existing[1:]
		first := existing[0]
		t = changes(first, &g.endpoints)
		labels := maps.Clone(first.Labels)
		delete(labels, LabelManagedBy)
		delete(labels, LabelServiceName)
		if t == (totals{}) && maps.Equal(eps.Labels, labels) &&
			maps.Equal(mirroredAnnotations(eps.Annotations), first.Annotations) && !ownedByOtherEndpoints(eps, first) {
			if !c.tracker.Has(first) {
				c.tracker.Update(first) // track every slice, written by this process or not
			}
			return p, t
		}
	}
	name := ""
	if len(existing) > 0 {
		name = existing[0].Name
	}
	s := newSlice(eps, g.ports, g.key.addressType, name)
	n := min(g.endpoints.len(), int(c.maxPerSubset))
	s.Endpoints = append(s.Endpoints, g.endpoints.items[:n]...)
	if s.Name != "" {
		p.update = append(p.update, s)
	} else {
		p.create = append(p.create, s)
	}
	return p, t
}

// changes counts how the endpoints of an existing slice differ from the
// desired ones (totalChanges).
func changes(s *api.EndpointSlice, want *endpointSet) totals {
	var t totals
	matched := 0
	for i := range s.Endpoints {
		got := &s.Endpoints[i]
		w := want.get(got)
		if w == nil {
			t.removed++
			continue
		}
		matched++
		if !sameBeyondID(w, got) {
			t.updated++
		}
	}
	t.added = want.len() - matched
	return t
}

// ownedByOtherEndpoints reports whether s names, as its Endpoints owner,
// an Endpoints of eps's name but another uid: eps was deleted and
// re-created, and s must be rewritten to point at the new one
// (needRebuildExistingSlices).
func ownedByOtherEndpoints(eps *api.Endpoints, s *api.EndpointSlice) bool {
	for _, o := range s.OwnerReferences {
		if o.Kind == "Endpoints" && o.Name == eps.Name && o.UID != eps.UID {
			return true
		}
	}
	return false
}

// finalize makes the writes (upstream's finalize): creates (none while the
// Endpoints is being deleted; a namespace that is terminating refuses
// them, and the sync stops there without error), then updates, then
// deletes, each recorded in the tracker so that the informer's echo of
// the controller's own write does not trigger another sync.
func (c *Controller) finalize(ctx context.Context, eps *api.Endpoints, p plan) error {
	p.recycle()
	client := c.client.InNamespace(eps.Namespace)
	if eps.DeletionTimestamp == nil {
		for _, s := range p.create {
			created, err := client.Create(ctx, s)
			if err != nil {
				if rest.IsNamespaceTerminating(err) {
					return nil
				}
				return fmt.Errorf("failed to create EndpointSlice for Endpoints %s: %w", eps.Key(), err)
			}
			c.tracker.Update(created)
			c.metrics.change(opCreate)
		}
	}
	for _, s := range p.update {
		updated, err := client.Update(ctx, s)
		if err != nil {
			return fmt.Errorf("failed to update %s EndpointSlice for Endpoints %s: %w", s.Name, eps.Key(), err)
		}
		c.tracker.Update(updated)
		c.metrics.change(opUpdate)
	}
	for _, s := range p.delete {
		if err := client.Delete(ctx, s.Name, rest.DeleteOptions{}); err != nil && !rest.IsNotFound(err) {
			return fmt.Errorf("failed to delete %s EndpointSlice for Endpoints %s: %w", s.Name, eps.Key(), err)
		}
		c.tracker.ExpectDeletion(s)
		c.metrics.change(opDelete)
	}
	return nil
}

// deleteSlices deletes the given mirrored slices of the Endpoints
// namespace/name and forgets it in the metrics (deleteEndpoints). It
// tries every slice and returns the failures joined.
func (c *Controller) deleteSlices(ctx context.Context, namespace, name string, ss []*api.EndpointSlice) error {
	c.metricsCache.remove(namespace + "/" + name)
	var errs []error
	for _, s := range ss {
		if err := c.client.InNamespace(namespace).Delete(ctx, s.Name, rest.DeleteOptions{}); err != nil && !rest.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("deleting %d/%d EndpointSlices of Endpoints %s/%s: %w", len(errs), len(ss), namespace, name, errors.Join(errs...))
	}
	return nil
}

// sortedKeys returns the group keys of m in a stable order.
func sortedKeys(m map[groupKey][]*api.EndpointSlice) []groupKey {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b groupKey) int {
		if c := strings.Compare(a.addressType, b.addressType); c != 0 {
			return c
		}
		return strings.Compare(a.ports, b.ports)
	})
	return keys
}
