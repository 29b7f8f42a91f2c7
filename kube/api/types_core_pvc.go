package api

// This file holds core/v1 PersistentVolumeClaim: the claims a StatefulSet's
// volumeClaimTemplates stamp out for each pod. The struct models what the
// StatefulSet controller reads and writes (metadata and ownerReferences,
// the requested storage, the phase) and what resource quota counts (the
// storage class, the allocated storage, the VolumeAttributesClass names);
// fields not modelled (dataSourceRef, ...) survive a read-modify-write
// through the object's raw JSON.

var _ Object = (*PersistentVolumeClaim)(nil)

// PersistentVolumeClaim is a core/v1 PersistentVolumeClaim. In a
// StatefulSet's volumeClaimTemplates only its metadata and spec are used.
type PersistentVolumeClaim struct {
	TypeMeta
	ObjectMeta `json:"metadata"`
	Spec       PersistentVolumeClaimSpec   `json:"spec,omitempty"`
	Status     PersistentVolumeClaimStatus `json:"status,omitempty"`
}

// PersistentVolumeAccessMode is ReadWriteOnce, ReadOnlyMany, ReadWriteMany
// or ReadWriteOncePod.
type PersistentVolumeAccessMode string

// The access modes.
const (
	ReadWriteOnce    PersistentVolumeAccessMode = "ReadWriteOnce"
	ReadOnlyMany     PersistentVolumeAccessMode = "ReadOnlyMany"
	ReadWriteMany    PersistentVolumeAccessMode = "ReadWriteMany"
	ReadWriteOncePod PersistentVolumeAccessMode = "ReadWriteOncePod"
)

// PersistentVolumeClaimSpec is what a claim asks for. Quantities stay in
// their wire form.
type PersistentVolumeClaimSpec struct {
	AccessModes      []PersistentVolumeAccessMode `json:"accessModes,omitempty"`
	Selector         *LabelSelector               `json:"selector,omitempty"`
	Resources        VolumeResourceRequirements   `json:"resources,omitempty"`
	VolumeName       string                       `json:"volumeName,omitempty"`
	StorageClassName *string                      `json:"storageClassName,omitempty"`
	VolumeMode       *string                      `json:"volumeMode,omitempty"`
	DataSource       *TypedLocalObjectReference   `json:"dataSource,omitempty"`
	// VolumeAttributesClassName names the VolumeAttributesClass the claim
	// asks for (quota's VolumeAttributesClass scope).
	VolumeAttributesClassName *string `json:"volumeAttributesClassName,omitempty"`
}

// VolumeResourceRequirements are the storage a claim requests and its
// limit.
type VolumeResourceRequirements struct {
	Limits   ResourceList `json:"limits,omitempty"`
	Requests ResourceList `json:"requests,omitempty"`
}

// TypedLocalObjectReference names an object of any group in the same
// namespace (a claim's data source: a VolumeSnapshot, another claim).
type TypedLocalObjectReference struct {
	APIGroup *string `json:"apiGroup"`
	Kind     string  `json:"kind"`
	Name     string  `json:"name"`
}

// PersistentVolumeClaimPhase is Pending, Bound or Lost.
type PersistentVolumeClaimPhase string

// The claim phases.
const (
	ClaimPending PersistentVolumeClaimPhase = "Pending"
	ClaimBound   PersistentVolumeClaimPhase = "Bound"
	ClaimLost    PersistentVolumeClaimPhase = "Lost"
)

// PersistentVolumeClaimStatus is the observed state of a claim.
type PersistentVolumeClaimStatus struct {
	Phase       PersistentVolumeClaimPhase       `json:"phase,omitempty"`
	AccessModes []PersistentVolumeAccessMode     `json:"accessModes,omitempty"`
	Capacity    ResourceList                     `json:"capacity,omitempty"`
	Conditions  []PersistentVolumeClaimCondition `json:"conditions,omitempty"`
	// AllocatedResources is the storage allocated to the claim (larger than
	// the request while an expansion is under way); quota counts the larger.
	AllocatedResources               ResourceList        `json:"allocatedResources,omitempty"`
	CurrentVolumeAttributesClassName *string             `json:"currentVolumeAttributesClassName,omitempty"`
	ModifyVolumeStatus               *ModifyVolumeStatus `json:"modifyVolumeStatus,omitempty"`
}

// ModifyVolumeStatus is the state of a change of a claim's
// VolumeAttributesClass.
type ModifyVolumeStatus struct {
	TargetVolumeAttributesClassName string `json:"targetVolumeAttributesClassName,omitempty"`
	Status                          string `json:"status"`
}

// PersistentVolumeClaimCondition is one entry of a claim's
// status.conditions (Resizing, FileSystemResizePending, ...).
type PersistentVolumeClaimCondition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	LastProbeTime      Time            `json:"lastProbeTime,omitempty"`
	LastTransitionTime Time            `json:"lastTransitionTime,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
}
