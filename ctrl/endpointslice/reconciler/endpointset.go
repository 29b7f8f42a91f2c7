package reconciler

import (
	"encoding/hex"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/kcmlab/kcm/kube/api"
)

// endpointKey identifies an endpoint across syncs by what cannot change
// in place: its addresses (as a set), hostname and the namespace and name
// of its pod (upstream's endpointHash). Everything else — conditions,
// node, zone, hints, the pod's uid — is compared separately
// (endpointsEqualBeyondKey), so that such changes update the slice that
// holds the endpoint instead of moving it.
type endpointKey string

func keyOf(ep *api.Endpoint) endpointKey {
	addrs := slices.Clone(ep.Addresses)
	slices.Sort(addrs)
	var b strings.Builder
	for _, a := range addrs {
		b.WriteString(a)
		b.WriteByte(',')
	}
	b.WriteByte(0)
	if ep.Hostname != nil {
		b.WriteString(*ep.Hostname)
	}
	b.WriteByte(0)
	if ep.TargetRef != nil {
		b.WriteString(ep.TargetRef.Namespace)
		b.WriteByte('/')
		b.WriteString(ep.TargetRef.Name)
	}
	return endpointKey(b.String())
}

// endpointSet is the desired endpoints of one port set (EndpointSet):
// a set by endpointKey that remembers the order endpoints were inserted
// in, so that popping is deterministic (upstream pops in map order).
type endpointSet struct {
	byKey map[endpointKey]*api.Endpoint
	order []endpointKey
}

func newEndpointSet() *endpointSet { return &endpointSet{byKey: map[endpointKey]*api.Endpoint{}} }

// insert adds ep, replacing an endpoint with the same key.
func (s *endpointSet) insert(ep *api.Endpoint) {
	k := keyOf(ep)
	if _, ok := s.byKey[k]; !ok {
		s.order = append(s.order, k)
	}
	s.byKey[k] = ep
}

// get returns the desired endpoint with ep's key, or nil.
func (s *endpointSet) get(ep *api.Endpoint) *api.Endpoint { return s.byKey[keyOf(ep)] }

// remove takes the endpoint with ep's key out of the set.
func (s *endpointSet) remove(ep *api.Endpoint) { delete(s.byKey, keyOf(ep)) }

// len is the number of endpoints in the set.
func (s *endpointSet) len() int { return len(s.byKey) }

// pop removes and returns the earliest inserted endpoint still in the set.
func (s *endpointSet) pop() *api.Endpoint {
	for len(s.order) > 0 {
		k := s.order[0]
		s.order = s.order[1:]
		if ep, ok := s.byKey[k]; ok {
			delete(s.byKey, k)
			return ep
		}
	}
	return nil
}

// portMapKey identifies a set of slice ports whatever their order
// (PortMapKey): the slices of a Service are grouped by it.
type portMapKey string

// newPortMapKey returns the key of ports; ports is not modified (a
// cached slice's may be given).
func newPortMapKey(ports []api.EndpointSlicePort) portMapKey {
	return portMapKey(strings.Join(sortPortsByHash(slices.Clone(ports)), ","))
}

// sortPorts sorts ports in place into Kubernetes' order (sortPortsByHash)
// and returns their key.
func sortPorts(ports []api.EndpointSlicePort) portMapKey {
	return portMapKey(strings.Join(sortPortsByHash(ports), ","))
}

// sortPortsByHash sorts ports, in place, by the hex FNV-128a hash of each
// port's text as k8s.io/utils/dump.ForHash prints the discovery/v1
// EndpointPort (portsInOrder), and returns the sorted hashes. Upstream's
// NewPortMapKey sorts the desired ports so, and slices are written with
// their ports in this order.
func sortPortsByHash(ports []api.EndpointSlicePort) []string {
	type hashed struct {
		h string
		p api.EndpointSlicePort
	}
	hs := make([]hashed, len(ports))
	for i, p := range ports {
		f := fnv.New128a()
		f.Write([]byte(portHashText(p)))
		hs[i] = hashed{hex.EncodeToString(f.Sum(nil)), p}
	}
	slices.SortStableFunc(hs, func(a, b hashed) int { return strings.Compare(a.h, b.h) })
	out := make([]string, len(hs))
	for i := range hs {
		ports[i] = hs[i].p
		out[i] = hs[i].h
	}
	return out
}

// portHashText is dump.ForHash (go-spew, %#v, pointers followed) of a
// k8s.io/api discovery/v1 EndpointPort: its fields in k8s.io/api's order
// with their Go types as spew names them.
func portHashText(p api.EndpointSlicePort) string {
	var b strings.Builder
	b.WriteString("(v1.EndpointPort){Name:(*string)")
	writeOpt(&b, p.Name)
	b.WriteString(" Protocol:(*v1.Protocol)")
	writeOpt(&b, p.Protocol)
	b.WriteString(" Port:(*int32)")
	if p.Port == nil {
		b.WriteString("<nil>")
	} else {
		b.WriteString(strconv.FormatInt(int64(*p.Port), 10))
	}
	b.WriteString(" AppProtocol:(*string)")
	writeOpt(&b, p.AppProtocol)
	b.WriteByte('}')
	return b.String()
}

func writeOpt(b *strings.Builder, s *string) {
	if s == nil {
		b.WriteString("<nil>")
		return
	}
	b.WriteString(*s)
}
