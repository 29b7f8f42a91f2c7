package api

import "bytes"

// This file holds the apps/v1 kinds of stateful workloads: StatefulSet and
// the ControllerRevision in which a StatefulSet (or DaemonSet) records each
// pod template it has had. Tags follow k8s.io/api v1.37; as elsewhere the
// structs model the fields kcm's controllers use, and unmodelled fields
// survive a read-modify-write through the object's raw JSON.

// Compile-time checks that every kind is an Object.
var (
	_ Object = (*StatefulSet)(nil)
	_ Object = (*ControllerRevision)(nil)
)

// StatefulSet is an apps/v1 StatefulSet.
type StatefulSet struct {
	TypeMeta
	ObjectMeta `json:"metadata" pb:"1"`
	Spec       StatefulSetSpec   `json:"spec,omitempty" pb:"2"`
	Status     StatefulSetStatus `json:"status,omitempty" pb:"3"`
}

// StatefulSetSpec is the desired state of a StatefulSet. The apiserver
// defaults replicas (1), podManagementPolicy (OrderedReady), the update
// strategy (RollingUpdate with partition 0), revisionHistoryLimit (10) and
// the claim retention policy (Retain, Retain).
type StatefulSetSpec struct {
	// Replicas is the desired number of pods; nil means 1.
	Replicas *int32          `json:"replicas,omitempty" pb:"1"`
	Selector *LabelSelector  `json:"selector" pb:"2"`
	Template PodTemplateSpec `json:"template" pb:"3"`
	// VolumeClaimTemplates are the claims each pod gets, named
	// <claim>-<set>-<ordinal>.
	VolumeClaimTemplates                 []PersistentVolumeClaim                          `json:"volumeClaimTemplates,omitempty" pb:"4"`
	ServiceName                          string                                           `json:"serviceName" pb:"5"`
	PodManagementPolicy                  PodManagementPolicyType                          `json:"podManagementPolicy,omitempty" pb:"6"`
	UpdateStrategy                       StatefulSetUpdateStrategy                        `json:"updateStrategy,omitempty" pb:"7"`
	RevisionHistoryLimit                 *int32                                           `json:"revisionHistoryLimit,omitempty" pb:"8"`
	MinReadySeconds                      int32                                            `json:"minReadySeconds,omitempty" pb:"9"`
	PersistentVolumeClaimRetentionPolicy *StatefulSetPersistentVolumeClaimRetentionPolicy `json:"persistentVolumeClaimRetentionPolicy,omitempty" pb:"10"`
	Ordinals                             *StatefulSetOrdinals                             `json:"ordinals,omitempty" pb:"11"`
}

// PodManagementPolicyType is OrderedReady or Parallel.
type PodManagementPolicyType string

// The pod management policies.
const (
	OrderedReadyPodManagement PodManagementPolicyType = "OrderedReady"
	ParallelPodManagement     PodManagementPolicyType = "Parallel"
)

// StatefulSetUpdateStrategyType is RollingUpdate, OnDelete or Recreate.
type StatefulSetUpdateStrategyType string

// The StatefulSet update strategies (Recreate is behind the
// StatefulSetRecreateStrategy feature gate).
const (
	RollingUpdateStatefulSetStrategyType StatefulSetUpdateStrategyType = "RollingUpdate"
	OnDeleteStatefulSetStrategyType      StatefulSetUpdateStrategyType = "OnDelete"
	RecreateStatefulSetStrategyType      StatefulSetUpdateStrategyType = "Recreate"
)

// StatefulSetUpdateStrategy says how pods move to a new template.
type StatefulSetUpdateStrategy struct {
	Type          StatefulSetUpdateStrategyType     `json:"type,omitempty" pb:"1"`
	RollingUpdate *RollingUpdateStatefulSetStrategy `json:"rollingUpdate,omitempty" pb:"2"`
}

// RollingUpdateStatefulSetStrategy bounds a rolling update: pods with an
// ordinal below Partition keep the current revision; MaxUnavailable (a
// count or a percentage of replicas) is read only behind the
// MaxUnavailableStatefulSet feature gate.
type RollingUpdateStatefulSetStrategy struct {
	Partition      *int32       `json:"partition,omitempty" pb:"1"`
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty" pb:"2"`
}

// PersistentVolumeClaimRetentionPolicyType is Retain or Delete.
type PersistentVolumeClaimRetentionPolicyType string

// The claim retention policies.
const (
	RetainPersistentVolumeClaimRetentionPolicyType PersistentVolumeClaimRetentionPolicyType = "Retain"
	DeletePersistentVolumeClaimRetentionPolicyType PersistentVolumeClaimRetentionPolicyType = "Delete"
)

// StatefulSetPersistentVolumeClaimRetentionPolicy says what happens to the
// claims of volumeClaimTemplates when the set is deleted or scaled down.
type StatefulSetPersistentVolumeClaimRetentionPolicy struct {
	WhenDeleted PersistentVolumeClaimRetentionPolicyType `json:"whenDeleted,omitempty" pb:"1"`
	WhenScaled  PersistentVolumeClaimRetentionPolicyType `json:"whenScaled,omitempty" pb:"2"`
}

// StatefulSetOrdinals sets the first ordinal of a set's pods.
type StatefulSetOrdinals struct {
	Start int32 `json:"start" pb:"1"`
}

// StatefulSetStatus is the observed state of a StatefulSet.
type StatefulSetStatus struct {
	ObservedGeneration int64                  `json:"observedGeneration,omitempty" pb:"1"`
	Replicas           int32                  `json:"replicas" pb:"2"`
	ReadyReplicas      int32                  `json:"readyReplicas,omitempty" pb:"3"`
	CurrentReplicas    int32                  `json:"currentReplicas,omitempty" pb:"4"`
	UpdatedReplicas    int32                  `json:"updatedReplicas,omitempty" pb:"5"`
	CurrentRevision    string                 `json:"currentRevision,omitempty" pb:"6"`
	UpdateRevision     string                 `json:"updateRevision,omitempty" pb:"7"`
	CollisionCount     *int32                 `json:"collisionCount,omitempty" pb:"9"`
	Conditions         []StatefulSetCondition `json:"conditions,omitempty" pb:"10"`
	AvailableReplicas  int32                  `json:"availableReplicas" pb:"11"`
}

// StatefulSetConditionType names a StatefulSet condition.
type StatefulSetConditionType string

// StatefulSetProgressing is the condition the Recreate strategy sets.
const StatefulSetProgressing StatefulSetConditionType = "Progressing"

// StatefulSetCondition is one entry of a StatefulSet's status.conditions.
type StatefulSetCondition struct {
	Type               StatefulSetConditionType `json:"type" pb:"1"`
	Status             ConditionStatus          `json:"status" pb:"2"`
	LastTransitionTime Time                     `json:"lastTransitionTime,omitempty" pb:"3"`
	Reason             string                   `json:"reason,omitempty" pb:"4"`
	Message            string                   `json:"message,omitempty" pb:"5"`
}

// ControllerRevision is an apps/v1 ControllerRevision: an immutable
// snapshot of a controller's state (for a StatefulSet, a patch that
// restores its pod template) and the revision number it had.
type ControllerRevision struct {
	TypeMeta
	ObjectMeta `json:"metadata" pb:"1"`
	// Data is the snapshot, kept as the JSON bytes read or to be
	// written: revisions are compared and hashed byte for byte. Read as
	// JSON they are the bytes of the apiserver's answer; read as protobuf,
	// the stored bytes in the form the apiserver's JSON gives them
	// (compact, <, > and & escaped: package protocodec), so both reads
	// agree.
	Data     RawExtension `json:"data" pb:"2"`
	Revision int64        `json:"revision" pb:"3"`
}

// RawExtension is a JSON value held as its bytes (runtime.RawExtension):
// decoding JSON keeps the value's bytes as read (protobuf: see
// ControllerRevision.Data), encoding writes them back unchanged; nil
// bytes are null.
type RawExtension struct {
	Raw []byte
}

// MarshalJSON writes the bytes, or null when there are none.
func (r RawExtension) MarshalJSON() ([]byte, error) {
	if r.Raw == nil {
		return []byte("null"), nil
	}
	return r.Raw, nil
}

// UnmarshalJSON keeps a copy of the value's bytes; null leaves Raw nil.
func (r *RawExtension) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		r.Raw = nil
		return nil
	}
	r.Raw = append(r.Raw[:0:0], b...)
	return nil
}
