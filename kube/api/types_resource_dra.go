package api

// This file holds the parts of resource.k8s.io/v1 (Dynamic Resource
// Allocation) that quota reads: a ResourceClaim's device requests and a
// DeviceClass's extended-resource name. Fields not modelled (selectors,
// config, allocation, status) survive a read-modify-write through the
// object's raw JSON.

var (
	_ Object = (*ResourceClaim)(nil)
	_ Object = (*DeviceClass)(nil)
)

// ExtendedResourceClaimAnnotation marks, with the value "true", the
// ResourceClaim the scheduler creates for a pod's extended-resource
// requests that a DeviceClass serves (resource.k8s.io/v1
// ExtendedResourceClaimAnnotation).
const ExtendedResourceClaimAnnotation = "resource.kubernetes.io/extended-resource-claim"

// ResourceClaim is a resource.k8s.io/v1 ResourceClaim: a request for
// devices.
type ResourceClaim struct {
	TypeMeta
	ObjectMeta `json:"metadata" pb:"1"`
	Spec       ResourceClaimSpec `json:"spec" pb:"2"`
}

// ResourceClaimSpec is what a claim asks for. It is immutable.
type ResourceClaimSpec struct {
	Devices DeviceClaim `json:"devices,omitempty" pb:"1"`
}

// DeviceClaim is a claim's spec.devices: the requests (constraints and
// config are not modelled).
type DeviceClaim struct {
	Requests []DeviceRequest `json:"requests,omitempty" pb:"1"`
}

// DeviceRequest is one request of a claim: Exactly one kind of device,
// or the FirstAvailable of a list of alternatives. A request that sets
// neither is of a kind this release does not know.
type DeviceRequest struct {
	Name           string              `json:"name" pb:"1"`
	Exactly        *ExactDeviceRequest `json:"exactly,omitempty" pb:"2"`
	FirstAvailable []DeviceSubRequest  `json:"firstAvailable,omitempty" pb:"3"`
}

// ExactDeviceRequest asks for devices of one DeviceClass: Count of them
// (AllocationMode ExactCount) or all that match (All).
type ExactDeviceRequest struct {
	DeviceClassName string               `json:"deviceClassName" pb:"1"`
	AllocationMode  DeviceAllocationMode `json:"allocationMode,omitempty" pb:"3"`
	Count           int64                `json:"count,omitempty" pb:"4"`
}

// DeviceSubRequest is one alternative of a FirstAvailable request.
type DeviceSubRequest struct {
	Name            string               `json:"name" pb:"1"`
	DeviceClassName string               `json:"deviceClassName" pb:"2"`
	AllocationMode  DeviceAllocationMode `json:"allocationMode,omitempty" pb:"4"`
	Count           int64                `json:"count,omitempty" pb:"5"`
}

// DeviceAllocationMode is how many devices a request asks for.
type DeviceAllocationMode string

// The allocation modes of resource.k8s.io/v1.
const (
	DeviceAllocationModeExactCount DeviceAllocationMode = "ExactCount"
	DeviceAllocationModeAll        DeviceAllocationMode = "All"
)

// AllocationResultsMaxSize is the most devices one claim may be
// allocated (resource.k8s.io/v1 AllocationResultsMaxSize): what quota
// charges for a request of mode All.
const AllocationResultsMaxSize = 32

// DeviceClass is a resource.k8s.io/v1 DeviceClass (cluster-scoped).
type DeviceClass struct {
	TypeMeta
	ObjectMeta `json:"metadata" pb:"1"`
	Spec       DeviceClassSpec `json:"spec" pb:"2"`
}

// DeviceClassSpec is the part of a class quota reads: the extended
// resource name pods may request the class's devices by.
type DeviceClassSpec struct {
	ExtendedResourceName *string `json:"extendedResourceName,omitempty" pb:"4"`
}

// PodExtendedResourceClaimStatus is a pod's
// status.extendedResourceClaimStatus: the claim the scheduler made for
// its extended-resource requests (its request mappings are not
// modelled).
type PodExtendedResourceClaimStatus struct {
	ResourceClaimName string `json:"resourceClaimName" pb:"2"`
}
