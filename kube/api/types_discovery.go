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
	ObjectMeta  `json:"metadata" pb:"1"`
	AddressType string              `json:"addressType" pb:"4"`
	Endpoints   []Endpoint          `json:"endpoints" pb:"2"`
	Ports       []EndpointSlicePort `json:"ports" pb:"3"`
}

// Endpoint is one backend of an EndpointSlice, usually a pod.
type Endpoint struct {
	Addresses  []string           `json:"addresses" pb:"1"`
	Conditions EndpointConditions `json:"conditions,omitempty" pb:"2"`
	Hostname   *string            `json:"hostname,omitempty" pb:"3"`
	TargetRef  *ObjectReference   `json:"targetRef,omitempty" pb:"4"`
	NodeName   *string            `json:"nodeName,omitempty" pb:"6"`
	Zone       *string            `json:"zone,omitempty" pb:"7"`
	Hints      *EndpointHints     `json:"hints,omitempty" pb:"8"`
}

// EndpointConditions are an endpoint's ready, serving and terminating
// states; nil means unknown (consumers read a nil ready as ready).
type EndpointConditions struct {
	Ready       *bool `json:"ready,omitempty" pb:"1"`
	Serving     *bool `json:"serving,omitempty" pb:"2"`
	Terminating *bool `json:"terminating,omitempty" pb:"3"`
}

// EndpointHints are the topology-aware routing hints: the zones (and
// nodes) whose clients should prefer this endpoint.
type EndpointHints struct {
	ForZones []ForZone `json:"forZones,omitempty" pb:"1"`
	ForNodes []ForNode `json:"forNodes,omitempty" pb:"2"`
}

// ForZone names a zone in an endpoint's hints.
type ForZone struct {
	Name string `json:"name" pb:"1"`
}

// ForNode names a node in an endpoint's hints.
type ForNode struct {
	Name string `json:"name" pb:"1"`
}

// EndpointSlicePort is one port every endpoint of a slice serves. Every
// field is optional: a nil Port means "all ports" and a nil Name the empty
// name.
type EndpointSlicePort struct {
	Name        *string `json:"name,omitempty" pb:"1"`
	Protocol    *string `json:"protocol,omitempty" pb:"2"`
	Port        *int32  `json:"port,omitempty" pb:"3"`
	AppProtocol *string `json:"appProtocol,omitempty" pb:"4"`
}
