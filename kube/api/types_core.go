package api

import "time"

// This file holds the core/v1 kinds kcm's controllers read and write: Pod,
// Namespace, ServiceAccount, ConfigMap, Node and Event (CoreEvent). Each models the
// fields the controllers use, with the json tags of k8s.io/api v1.34; fields
// not modelled are dropped when decoding but survive a read-modify-write
// because updates merge into the object's raw JSON (ObjectMeta.Raw).
//
// Memory note: a cache may hold millions of these, so fields are values
// wherever the API does not distinguish "unset" from the zero value, and
// pointers only where it does (upstream's *int64, *bool, ...).

// Compile-time checks that every kind is an Object.
var (
	_ Object = (*Pod)(nil)
	_ Object = (*Namespace)(nil)
	_ Object = (*ServiceAccount)(nil)
	_ Object = (*ConfigMap)(nil)
	_ Object = (*Node)(nil)
	_ Object = (*CoreEvent)(nil)
)

// LocalObjectReference names an object in the same namespace.
type LocalObjectReference struct {
	Name string `json:"name,omitempty"`
}

// ObjectReference points at any object (core/v1 ObjectReference), as used by
// Events and ServiceAccount secrets.
type ObjectReference struct {
	Kind            string `json:"kind,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	Name            string `json:"name,omitempty"`
	UID             string `json:"uid,omitempty"`
	APIVersion      string `json:"apiVersion,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	FieldPath       string `json:"fieldPath,omitempty"`
}

// Pod is a core/v1 Pod.
type Pod struct {
	TypeMeta
	ObjectMeta `json:"metadata"`
	Spec       PodSpec   `json:"spec,omitempty"`
	Status     PodStatus `json:"status,omitempty"`
}

// PodTemplateSpec is the pod a workload controller stamps out: metadata
// (labels, annotations) and spec. It carries no TypeMeta of its own.
type PodTemplateSpec struct {
	ObjectMeta `json:"metadata,omitempty"`
	Spec       PodSpec `json:"spec,omitempty"`
}

// RestartPolicy says when the kubelet restarts a pod's containers.
type RestartPolicy string

// The pod restart policies.
const (
	RestartPolicyAlways    RestartPolicy = "Always"
	RestartPolicyOnFailure RestartPolicy = "OnFailure"
	RestartPolicyNever     RestartPolicy = "Never"
)

// PodSpec is the desired state of a pod. Node affinity, security
// contexts, topology spread constraints, DNS config and other scheduling
// details are not modelled. Overhead (set by RuntimeClass admission) and
// the pod-level Resources count towards resource quota.
type PodSpec struct {
	Volumes                       []Volume               `json:"volumes,omitempty"`
	InitContainers                []Container            `json:"initContainers,omitempty"`
	Containers                    []Container            `json:"containers"`
	RestartPolicy                 RestartPolicy          `json:"restartPolicy,omitempty"`
	TerminationGracePeriodSeconds *int64                 `json:"terminationGracePeriodSeconds,omitempty"`
	ActiveDeadlineSeconds         *int64                 `json:"activeDeadlineSeconds,omitempty"`
	DNSPolicy                     string                 `json:"dnsPolicy,omitempty"`
	NodeSelector                  map[string]string      `json:"nodeSelector,omitempty"`
	ServiceAccountName            string                 `json:"serviceAccountName,omitempty"`
	AutomountServiceAccountToken  *bool                  `json:"automountServiceAccountToken,omitempty"`
	NodeName                      string                 `json:"nodeName,omitempty"`
	HostNetwork                   bool                   `json:"hostNetwork,omitempty"`
	ImagePullSecrets              []LocalObjectReference `json:"imagePullSecrets,omitempty"`
	Hostname                      string                 `json:"hostname,omitempty"`
	Subdomain                     string                 `json:"subdomain,omitempty"`
	SchedulerName                 string                 `json:"schedulerName,omitempty"`
	Tolerations                   []Toleration           `json:"tolerations,omitempty"`
	PriorityClassName             string                 `json:"priorityClassName,omitempty"`
	Priority                      *int32                 `json:"priority,omitempty"`
	EnableServiceLinks            *bool                  `json:"enableServiceLinks,omitempty"`
	PreemptionPolicy              *string                `json:"preemptionPolicy,omitempty"`
	Affinity                      *Affinity              `json:"affinity,omitempty"`
	Overhead                      ResourceList           `json:"overhead,omitempty"`
	Resources                     *ResourceRequirements  `json:"resources,omitempty"`
}

// Toleration lets a pod schedule onto nodes with a matching taint.
type Toleration struct {
	Key               string `json:"key,omitempty"`
	Operator          string `json:"operator,omitempty"`
	Value             string `json:"value,omitempty"`
	Effect            string `json:"effect,omitempty"`
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

// PodPhase is the coarse lifecycle state of a pod.
type PodPhase string

// The pod phases.
const (
	PodPending   PodPhase = "Pending"
	PodRunning   PodPhase = "Running"
	PodSucceeded PodPhase = "Succeeded"
	PodFailed    PodPhase = "Failed"
	PodUnknown   PodPhase = "Unknown"
)

// PodConditionType names a pod condition.
type PodConditionType string

// The pod conditions controllers look at.
const (
	PodScheduled              PodConditionType = "PodScheduled"
	PodInitialized            PodConditionType = "Initialized"
	PodReady                  PodConditionType = "Ready"
	ContainersReady           PodConditionType = "ContainersReady"
	DisruptionTarget          PodConditionType = "DisruptionTarget"
	PodReadyToStartContainers PodConditionType = "PodReadyToStartContainers"
	// PodResizePending: a resize is not yet allocated; its reason
	// PodReasonInfeasible says the node can never fit it.
	PodResizePending PodConditionType = "PodResizePending"
)

// PodReasonInfeasible is the reason of a PodResizePending condition whose
// resize the node cannot fit.
const PodReasonInfeasible = "Infeasible"

// PodStatus is the observed state of a pod.
type PodStatus struct {
	ObservedGeneration    int64             `json:"observedGeneration,omitempty"`
	Phase                 PodPhase          `json:"phase,omitempty"`
	Conditions            []PodCondition    `json:"conditions,omitempty"`
	Message               string            `json:"message,omitempty"`
	Reason                string            `json:"reason,omitempty"`
	NominatedNodeName     string            `json:"nominatedNodeName,omitempty"`
	HostIP                string            `json:"hostIP,omitempty"`
	HostIPs               []HostIP          `json:"hostIPs,omitempty"`
	PodIP                 string            `json:"podIP,omitempty"`
	PodIPs                []PodIP           `json:"podIPs,omitempty"`
	StartTime             *Time             `json:"startTime,omitempty"`
	InitContainerStatuses []ContainerStatus `json:"initContainerStatuses,omitempty"`
	ContainerStatuses     []ContainerStatus `json:"containerStatuses,omitempty"`
	QOSClass              string            `json:"qosClass,omitempty"`
	// ExtendedResourceClaimStatus: types_resource_dra.go.
	ExtendedResourceClaimStatus *PodExtendedResourceClaimStatus `json:"extendedResourceClaimStatus,omitempty"`
}

// PodCondition is one entry of status.conditions.
type PodCondition struct {
	Type               PodConditionType `json:"type"`
	ObservedGeneration int64            `json:"observedGeneration,omitempty"`
	Status             ConditionStatus  `json:"status"`
	LastProbeTime      Time             `json:"lastProbeTime,omitempty"`
	LastTransitionTime Time             `json:"lastTransitionTime,omitempty"`
	Reason             string           `json:"reason,omitempty"`
	Message            string           `json:"message,omitempty"`
}

// HostIP is one address of the node a pod runs on.
type HostIP struct {
	IP string `json:"ip"`
}

// PodIP is one address assigned to a pod.
type PodIP struct {
	IP string `json:"ip"`
}

// ContainerStatus is the kubelet's report on one container.
type ContainerStatus struct {
	Name                 string         `json:"name"`
	State                ContainerState `json:"state,omitempty"`
	LastTerminationState ContainerState `json:"lastState,omitempty"`
	Ready                bool           `json:"ready"`
	RestartCount         int32          `json:"restartCount"`
	Image                string         `json:"image"`
	ImageID              string         `json:"imageID"`
	ContainerID          string         `json:"containerID,omitempty"`
	Started              *bool          `json:"started,omitempty"`
	// AllocatedResources are the requests the node allocated to the
	// container; Resources what the runtime actually applied (both differ
	// from the spec while an in-place resize is under way).
	AllocatedResources ResourceList          `json:"allocatedResources,omitempty"`
	Resources          *ResourceRequirements `json:"resources,omitempty"`
}

// ContainerState holds at most one of its three members.
type ContainerState struct {
	Waiting    *ContainerStateWaiting    `json:"waiting,omitempty"`
	Running    *ContainerStateRunning    `json:"running,omitempty"`
	Terminated *ContainerStateTerminated `json:"terminated,omitempty"`
}

// ContainerStateWaiting: the container has not started yet.
type ContainerStateWaiting struct {
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// ContainerStateRunning: the container is running.
type ContainerStateRunning struct {
	StartedAt Time `json:"startedAt,omitempty"`
}

// ContainerStateTerminated: the container has exited.
type ContainerStateTerminated struct {
	ExitCode    int32  `json:"exitCode"`
	Signal      int32  `json:"signal,omitempty"`
	Reason      string `json:"reason,omitempty"`
	Message     string `json:"message,omitempty"`
	StartedAt   Time   `json:"startedAt,omitempty"`
	FinishedAt  Time   `json:"finishedAt,omitempty"`
	ContainerID string `json:"containerID,omitempty"`
}

// GetPodCondition returns the condition of type t in status, or nil. The
// pointer aliases the slice element, so a caller may update it in place.
func GetPodCondition(status *PodStatus, t PodConditionType) *PodCondition {
	for i := range status.Conditions {
		if status.Conditions[i].Type == t {
			return &status.Conditions[i]
		}
	}
	return nil
}

// IsPodReady reports whether the pod's Ready condition is True.
func IsPodReady(pod *Pod) bool {
	c := GetPodCondition(&pod.Status, PodReady)
	return c != nil && c.Status == ConditionTrue
}

// IsPodAvailable reports whether the pod has been Ready for at least
// minReadySeconds at now: with minReadySeconds 0 readiness suffices,
// otherwise the Ready condition's lastTransitionTime plus minReadySeconds
// must not be after now (Kubernetes' podutil.IsPodAvailable, v1.34).
func IsPodAvailable(pod *Pod, minReadySeconds int32, now time.Time) bool {
	c := GetPodCondition(&pod.Status, PodReady)
	if c == nil || c.Status != ConditionTrue {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	if c.LastTransitionTime.IsZero() {
		return false
	}
	readyFor := time.Duration(minReadySeconds) * time.Second
	return !c.LastTransitionTime.Add(readyFor).After(now)
}

// IsPodActive reports whether the pod still counts towards its controller's
// replicas: not Succeeded, not Failed, and not being deleted.
func IsPodActive(pod *Pod) bool {
	return pod.Status.Phase != PodSucceeded &&
		pod.Status.Phase != PodFailed &&
		pod.DeletionTimestamp == nil
}

// IsPodTerminating reports whether the pod is being deleted but has not
// reached a terminal phase (Kubernetes' controller.IsPodTerminating): it
// still runs, and counts in status.terminatingReplicas.
func IsPodTerminating(pod *Pod) bool {
	return pod.Status.Phase != PodSucceeded &&
		pod.Status.Phase != PodFailed &&
		pod.DeletionTimestamp != nil
}

// Namespace is a core/v1 Namespace.
type Namespace struct {
	TypeMeta
	ObjectMeta `json:"metadata"`
	Spec       NamespaceSpec   `json:"spec,omitempty"`
	Status     NamespaceStatus `json:"status,omitempty"`
}

// NamespaceSpec holds the finalizers that must be cleared (through the
// /finalize subresource) before a terminating namespace is removed.
type NamespaceSpec struct {
	Finalizers []string `json:"finalizers,omitempty"`
}

// FinalizerKubernetes is the spec.finalizers entry the namespace controller
// removes once a namespace is empty.
const FinalizerKubernetes = "kubernetes"

// NamespacePhase is Active or Terminating.
type NamespacePhase string

// The namespace phases.
const (
	NamespaceActive      NamespacePhase = "Active"
	NamespaceTerminating NamespacePhase = "Terminating"
)

// NamespaceStatus is the observed state of a namespace.
type NamespaceStatus struct {
	Phase      NamespacePhase       `json:"phase,omitempty"`
	Conditions []NamespaceCondition `json:"conditions,omitempty"`
}

// NamespaceCondition is one entry of status.conditions, e.g.
// NamespaceContentRemaining.
type NamespaceCondition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	LastTransitionTime Time            `json:"lastTransitionTime,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
}

// ServiceAccount is a core/v1 ServiceAccount.
type ServiceAccount struct {
	TypeMeta
	ObjectMeta                   `json:"metadata"`
	Secrets                      []ObjectReference      `json:"secrets,omitempty"`
	ImagePullSecrets             []LocalObjectReference `json:"imagePullSecrets,omitempty"`
	AutomountServiceAccountToken *bool                  `json:"automountServiceAccountToken,omitempty"`
}

// ConfigMap is a core/v1 ConfigMap. BinaryData travels base64-encoded.
type ConfigMap struct {
	TypeMeta
	ObjectMeta `json:"metadata"`
	Immutable  *bool             `json:"immutable,omitempty"`
	Data       map[string]string `json:"data,omitempty"`
	BinaryData map[string][]byte `json:"binaryData,omitempty"`
}

// Node is a core/v1 Node, reduced to what controllers consult: schedulability,
// taints, capacity, conditions and addresses.
type Node struct {
	TypeMeta
	ObjectMeta `json:"metadata"`
	Spec       NodeSpec   `json:"spec,omitempty"`
	Status     NodeStatus `json:"status,omitempty"`
}

// NodeSpec is the desired state of a node.
type NodeSpec struct {
	PodCIDR       string   `json:"podCIDR,omitempty"`
	PodCIDRs      []string `json:"podCIDRs,omitempty"`
	ProviderID    string   `json:"providerID,omitempty"`
	Unschedulable bool     `json:"unschedulable,omitempty"`
	Taints        []Taint  `json:"taints,omitempty"`
}

// Taint repels pods that do not tolerate it.
type Taint struct {
	Key       string `json:"key"`
	Value     string `json:"value,omitempty"`
	Effect    string `json:"effect"`
	TimeAdded *Time  `json:"timeAdded,omitempty"`
}

// NodeStatus is the observed state of a node.
type NodeStatus struct {
	Capacity    ResourceList    `json:"capacity,omitempty"`
	Allocatable ResourceList    `json:"allocatable,omitempty"`
	Phase       string          `json:"phase,omitempty"`
	Conditions  []NodeCondition `json:"conditions,omitempty"`
	Addresses   []NodeAddress   `json:"addresses,omitempty"`
}

// NodeCondition is one entry of a node's status.conditions.
type NodeCondition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	LastHeartbeatTime  Time            `json:"lastHeartbeatTime,omitempty"`
	LastTransitionTime Time            `json:"lastTransitionTime,omitempty"`
	Reason             string          `json:"reason,omitempty"`
	Message            string          `json:"message,omitempty"`
}

// NodeAddress is one address of a node (InternalIP, Hostname, ...).
type NodeAddress struct {
	Type    string `json:"type"`
	Address string `json:"address"`
}

// CoreEvent is a core/v1 Event, as controllers record them. (Event is the
// name of a watch event in this package.)
type CoreEvent struct {
	TypeMeta
	ObjectMeta          `json:"metadata"`
	InvolvedObject      ObjectReference  `json:"involvedObject"`
	Reason              string           `json:"reason,omitempty"`
	Message             string           `json:"message,omitempty"`
	Source              EventSource      `json:"source,omitempty"`
	FirstTimestamp      Time             `json:"firstTimestamp,omitempty"`
	LastTimestamp       Time             `json:"lastTimestamp,omitempty"`
	Count               int32            `json:"count,omitempty"`
	Type                string           `json:"type,omitempty"`
	EventTime           MicroTime        `json:"eventTime,omitempty"`
	Action              string           `json:"action,omitempty"`
	Related             *ObjectReference `json:"related,omitempty"`
	ReportingController string           `json:"reportingComponent"`
	ReportingInstance   string           `json:"reportingInstance"`
}

// EventSource names the component that reported a CoreEvent.
type EventSource struct {
	Component string `json:"component,omitempty"`
	Host      string `json:"host,omitempty"`
}

// The CoreEvent types.
const (
	EventTypeNormal  = "Normal"
	EventTypeWarning = "Warning"
)
