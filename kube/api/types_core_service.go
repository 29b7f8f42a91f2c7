package api

// This file holds the core/v1 kinds of service discovery: Service and
// Endpoints (kept apart from types_core.go to keep files short). As there,
// each models the fields kcm's controllers use, with k8s.io/api's json
// tags; unmodelled fields survive a read-modify-write.

var (
	_ Object = (*Service)(nil)
	_ Object = (*Endpoints)(nil)
)

// Service is a core/v1 Service: a stable address for the pods its
// selector matches.
type Service struct {
	TypeMeta
	ObjectMeta `json:"metadata"`
	Spec       ServiceSpec `json:"spec,omitempty"`
}

// ServiceType says how a Service is exposed.
type ServiceType string

// The service types.
const (
	ServiceTypeClusterIP    ServiceType = "ClusterIP"
	ServiceTypeNodePort     ServiceType = "NodePort"
	ServiceTypeLoadBalancer ServiceType = "LoadBalancer"
	ServiceTypeExternalName ServiceType = "ExternalName"
)

// ClusterIPNone is spec.clusterIP of a headless Service.
const ClusterIPNone = "None"

// The IP families of spec.ipFamilies.
const (
	IPv4Protocol = "IPv4"
	IPv6Protocol = "IPv6"
)

// ServiceSpec is the part of a Service's spec that endpoint controllers
// read. A nil Selector (as opposed to an empty one) means the Service's
// endpoints are managed by someone else.
type ServiceSpec struct {
	Ports                    []ServicePort     `json:"ports,omitempty"`
	Selector                 map[string]string `json:"selector,omitempty"`
	ClusterIP                string            `json:"clusterIP,omitempty"`
	ClusterIPs               []string          `json:"clusterIPs,omitempty"`
	Type                     ServiceType       `json:"type,omitempty"`
	ExternalName             string            `json:"externalName,omitempty"`
	PublishNotReadyAddresses bool              `json:"publishNotReadyAddresses,omitempty"`
	IPFamilies               []string          `json:"ipFamilies,omitempty"`
	IPFamilyPolicy           *string           `json:"ipFamilyPolicy,omitempty"`
	TrafficDistribution      *string           `json:"trafficDistribution,omitempty"`
	// AllocateLoadBalancerNodePorts false: a LoadBalancer Service without
	// node ports (resource quota counts only the ports that have one).
	AllocateLoadBalancerNodePorts *bool `json:"allocateLoadBalancerNodePorts,omitempty"`
}

// ServicePort is one port a Service exposes and the pods' port it
// forwards to: TargetPort is a number or the name of a container port,
// looked up in each pod.
type ServicePort struct {
	Name        string      `json:"name,omitempty"`
	Protocol    string      `json:"protocol,omitempty"`
	AppProtocol *string     `json:"appProtocol,omitempty"`
	Port        int32       `json:"port"`
	TargetPort  IntOrString `json:"targetPort,omitempty"`
	NodePort    int32       `json:"nodePort,omitempty"`
}

// Endpoints is a core/v1 Endpoints object: the addresses behind the
// Service of the same name, grouped into subsets that share their ports.
type Endpoints struct {
	TypeMeta
	ObjectMeta `json:"metadata"`
	Subsets    []EndpointSubset `json:"subsets,omitempty"`
}

// EndpointSubset is a group of addresses (ready and not ready) that all
// serve the same ports.
type EndpointSubset struct {
	Addresses         []EndpointAddress `json:"addresses,omitempty"`
	NotReadyAddresses []EndpointAddress `json:"notReadyAddresses,omitempty"`
	Ports             []EndpointPort    `json:"ports,omitempty"`
}

// EndpointAddress is one address of an Endpoints subset, usually a pod's.
type EndpointAddress struct {
	IP        string           `json:"ip"`
	Hostname  string           `json:"hostname,omitempty"`
	NodeName  *string          `json:"nodeName,omitempty"`
	TargetRef *ObjectReference `json:"targetRef,omitempty"`
}

// EndpointPort is one port of an Endpoints subset.
type EndpointPort struct {
	Name        string  `json:"name,omitempty"`
	Port        int32   `json:"port"`
	Protocol    string  `json:"protocol,omitempty"`
	AppProtocol *string `json:"appProtocol,omitempty"`
}
