package deployment

// The names kube-controller-manager writes on Deployments and their
// ReplicaSets. kubectl, dashboards and alerts read them, so kcm writes the
// same ones (k8s.io/api apps/v1 and pkg/controller/deployment/util).

// Labels and annotations.
const (
	// PodTemplateHashLabel is added to a ReplicaSet's labels, selector and
	// pod template so that the ReplicaSets of one Deployment never select
	// each other's pods (apps/v1 DefaultDeploymentUniqueLabelKey).
	PodTemplateHashLabel = "pod-template-hash"
	// RevisionAnnotation numbers the templates a Deployment has rolled out:
	// on each ReplicaSet, the revision its template was last current at; on
	// the Deployment, the current one.
	RevisionAnnotation = "deployment.kubernetes.io/revision"
	// RevisionHistoryAnnotation lists, comma-separated, the earlier
	// revisions a ReplicaSet's template had before it became current again
	// (a rollback to an older template).
	RevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	// DesiredReplicasAnnotation is the Deployment's spec.replicas when the
	// ReplicaSet was last scaled by it: a different value tells a scaling
	// event from a rollout.
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	// MaxReplicasAnnotation is spec.replicas + maxSurge at that time: the
	// base of proportional scaling.
	MaxReplicasAnnotation = "deployment.kubernetes.io/max-replicas"
	// RollbackToAnnotation asks for a rollback to a revision (0: the
	// previous one). It comes from extensions/v1beta1's rollback
	// subresource; kube-controller-manager still honours it.
	RollbackToAnnotation = "deprecated.deployment.rollback.to"
	// LastAppliedAnnotation is kubectl apply's record; it is never copied to
	// ReplicaSets.
	LastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"
)

// Condition reasons (pkg/controller/deployment/util).
const (
	ReasonReplicaSetUpdated          = "ReplicaSetUpdated"
	ReasonFailedRSCreate             = "ReplicaSetCreateError"
	ReasonNewReplicaSetCreated       = "NewReplicaSetCreated"
	ReasonFoundNewReplicaSet         = "FoundNewReplicaSet"
	ReasonNewReplicaSetAvailable     = "NewReplicaSetAvailable"
	ReasonProgressDeadlineExceeded   = "ProgressDeadlineExceeded"
	ReasonDeploymentPaused           = "DeploymentPaused"
	ReasonDeploymentResumed          = "DeploymentResumed"
	ReasonMinimumReplicasAvailable   = "MinimumReplicasAvailable"
	ReasonMinimumReplicasUnavailable = "MinimumReplicasUnavailable"
)

// Event reasons besides ctrl.ReasonScalingReplicaSet and the condition
// reasons above.
const (
	ReasonSelectingAll              = "SelectingAll"
	ReasonRollbackRevisionNotFound  = "DeploymentRollbackRevisionNotFound"
	ReasonRollbackTemplateUnchanged = "DeploymentRollbackTemplateUnchanged"
	ReasonRollbackDone              = "DeploymentRollback"
)

// The Available condition's messages, kube-controller-manager's words.
const (
	msgMinimumAvailable   = "Deployment has minimum availability."
	msgMinimumUnavailable = "Deployment does not have minimum availability."
)
