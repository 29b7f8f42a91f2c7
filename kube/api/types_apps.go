package api

// This file holds the apps/v1 kinds the workload controllers own:
// ReplicaSet and Deployment. Tags follow k8s.io/api v1.34; pointers mark the
// fields whose "unset" the API tells apart from zero (spec.replicas nil means
// "default to 1", not 0).

// Compile-time checks that every kind is an Object.
var (
	_ Object = (*ReplicaSet)(nil)
	_ Object = (*Deployment)(nil)
)

// ReplicaSet is an apps/v1 ReplicaSet.
type ReplicaSet struct {
	TypeMeta
	ObjectMeta `json:"metadata" pb:"1"`
	Spec       ReplicaSetSpec   `json:"spec,omitempty" pb:"2"`
	Status     ReplicaSetStatus `json:"status,omitempty" pb:"3"`
}

// ReplicaSetSpec is the desired state of a ReplicaSet.
type ReplicaSetSpec struct {
	// Replicas is the desired number of pods; nil means 1.
	Replicas        *int32 `json:"replicas,omitempty" pb:"1"`
	MinReadySeconds int32  `json:"minReadySeconds,omitempty" pb:"4"`
	// Selector must match Template's labels. The API requires it; a nil
	// selector compiles to a selector matching nothing.
	Selector *LabelSelector  `json:"selector" pb:"2"`
	Template PodTemplateSpec `json:"template,omitempty" pb:"3"`
}

// ReplicaSetStatus is the observed state of a ReplicaSet.
type ReplicaSetStatus struct {
	Replicas             int32                 `json:"replicas" pb:"1"`
	FullyLabeledReplicas int32                 `json:"fullyLabeledReplicas,omitempty" pb:"2"`
	ReadyReplicas        int32                 `json:"readyReplicas,omitempty" pb:"4"`
	AvailableReplicas    int32                 `json:"availableReplicas,omitempty" pb:"5"`
	TerminatingReplicas  *int32                `json:"terminatingReplicas,omitempty" pb:"7"`
	ObservedGeneration   int64                 `json:"observedGeneration,omitempty" pb:"3"`
	Conditions           []ReplicaSetCondition `json:"conditions,omitempty" pb:"6"`
}

// ReplicaSetCondition is one entry of a ReplicaSet's status.conditions
// (ReplicaFailure is the only type Kubernetes sets).
type ReplicaSetCondition struct {
	Type               string          `json:"type" pb:"1"`
	Status             ConditionStatus `json:"status" pb:"2"`
	LastTransitionTime Time            `json:"lastTransitionTime,omitempty" pb:"3"`
	Reason             string          `json:"reason,omitempty" pb:"4"`
	Message            string          `json:"message,omitempty" pb:"5"`
}

// ReplicaSetReplicaFailure is the condition set when pods cannot be
// created or deleted.
const ReplicaSetReplicaFailure = "ReplicaFailure"

// Deployment is an apps/v1 Deployment.
type Deployment struct {
	TypeMeta
	ObjectMeta `json:"metadata" pb:"1"`
	Spec       DeploymentSpec   `json:"spec,omitempty" pb:"2"`
	Status     DeploymentStatus `json:"status,omitempty" pb:"3"`
}

// DeploymentSpec is the desired state of a Deployment. The apiserver
// defaults replicas (1), revisionHistoryLimit (10), progressDeadlineSeconds
// (600) and the rolling-update strategy (25%/25%).
type DeploymentSpec struct {
	Replicas                *int32             `json:"replicas,omitempty" pb:"1"`
	Selector                *LabelSelector     `json:"selector" pb:"2"`
	Template                PodTemplateSpec    `json:"template" pb:"3"`
	Strategy                DeploymentStrategy `json:"strategy,omitempty" pb:"4"`
	MinReadySeconds         int32              `json:"minReadySeconds,omitempty" pb:"5"`
	RevisionHistoryLimit    *int32             `json:"revisionHistoryLimit,omitempty" pb:"6"`
	Paused                  bool               `json:"paused,omitempty" pb:"7"`
	ProgressDeadlineSeconds *int32             `json:"progressDeadlineSeconds,omitempty" pb:"9"`
}

// DeploymentStrategyType is Recreate or RollingUpdate.
type DeploymentStrategyType string

// The deployment strategies.
const (
	RecreateDeploymentStrategyType      DeploymentStrategyType = "Recreate"
	RollingUpdateDeploymentStrategyType DeploymentStrategyType = "RollingUpdate"
)

// DeploymentStrategy says how old pods are replaced by new ones.
type DeploymentStrategy struct {
	Type          DeploymentStrategyType   `json:"type,omitempty" pb:"1"`
	RollingUpdate *RollingUpdateDeployment `json:"rollingUpdate,omitempty" pb:"2"`
}

// RollingUpdateDeployment bounds a rolling update: each bound is a count
// or a percentage of the desired replicas (resolve with ScaledValue:
// maxSurge rounds up, maxUnavailable rounds down).
type RollingUpdateDeployment struct {
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty" pb:"1"`
	MaxSurge       *IntOrString `json:"maxSurge,omitempty" pb:"2"`
}

// DeploymentStatus is the observed state of a Deployment.
type DeploymentStatus struct {
	ObservedGeneration  int64                 `json:"observedGeneration,omitempty" pb:"1"`
	Replicas            int32                 `json:"replicas,omitempty" pb:"2"`
	UpdatedReplicas     int32                 `json:"updatedReplicas,omitempty" pb:"3"`
	ReadyReplicas       int32                 `json:"readyReplicas,omitempty" pb:"7"`
	AvailableReplicas   int32                 `json:"availableReplicas,omitempty" pb:"4"`
	UnavailableReplicas int32                 `json:"unavailableReplicas,omitempty" pb:"5"`
	TerminatingReplicas *int32                `json:"terminatingReplicas,omitempty" pb:"9"`
	Conditions          []DeploymentCondition `json:"conditions,omitempty" pb:"6"`
	CollisionCount      *int32                `json:"collisionCount,omitempty" pb:"8"`
}

// DeploymentConditionType names a Deployment condition.
type DeploymentConditionType string

// The Deployment conditions.
const (
	DeploymentAvailable      DeploymentConditionType = "Available"
	DeploymentProgressing    DeploymentConditionType = "Progressing"
	DeploymentReplicaFailure DeploymentConditionType = "ReplicaFailure"
)

// DeploymentCondition is one entry of a Deployment's status.conditions.
// LastUpdateTime moves on every probe; LastTransitionTime only when Status
// changes.
type DeploymentCondition struct {
	Type               DeploymentConditionType `json:"type" pb:"1"`
	Status             ConditionStatus         `json:"status" pb:"2"`
	LastUpdateTime     Time                    `json:"lastUpdateTime,omitempty" pb:"6"`
	LastTransitionTime Time                    `json:"lastTransitionTime,omitempty" pb:"7"`
	Reason             string                  `json:"reason,omitempty" pb:"4"`
	Message            string                  `json:"message,omitempty" pb:"5"`
}

// GetDeploymentCondition returns the condition of type t, or nil. The
// pointer aliases the slice element.
func GetDeploymentCondition(status *DeploymentStatus, t DeploymentConditionType) *DeploymentCondition {
	for i := range status.Conditions {
		if status.Conditions[i].Type == t {
			return &status.Conditions[i]
		}
	}
	return nil
}
