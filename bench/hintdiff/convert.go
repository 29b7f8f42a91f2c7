package hintdiff

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discovery "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kcmlab/kcm/kube/api"
)

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func boolPtr(b *bool) *bool {
	if b == nil {
		return nil
	}
	v := *b
	return &v
}

func nodeLabels(n Node) map[string]string {
	l := map[string]string{}
	if n.Zone != "" {
		l["topology.kubernetes.io/zone"] = n.Zone
	}
	if n.ControlPlane {
		l["node-role.kubernetes.io/control-plane"] = ""
	}
	return l
}

func k8sNodes(ns []Node) []*corev1.Node {
	var out []*corev1.Node
	for i, n := range ns {
		st := corev1.ConditionFalse
		if n.Ready {
			st = corev1.ConditionTrue
		}
		out = append(out, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("node", i), Labels: nodeLabels(n)},
			Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(n.CPU)},
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: st}}}})
	}
	return out
}

func kcmNodes(ns []Node) []*api.Node {
	var out []*api.Node
	for i, n := range ns {
		st := api.ConditionFalse
		if n.Ready {
			st = api.ConditionTrue
		}
		nd := &api.Node{ObjectMeta: api.ObjectMeta{Name: fmt.Sprint("node", i), Labels: nodeLabels(n)}}
		nd.Status.Allocatable = api.ResourceList{"cpu": n.CPU}
		nd.Status.Conditions = []api.NodeCondition{{Type: "Ready", Status: st}}
		out = append(out, nd)
	}
	return out
}

func k8sSlices(ss []Slice) []*discovery.EndpointSlice {
	out := []*discovery.EndpointSlice{}
	for _, s := range ss {
		ks := &discovery.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: s.Name}, AddressType: discovery.AddressTypeIPv4}
		for i, e := range s.Endpoints {
			ke := discovery.Endpoint{Addresses: []string{fmt.Sprint("10.0.0.", i)}, Zone: strPtr(e.Zone), NodeName: strPtr(e.Node),
				Conditions: discovery.EndpointConditions{Ready: boolPtr(e.Ready)}}
			if e.HasHints {
				ke.Hints = &discovery.EndpointHints{}
				for _, z := range e.HintZones {
					ke.Hints.ForZones = append(ke.Hints.ForZones, discovery.ForZone{Name: z})
				}
				for _, n := range e.HintNodes {
					ke.Hints.ForNodes = append(ke.Hints.ForNodes, discovery.ForNode{Name: n})
				}
			}
			ks.Endpoints = append(ks.Endpoints, ke)
		}
		out = append(out, ks)
	}
	return out
}

func kcmSlices(ss []Slice) []*api.EndpointSlice {
	out := []*api.EndpointSlice{}
	for _, s := range ss {
		as := &api.EndpointSlice{ObjectMeta: api.ObjectMeta{Name: s.Name}, AddressType: api.AddressTypeIPv4}
		for i, e := range s.Endpoints {
			ae := api.Endpoint{Addresses: []string{fmt.Sprint("10.0.0.", i)}, Zone: strPtr(e.Zone), NodeName: strPtr(e.Node),
				Conditions: api.EndpointConditions{Ready: boolPtr(e.Ready)}}
			if e.HasHints {
				ae.Hints = &api.EndpointHints{}
				for _, z := range e.HintZones {
					ae.Hints.ForZones = append(ae.Hints.ForZones, api.ForZone{Name: z})
				}
				for _, n := range e.HintNodes {
					ae.Hints.ForNodes = append(ae.Hints.ForNodes, api.ForNode{Name: n})
				}
			}
			as.Endpoints = append(as.Endpoints, ae)
		}
		out = append(out, as)
	}
	return out
}

// hinted is a slice as compared: its name and each endpoint's hints.
type hinted struct {
	Name      string
	Endpoints []hints
}

type hints struct {
	Set          bool // a hints object, possibly empty
	Zones, Nodes []string
}

func fromK8s(ss []*discovery.EndpointSlice) []hinted {
	out := []hinted{}
	for _, s := range ss {
		h := hinted{Name: s.Name}
		for _, e := range s.Endpoints {
			var x hints
			if e.Hints != nil {
				x.Set = true
				for _, z := range e.Hints.ForZones {
					x.Zones = append(x.Zones, z.Name)
				}
				for _, n := range e.Hints.ForNodes {
					x.Nodes = append(x.Nodes, n.Name)
				}
			}
			h.Endpoints = append(h.Endpoints, x)
		}
		out = append(out, h)
	}
	return out
}

func fromKCM(ss []*api.EndpointSlice) []hinted {
	out := []hinted{}
	for _, s := range ss {
		h := hinted{Name: s.Name}
		for _, e := range s.Endpoints {
			var x hints
			if e.Hints != nil {
				x.Set = true
				for _, z := range e.Hints.ForZones {
					x.Zones = append(x.Zones, z.Name)
				}
				for _, n := range e.Hints.ForNodes {
					x.Nodes = append(x.Nodes, n.Name)
				}
			}
			h.Endpoints = append(h.Endpoints, x)
		}
		out = append(out, h)
	}
	return out
}
