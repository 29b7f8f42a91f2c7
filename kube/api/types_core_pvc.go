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
	ObjectMeta `json:"metadata" pb:"1"`
	Spec       PersistentVolumeClaimSpec   `json:"spec,omitempty" pb:"2"`
	Status     PersistentVolumeClaimStatus `json:"status,omitempty" pb:"3"`
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
	AccessModes      []PersistentVolumeAccessMode `json:"accessModes,omitempty" pb:"1"`
	Selector         *LabelSelector               `json:"selector,omitempty" pb:"4"`
	Resources        VolumeResourceRequirements   `json:"resources,omitempty" pb:"2"`
	VolumeName       string                       `json:"volumeName,omitempty" pb:"3"`
	StorageClassName *string                      `json:"storageClassName,omitempty" pb:"5"`
	VolumeMode       *string                      `json:"volumeMode,omitempty" pb:"6"`
	DataSource       *TypedLocalObjectReference   `json:"dataSource,omitempty" pb:"7"`
	// VolumeAttributesClassName names the VolumeAttributesClass the claim
	// asks for (quota's VolumeAttributesClass scope).
	VolumeAttributesClassName *string `json:"volumeAttributesClassName,omitempty" pb:"9"`
}

// VolumeResourceRequirements are the storage a claim requests and its
// limit.
type VolumeResourceRequirements struct {
	Limits   ResourceList `json:"limits,omitempty" pb:"1"`
	Requests ResourceList `json:"requests,omitempty" pb:"2"`
}

// TypedLocalObjectReference names an object of any group in the same
// namespace (a claim's data source: a VolumeSnapshot, another claim).
type TypedLocalObjectReference struct {
	APIGroup *string `json:"apiGroup" pb:"1"`
	Kind     string  `json:"kind" pb:"2"`
	Name     string  `json:"name" pb:"3"`
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
	Phase       PersistentVolumeClaimPhase       `json:"phase,omitempty" pb:"1"`
	AccessModes []PersistentVolumeAccessMode     `json:"accessModes,omitempty" pb:"2"`
	Capacity    ResourceList                     `json:"capacity,omitempty" pb:"3"`
	Conditions  []PersistentVolumeClaimCondition `json:"conditions,omitempty" pb:"4"`
	// AllocatedResources is the storage allocated to the claim (larger than
	// the request while an expansion is under way); quota counts the larger.
	AllocatedResources               ResourceList        `json:"allocatedResources,omitempty" pb:"5"`
	CurrentVolumeAttributesClassName *string             `json:"currentVolumeAttributesClassName,omitempty" pb:"8"`
	ModifyVolumeStatus               *ModifyVolumeStatus `json:"modifyVolumeStatus,omitempty" pb:"9"`
}

// ModifyVolumeStatus is the state of a change of a claim's
// VolumeAttributesClass.
type ModifyVolumeStatus struct {
	TargetVolumeAttributesClassName string `json:"targetVolumeAttributesClassName,omitempty" pb:"1"`
	Status                          string `json:"status" pb:"2"`
}

// PersistentVolumeClaimCondition is one entry of a claim's
// status.conditions (Resizing, FileSystemResizePending, ...).
type PersistentVolumeClaimCondition struct {
	Type               string          `json:"type" pb:"1"`
	Status             ConditionStatus `json:"status" pb:"2"`
	LastProbeTime      Time            `json:"lastProbeTime,omitempty" pb:"3"`
	LastTransitionTime Time            `json:"lastTransitionTime,omitempty" pb:"4"`
	Reason             string          `json:"reason,omitempty" pb:"5"`
	Message            string          `json:"message,omitempty" pb:"6"`
}
