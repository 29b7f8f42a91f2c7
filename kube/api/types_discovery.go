package api

// This file holds discovery.k8s.io/v1, the EndpointSlice: the scalable
// successor of core/v1 Endpoints that kube-proxy, service meshes and
// ingress controllers read. As elsewhere, the struct models the fields
// kcm's controllers use with k8s.io/api's json tags; unmodelled fields
// survive a read-modify-write.

var _ Object = (*EndpointSlice)(nil)

// The address types of an EndpointSlice (its addressType field).
const (
	AddressTypeIPv4 = "IPv4"
	AddressTypeIPv6 = "IPv6"
	AddressTypeFQDN = "FQDN"
)

// EndpointSlice is a discovery.k8s.io/v1 EndpointSlice: up to
// max-endpoints-per-slice endpoints of one Service and address family,
// all serving the same ports.
type EndpointSlice struct {
	TypeMeta
	ObjectMeta  `json:"metadata"`
	AddressType string              `json:"addressType"`
	Endpoints   []Endpoint          `json:"endpoints"`
	Ports       []EndpointSlicePort `json:"ports"`
}

// Endpoint is one backend of an EndpointSlice, usually a pod.
type Endpoint struct {
	Addresses  []string           `json:"addresses"`
	Conditions EndpointConditions `json:"conditions,omitempty"`
	Hostname   *string            `json:"hostname,omitempty"`
	TargetRef  *ObjectReference   `json:"targetRef,omitempty"`
	NodeName   *string            `json:"nodeName,omitempty"`
	Zone       *string            `json:"zone,omitempty"`
	Hints      *EndpointHints     `json:"hints,omitempty"`
}

// EndpointConditions are an endpoint's ready, serving and terminating
// states; nil means unknown (consumers read a nil ready as ready).
type EndpointConditions struct {
	Ready       *bool `json:"ready,omitempty"`
	Serving     *bool `json:"serving,omitempty"`
	Terminating *bool `json:"terminating,omitempty"`
}

// EndpointHints are the topology-aware routing hints: the zones (and
// nodes) whose clients should prefer this endpoint.
type EndpointHints struct {
	ForZones []ForZone `json:"forZones,omitempty"`
	ForNodes []ForNode `json:"forNodes,omitempty"`
}

// ForZone names a zone in an endpoint's hints.
type ForZone struct {
	Name string `json:"name"`
}

// ForNode names a node in an endpoint's hints.
type ForNode struct {
	Name string `json:"name"`
}

// EndpointSlicePort is one port every endpoint of a slice serves. Every
// field is optional: a nil Port means "all ports" and a nil Name the empty
// name.
type EndpointSlicePort struct {
	Name        *string `json:"name,omitempty"`
	Protocol    *string `json:"protocol,omitempty"`
	Port        *int32  `json:"port,omitempty"`
	AppProtocol *string `json:"appProtocol,omitempty"`
}
