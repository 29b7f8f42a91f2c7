package endpointslicemirroring

import "github.com/kcmlab/kcm/kube/api"

// endpointSet is an ordered set of endpoints keyed by identity (endpointID;
// upstream's EndpointSet): adding an endpoint whose identity is present
// replaces it in place, as upstream's Insert does, and the set keeps the
// order in which identities first came, so that kcm writes slices in a
// stable order where upstream pops its map in random order.
type endpointSet struct {
	index map[string]int
	items []api.Endpoint
}

func (s *endpointSet) add(ep api.Endpoint) {
	if s.index == nil {
		s.index = map[string]int{}
	}
	id := endpointID(&ep)
	if i, ok := s.index[id]; ok {
		s.items[i] = ep
		return
	}
	s.index[id] = len(s.items)
	s.items = append(s.items, ep)
}

// get returns the endpoint with ep's identity, or nil.
func (s *endpointSet) get(ep *api.Endpoint) *api.Endpoint {
	i, ok := s.index[endpointID(ep)]
	if !ok {
		return nil
	}
	return &s.items[i]
}

func (s *endpointSet) len() int { return len(s.items) }

// group is the desired state of one address type and port set: its ports
// (in the order written) and its endpoints.
type group struct {
	key       groupKey
	ports     []api.EndpointSlicePort
	endpoints endpointSet
}

// desired is what an Endpoints object's subsets ask for (upstream's
// desiredCalc), one group per address type and port set, in the order the
// groups first appear (IPv4 before IPv6 within a subset).
type desired struct {
	groups []*group
	byKey  map[groupKey]*group
}

// groupsOf returns the IPv4 and IPv6 groups of a subset's ports, creating
// them empty: a port set with no address of a type still has its group,
// so that slices left over for it are deleted (initPorts).
func (d *desired) groupsOf(ports []api.EndpointPort) map[string]*group {
	if d.byKey == nil {
		d.byKey = map[groupKey]*group{}
	}
	sp := slicePorts(ports)
	pk := portsKey(sp)
	out := make(map[string]*group, 2)
	for _, at := range []string{api.AddressTypeIPv4, api.AddressTypeIPv6} {
		k := groupKey{addressType: at, ports: pk}
		g := d.byKey[k]
		if g == nil {
			g = &group{key: k, ports: sp}
			d.byKey[k] = g
			d.groups = append(d.groups, g)
		}
		out[at] = g
	}
	return out
}

// addAddress adds one Endpoints address to the group of its type; false
// when it is not an IP (addAddress).
func addAddress(groups map[string]*group, a api.EndpointAddress, ready bool) bool {
	ep, at, ok := addressEndpoint(a, ready)
	if !ok {
		return false
	}
	groups[at].endpoints.add(ep)
	return true
}

// plan is what one sync writes (upstream's slicesByAction).
type plan struct {
	create, update, delete []*api.EndpointSlice
}

func (p *plan) merge(q plan) {
	p.create = append(p.create, q.create...)
	p.update = append(p.update, q.update...)
	p.delete = append(p.delete, q.delete...)
}

// totals counts endpoint changes (upstream's totalsByAction), for the
// per-sync metrics.
type totals struct{ added, updated, removed int }

func (t *totals) add(u totals) {
	t.added += u.added
	t.updated += u.updated
	t.removed += u.removed
}

// recycle turns a create and a delete of the same address type into an
// update of the slice that would have been deleted, keeping its name
// (recycleSlices): one write instead of two, and one slice fewer churned.
// Creates and deletes are paired in order. Upstream removes the paired
// create by name, which for creates (all unnamed) is the first create of
// any type; kcm removes the create itself.
func (p *plan) recycle() {
	var creates []*api.EndpointSlice
	used := map[*api.EndpointSlice]bool{}
	for _, c := range p.create {
		var victim *api.EndpointSlice
		for _, d := range p.delete {
			if d.AddressType == c.AddressType && !used[d] {
				victim = d
				break
			}
		}
		if victim == nil {
			creates = append(creates, c)
			continue
		}
		used[victim] = true
		c.Name = victim.Name
		p.update = append(p.update, c)
	}
	var deletes []*api.EndpointSlice
	for _, d := range p.delete {
		if !used[d] {
			deletes = append(deletes, d)
		}
	}
	p.create, p.delete = creates, deletes
}
