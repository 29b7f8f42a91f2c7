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
	ObjectMeta `json:"metadata" pb:"1"`
	Spec       ServiceSpec `json:"spec,omitempty" pb:"2"`
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
	Ports                    []ServicePort     `json:"ports,omitempty" pb:"1"`
	Selector                 map[string]string `json:"selector,omitempty" pb:"2"`
	ClusterIP                string            `json:"clusterIP,omitempty" pb:"3"`
	ClusterIPs               []string          `json:"clusterIPs,omitempty" pb:"18"`
	Type                     ServiceType       `json:"type,omitempty" pb:"4"`
	ExternalName             string            `json:"externalName,omitempty" pb:"10"`
	PublishNotReadyAddresses bool              `json:"publishNotReadyAddresses,omitempty" pb:"13"`
	IPFamilies               []string          `json:"ipFamilies,omitempty" pb:"19"`
	IPFamilyPolicy           *string           `json:"ipFamilyPolicy,omitempty" pb:"17"`
	TrafficDistribution      *string           `json:"trafficDistribution,omitempty" pb:"23"`
	// AllocateLoadBalancerNodePorts false: a LoadBalancer Service without
	// node ports (resource quota counts only the ports that have one).
	AllocateLoadBalancerNodePorts *bool `json:"allocateLoadBalancerNodePorts,omitempty" pb:"20"`
}

// ServicePort is one port a Service exposes and the pods' port it
// forwards to: TargetPort is a number or the name of a container port,
// looked up in each pod.
type ServicePort struct {
	Name        string      `json:"name,omitempty" pb:"1"`
	Protocol    string      `json:"protocol,omitempty" pb:"2"`
	AppProtocol *string     `json:"appProtocol,omitempty" pb:"6"`
	Port        int32       `json:"port" pb:"3"`
	TargetPort  IntOrString `json:"targetPort,omitempty" pb:"4"`
	NodePort    int32       `json:"nodePort,omitempty" pb:"5"`
}

// Endpoints is a core/v1 Endpoints object: the addresses behind the
// Service of the same name, grouped into subsets that share their ports.
type Endpoints struct {
	TypeMeta
	ObjectMeta `json:"metadata" pb:"1"`
	Subsets    []EndpointSubset `json:"subsets,omitempty" pb:"2"`
}

// EndpointSubset is a group of addresses (ready and not ready) that all
// serve the same ports.
type EndpointSubset struct {
	Addresses         []EndpointAddress `json:"addresses,omitempty" pb:"1"`
	NotReadyAddresses []EndpointAddress `json:"notReadyAddresses,omitempty" pb:"2"`
	Ports             []EndpointPort    `json:"ports,omitempty" pb:"3"`
}

// EndpointAddress is one address of an Endpoints subset, usually a pod's.
type EndpointAddress struct {
	IP        string           `json:"ip" pb:"1"`
	Hostname  string           `json:"hostname,omitempty" pb:"3"`
	NodeName  *string          `json:"nodeName,omitempty" pb:"4"`
	TargetRef *ObjectReference `json:"targetRef,omitempty" pb:"2"`
}

// EndpointPort is one port of an Endpoints subset.
type EndpointPort struct {
	Name        string  `json:"name,omitempty" pb:"1"`
	Port        int32   `json:"port" pb:"2"`
	Protocol    string  `json:"protocol,omitempty" pb:"3"`
	AppProtocol *string `json:"appProtocol,omitempty" pb:"4"`
}
