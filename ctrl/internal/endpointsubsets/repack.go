package endpointsubsets

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kcmlab/kcm/ctrl/internal/hashorder"
	"github.com/kcmlab/kcm/kube/api"
)

// Repack returns subsets in the canonical layout Kubernetes gives
// Endpoints (pkg/api/v1/endpoints RepackSubsets): every address deduplicated
// by IP and pod UID, the ports grouped by the exact set of addresses (and
// their readiness) that serve them, one subset per group, and everything
// sorted as Sort sorts it. An address that is not ready on one port
// is not ready on every port that shares it (not ready wins); a subset
// without ports keeps its addresses (headless Services without ports).
// The input is not modified; the result is newly allocated.
func Repack(subsets []api.EndpointSubset) []api.EndpointSubset {
	type addrKey struct{ ip, uid string }
	// noPort stands for "no ports": upstream's sentinel port -1.
	noPort := api.EndpointPort{Port: -1}
	canonical := map[addrKey]*api.EndpointAddress{}
	// byPort maps each distinct port to its addresses and their readiness.
	type portKey struct {
		name, protocol string
		port           int32
		app            string
		hasApp         bool
	}
	keyOf := func(p api.EndpointPort) portKey {
		k := portKey{name: p.Name, protocol: p.Protocol, port: p.Port}
		if p.AppProtocol != nil {
			k.app, k.hasApp = *p.AppProtocol, true
		}
		return k
	}
	ports := map[portKey]api.EndpointPort{}
	byPort := map[portKey]map[*api.EndpointAddress]bool{}
	add := func(p api.EndpointPort, a *api.EndpointAddress, ready bool) {
		k := addrKey{ip: a.IP}
		if a.TargetRef != nil {
			k.uid = a.TargetRef.UID
		}
		c := canonical[k]
		if c == nil {
			cp := *a
			c = &cp
			canonical[k] = c
		}
		pk := keyOf(p)
		set := byPort[pk]
		if set == nil {
			set = map[*api.EndpointAddress]bool{}
			byPort[pk], ports[pk] = set, p
		}
		if was, seen := set[c]; !seen || was {
			set[c] = ready // not ready wins over ready
		}
	}
	for i := range subsets {
		s := &subsets[i]
		ps := s.Ports
		if len(ps) == 0 {
			ps = []api.EndpointPort{noPort}
		}
		for _, p := range ps {
			for j := range s.Addresses {
				add(p, &s.Addresses[j], true)
			}
			for j := range s.NotReadyAddresses {
				add(p, &s.NotReadyAddresses[j], false)
			}
		}
	}
	// Group the ports by their address sets: the key lists the set's
	// addresses, sorted, with their readiness.
	type group struct {
		set   map[*api.EndpointAddress]bool
		ports []api.EndpointPort
	}
	groups := map[string]*group{}
	var order []string
	for pk, set := range byPort {
		k := setKey(set)
		g := groups[k]
		if g == nil {
			g = &group{set: set}
			groups[k] = g
			order = append(order, k)
		}
		if p := ports[pk]; p.Port > 0 { // the no-port sentinel only makes the group exist
			g.ports = append(g.ports, p)
		}
	}
	out := make([]api.EndpointSubset, 0, len(order))
	for _, k := range order {
		g := groups[k]
		var s api.EndpointSubset
		for a, ready := range g.set {
			if ready {
				s.Addresses = append(s.Addresses, *a)
			} else {
				s.NotReadyAddresses = append(s.NotReadyAddresses, *a)
			}
		}
		s.Ports = g.ports
		out = append(out, s)
	}
	return Sort(out)
}

// setKey names a set of addresses with their readiness: the same set
// gives the same key whatever the map's order.
func setKey(set map[*api.EndpointAddress]bool) string {
	type entry struct {
		a     *api.EndpointAddress
		ready bool
	}
	es := make([]entry, 0, len(set))
	for a, r := range set {
		es = append(es, entry{a, r})
	}
	slices.SortFunc(es, func(x, y entry) int { return compareAddress(x.a, y.a) })
	var b strings.Builder
	for _, e := range es {
		b.WriteString(e.a.IP)
		b.WriteByte(0)
		if e.a.TargetRef != nil {
			b.WriteString(e.a.TargetRef.UID)
		}
		b.WriteByte(0)
		b.WriteString(strconv.FormatBool(e.ready))
		b.WriteByte(0)
	}
	return b.String()
}

// Sort sorts each subset's addresses by IP then pod UID, its ports
// and the subsets themselves by the hash Kubernetes orders them by
// (pkg/api/v1/endpoints SortSubsets), in place, and returns subsets.
func Sort(subsets []api.EndpointSubset) []api.EndpointSubset {
	for i := range subsets {
		s := &subsets[i]
		slices.SortFunc(s.Addresses, func(a, b api.EndpointAddress) int { return compareAddress(&a, &b) })
		slices.SortFunc(s.NotReadyAddresses, func(a, b api.EndpointAddress) int { return compareAddress(&a, &b) })
		hashorder.Sort(s.Ports, hashorder.EndpointPortText)
	}
	hashorder.Sort(subsets, hashorder.SubsetText)
	return subsets
}

// compareAddress orders addresses by IP (bytewise), then by pod UID, an
// address without a pod first (LessEndpointAddress).
func compareAddress(a, b *api.EndpointAddress) int {
	if c := strings.Compare(a.IP, b.IP); c != 0 {
		return c
	}
	switch {
	case a.TargetRef == nil && b.TargetRef == nil:
		return 0
	case a.TargetRef == nil:
		return -1
	case b.TargetRef == nil:
		return 1
	}
	return strings.Compare(a.TargetRef.UID, b.TargetRef.UID)
}
