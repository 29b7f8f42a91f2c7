package endpointset

import "github.com/kcmlab/kcm/kube/api"

// Set is the desired endpoints of one port set (EndpointSet): a set by
// Key that remembers the order in which keys were first inserted, so that
// popping and listing are deterministic (upstream pops in map order).
// The zero Set is empty and ready to use.
type Set struct {
	byKey map[Key]*api.Endpoint
	order []Key
}

// Insert adds ep, replacing an endpoint with the same Key in its place.
func (s *Set) Insert(ep *api.Endpoint) {
	if s.byKey == nil {
		s.byKey = map[Key]*api.Endpoint{}
	}
	k := KeyOf(ep)
	if _, ok := s.byKey[k]; !ok {
		s.order = append(s.order, k)
	}
	s.byKey[k] = ep
}

// Get returns the endpoint with ep's Key, or nil.
func (s *Set) Get(ep *api.Endpoint) *api.Endpoint { return s.byKey[KeyOf(ep)] }

// Remove takes the endpoint with ep's Key out of the set.
func (s *Set) Remove(ep *api.Endpoint) { delete(s.byKey, KeyOf(ep)) }

// Len is the number of endpoints in the set.
func (s *Set) Len() int { return len(s.byKey) }

// Pop removes and returns the earliest inserted endpoint still in the
// set, or nil when it is empty.
func (s *Set) Pop() *api.Endpoint {
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

// List returns the endpoints in the set, earliest inserted first.
func (s *Set) List() []*api.Endpoint {
	out := make([]*api.Endpoint, 0, len(s.byKey))
	for _, k := range s.order {
		if ep, ok := s.byKey[k]; ok {
			out = append(out, ep)
		}
	}
	return out
}
