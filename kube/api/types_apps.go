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
	ObjectMeta `json:"metadata"`
	Spec       ReplicaSetSpec   `json:"spec,omitempty"`
	Status     ReplicaSetStatus `json:"status,omitempty"`
}

// ReplicaSetSpec is the desired state of a ReplicaSet.
type ReplicaSetSpec struct {
	// Replicas is the desired number of pods; nil means 1.
	Replicas        *int32 `json:"replicas,omitempty"`
	MinReadySeconds int32  `json:"minReadySeconds,omitempty"`
	// Selector must match Template's labels. The API requires it; a nil
	// selector compiles to a selector matching nothing.
	Selector *LabelSelector  `json:"selector"`
	Template PodTemplateSpec `json:"template,omitempty"`
}

// ReplicaSetStatus is the observed state of a ReplicaSet.
type ReplicaSetStatus struct {
	Replicas             int32                 `json:"replicas"`
	FullyLabeledReplicas int32                 `json:"fullyLabeledReplicas,omitempty"`
	ReadyReplicas        int32                 `json:"readyReplicas,omitempty"`
	AvailableReplicas    int32                 `json:"availableReplicas,omitempty"`
	TerminatingReplicas  *int32                `json:"terminatingReplicas,omitempty"`
	ObservedGeneration   int64                 `json:"observedGeneration,omitempty"`
	Conditions           []ReplicaSetCondition `json:"conditions,omitempty"`
}

// ReplicaSetCondition is one entry of a ReplicaSet's status.conditions
// (ReplicaFailure is the only type Kubernetes sets).
type ReplicaSetCondition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	LastTransitionTime Time            `json:"lastTransitionTime,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
}

// ReplicaSetReplicaFailure is the condition set when pods cannot be
// created or deleted.
const ReplicaSetReplicaFailure = "ReplicaFailure"

// Deployment is an apps/v1 Deployment.
type Deployment struct {
	TypeMeta
	ObjectMeta `json:"metadata"`
	Spec       DeploymentSpec   `json:"spec,omitempty"`
	Status     DeploymentStatus `json:"status,omitempty"`
}

// DeploymentSpec is the desired state of a Deployment. The apiserver
// defaults replicas (1), revisionHistoryLimit (10), progressDeadlineSeconds
// (600) and the rolling-update strategy (25%/25%).
type DeploymentSpec struct {
	Replicas                *int32             `json:"replicas,omitempty"`
	Selector                *LabelSelector     `json:"selector"`
	Template                PodTemplateSpec    `json:"template"`
	Strategy                DeploymentStrategy `json:"strategy,omitempty"`
	MinReadySeconds         int32              `json:"minReadySeconds,omitempty"`
	RevisionHistoryLimit    *int32             `json:"revisionHistoryLimit,omitempty"`
	Paused                  bool               `json:"paused,omitempty"`
	ProgressDeadlineSeconds *int32             `json:"progressDeadlineSeconds,omitempty"`
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
	Type          DeploymentStrategyType   `json:"type,omitempty"`
	RollingUpdate *RollingUpdateDeployment `json:"rollingUpdate,omitempty"`
}

// RollingUpdateDeployment bounds a rolling update: each bound is a count
// or a percentage of the desired replicas (resolve with ScaledValue:
// maxSurge rounds up, maxUnavailable rounds down).
type RollingUpdateDeployment struct {
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty"`
	MaxSurge       *IntOrString `json:"maxSurge,omitempty"`
}

// DeploymentStatus is the observed state of a Deployment.
type DeploymentStatus struct {
	ObservedGeneration  int64                 `json:"observedGeneration,omitempty"`
	Replicas            int32                 `json:"replicas,omitempty"`
	UpdatedReplicas     int32                 `json:"updatedReplicas,omitempty"`
	ReadyReplicas       int32                 `json:"readyReplicas,omitempty"`
	AvailableReplicas   int32                 `json:"availableReplicas,omitempty"`
	UnavailableReplicas int32                 `json:"unavailableReplicas,omitempty"`
	TerminatingReplicas *int32                `json:"terminatingReplicas,omitempty"`
	Conditions          []DeploymentCondition `json:"conditions,omitempty"`
	CollisionCount      *int32                `json:"collisionCount,omitempty"`
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
	Type               DeploymentConditionType `json:"type"`
	Status             ConditionStatus         `json:"status"`
	LastUpdateTime     Time                    `json:"lastUpdateTime,omitempty"`
	LastTransitionTime Time                    `json:"lastTransitionTime,omitempty"`
	Reason             string                  `json:"reason,omitempty"`
	Message            string                  `json:"message,omitempty"`
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
