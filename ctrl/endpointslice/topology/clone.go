package topology

import (
	"maps"

	"github.com/kcmlab/kcm/kube/api"
)

// cloneSlice returns a copy of s that shares nothing mutable with it, so
// the caller may change the copy of an informer's slice (its hints, and
// later its labels and annotations) without touching the cache. Like
// api.DeepCopy the copy keeps where s came from, so an update of it keeps
// unmodelled fields; unlike it, it cannot fail and does not round-trip
// JSON.
func cloneSlice(s *api.EndpointSlice) *api.EndpointSlice {
	c := *s
	c.Labels = maps.Clone(s.Labels)
	c.Annotations = maps.Clone(s.Annotations)
	c.DeletionTimestamp = clonePtr(s.DeletionTimestamp)
	c.DeletionGracePeriodSeconds = clonePtr(s.DeletionGracePeriodSeconds)
	if s.OwnerReferences != nil {
		c.OwnerReferences = make([]api.OwnerReference, len(s.OwnerReferences))
		for i, r := range s.OwnerReferences {
			r.Controller = clonePtr(r.Controller)
			r.BlockOwnerDeletion = clonePtr(r.BlockOwnerDeletion)
			c.OwnerReferences[i] = r
		}
	}
	if s.Finalizers != nil {
		c.Finalizers = append([]string(nil), s.Finalizers...)
	}
	if s.Endpoints != nil {
		c.Endpoints = make([]api.Endpoint, len(s.Endpoints))
		for i := range s.Endpoints {
			c.Endpoints[i] = cloneEndpoint(s.Endpoints[i])
		}
	}
	if s.Ports != nil {
		c.Ports = make([]api.EndpointSlicePort, len(s.Ports))
		for i, p := range s.Ports {
			c.Ports[i] = api.EndpointSlicePort{
				Name:        clonePtr(p.Name),
				Protocol:    clonePtr(p.Protocol),
				Port:        clonePtr(p.Port),
				AppProtocol: clonePtr(p.AppProtocol),
			}
		}
	}
	return &c
}

// cloneEndpoint copies one endpoint deeply.
func cloneEndpoint(e api.Endpoint) api.Endpoint {
	c := e
	if e.Addresses != nil {
		c.Addresses = append([]string(nil), e.Addresses...)
	}
	c.Conditions = api.EndpointConditions{
		Ready:       clonePtr(e.Conditions.Ready),
		Serving:     clonePtr(e.Conditions.Serving),
		Terminating: clonePtr(e.Conditions.Terminating),
	}
	c.Hostname = clonePtr(e.Hostname)
	c.TargetRef = clonePtr(e.TargetRef)
	c.NodeName = clonePtr(e.NodeName)
	c.Zone = clonePtr(e.Zone)
	if e.Hints != nil {
		h := api.EndpointHints{}
		if e.Hints.ForZones != nil {
			h.ForZones = append([]api.ForZone(nil), e.Hints.ForZones...)
		}
		if e.Hints.ForNodes != nil {
			h.ForNodes = append([]api.ForNode(nil), e.Hints.ForNodes...)
		}
		c.Hints = &h
	}
	return c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
