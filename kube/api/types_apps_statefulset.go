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
	ObjectMeta `json:"metadata"`
	Spec       StatefulSetSpec   `json:"spec,omitempty"`
	Status     StatefulSetStatus `json:"status,omitempty"`
}

// StatefulSetSpec is the desired state of a StatefulSet. The apiserver
// defaults replicas (1), podManagementPolicy (OrderedReady), the update
// strategy (RollingUpdate with partition 0), revisionHistoryLimit (10) and
// the claim retention policy (Retain, Retain).
type StatefulSetSpec struct {
	// Replicas is the desired number of pods; nil means 1.
	Replicas *int32          `json:"replicas,omitempty"`
	Selector *LabelSelector  `json:"selector"`
	Template PodTemplateSpec `json:"template"`
	// VolumeClaimTemplates are the claims each pod gets, named
	// <claim>-<set>-<ordinal>.
	VolumeClaimTemplates                 []PersistentVolumeClaim                          `json:"volumeClaimTemplates,omitempty"`
	ServiceName                          string                                           `json:"serviceName"`
	PodManagementPolicy                  PodManagementPolicyType                          `json:"podManagementPolicy,omitempty"`
	UpdateStrategy                       StatefulSetUpdateStrategy                        `json:"updateStrategy,omitempty"`
	RevisionHistoryLimit                 *int32                                           `json:"revisionHistoryLimit,omitempty"`
	MinReadySeconds                      int32                                            `json:"minReadySeconds,omitempty"`
	PersistentVolumeClaimRetentionPolicy *StatefulSetPersistentVolumeClaimRetentionPolicy `json:"persistentVolumeClaimRetentionPolicy,omitempty"`
	Ordinals                             *StatefulSetOrdinals                             `json:"ordinals,omitempty"`
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
	Type          StatefulSetUpdateStrategyType     `json:"type,omitempty"`
	RollingUpdate *RollingUpdateStatefulSetStrategy `json:"rollingUpdate,omitempty"`
}

// RollingUpdateStatefulSetStrategy bounds a rolling update: pods with an
// ordinal below Partition keep the current revision; MaxUnavailable (a
// count or a percentage of replicas) is read only behind the
// MaxUnavailableStatefulSet feature gate.
type RollingUpdateStatefulSetStrategy struct {
	Partition      *int32       `json:"partition,omitempty"`
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty"`
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
	WhenDeleted PersistentVolumeClaimRetentionPolicyType `json:"whenDeleted,omitempty"`
	WhenScaled  PersistentVolumeClaimRetentionPolicyType `json:"whenScaled,omitempty"`
}

// StatefulSetOrdinals sets the first ordinal of a set's pods.
type StatefulSetOrdinals struct {
	Start int32 `json:"start"`
}

// StatefulSetStatus is the observed state of a StatefulSet.
type StatefulSetStatus struct {
	ObservedGeneration int64                  `json:"observedGeneration,omitempty"`
	Replicas           int32                  `json:"replicas"`
	ReadyReplicas      int32                  `json:"readyReplicas,omitempty"`
	CurrentReplicas    int32                  `json:"currentReplicas,omitempty"`
	UpdatedReplicas    int32                  `json:"updatedReplicas,omitempty"`
	CurrentRevision    string                 `json:"currentRevision,omitempty"`
	UpdateRevision     string                 `json:"updateRevision,omitempty"`
	CollisionCount     *int32                 `json:"collisionCount,omitempty"`
	Conditions         []StatefulSetCondition `json:"conditions,omitempty"`
	AvailableReplicas  int32                  `json:"availableReplicas"`
}

// StatefulSetConditionType names a StatefulSet condition.
type StatefulSetConditionType string

// StatefulSetProgressing is the condition the Recreate strategy sets.
const StatefulSetProgressing StatefulSetConditionType = "Progressing"

// StatefulSetCondition is one entry of a StatefulSet's status.conditions.
type StatefulSetCondition struct {
	Type               StatefulSetConditionType `json:"type"`
	Status             ConditionStatus          `json:"status"`
	LastTransitionTime Time                     `json:"lastTransitionTime,omitempty"`
	Reason             string                   `json:"reason,omitempty"`
	Message            string                   `json:"message,omitempty"`
}

// ControllerRevision is an apps/v1 ControllerRevision: an immutable
// snapshot of a controller's state (for a StatefulSet, a patch that
// restores its pod template) and the revision number it had.
type ControllerRevision struct {
	TypeMeta
	ObjectMeta `json:"metadata"`
	// Data is the snapshot, kept as the exact JSON bytes read or to be
	// written: revisions are compared and hashed byte for byte.
	Data     RawExtension `json:"data"`
	Revision int64        `json:"revision"`
}

// RawExtension is a JSON value held as its bytes (runtime.RawExtension):
// decoding keeps the value's bytes as read, encoding writes them back
// unchanged; nil bytes are null.
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
