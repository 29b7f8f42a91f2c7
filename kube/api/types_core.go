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
	Name string `json:"name,omitempty" pb:"1"`
}

// ObjectReference points at any object (core/v1 ObjectReference), as used by
// Events and ServiceAccount secrets.
type ObjectReference struct {
	Kind            string `json:"kind,omitempty" pb:"1"`
	Namespace       string `json:"namespace,omitempty" pb:"2"`
	Name            string `json:"name,omitempty" pb:"3"`
	UID             string `json:"uid,omitempty" pb:"4"`
	APIVersion      string `json:"apiVersion,omitempty" pb:"5"`
	ResourceVersion string `json:"resourceVersion,omitempty" pb:"6"`
	FieldPath       string `json:"fieldPath,omitempty" pb:"7"`
}

// Pod is a core/v1 Pod.
type Pod struct {
	TypeMeta
	ObjectMeta `json:"metadata" pb:"1"`
	Spec       PodSpec   `json:"spec,omitempty" pb:"2"`
	Status     PodStatus `json:"status,omitempty" pb:"3"`
}

// PodTemplateSpec is the pod a workload controller stamps out: metadata
// (labels, annotations) and spec. It carries no TypeMeta of its own.
type PodTemplateSpec struct {
	ObjectMeta `json:"metadata,omitempty" pb:"1"`
	Spec       PodSpec `json:"spec,omitempty" pb:"2"`
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
	Volumes                       []Volume               `json:"volumes,omitempty" pb:"1"`
	InitContainers                []Container            `json:"initContainers,omitempty" pb:"20"`
	Containers                    []Container            `json:"containers" pb:"2"`
	RestartPolicy                 RestartPolicy          `json:"restartPolicy,omitempty" pb:"3"`
	TerminationGracePeriodSeconds *int64                 `json:"terminationGracePeriodSeconds,omitempty" pb:"4"`
	ActiveDeadlineSeconds         *int64                 `json:"activeDeadlineSeconds,omitempty" pb:"5"`
	DNSPolicy                     string                 `json:"dnsPolicy,omitempty" pb:"6"`
	NodeSelector                  map[string]string      `json:"nodeSelector,omitempty" pb:"7"`
	ServiceAccountName            string                 `json:"serviceAccountName,omitempty" pb:"8"`
	AutomountServiceAccountToken  *bool                  `json:"automountServiceAccountToken,omitempty" pb:"21"`
	NodeName                      string                 `json:"nodeName,omitempty" pb:"10"`
	HostNetwork                   bool                   `json:"hostNetwork,omitempty" pb:"11"`
	ImagePullSecrets              []LocalObjectReference `json:"imagePullSecrets,omitempty" pb:"15"`
	Hostname                      string                 `json:"hostname,omitempty" pb:"16"`
	Subdomain                     string                 `json:"subdomain,omitempty" pb:"17"`
	SchedulerName                 string                 `json:"schedulerName,omitempty" pb:"19"`
	Tolerations                   []Toleration           `json:"tolerations,omitempty" pb:"22"`
	PriorityClassName             string                 `json:"priorityClassName,omitempty" pb:"24"`
	Priority                      *int32                 `json:"priority,omitempty" pb:"25"`
	EnableServiceLinks            *bool                  `json:"enableServiceLinks,omitempty" pb:"30"`
	PreemptionPolicy              *string                `json:"preemptionPolicy,omitempty" pb:"31"`
	Affinity                      *Affinity              `json:"affinity,omitempty" pb:"18"`
	Overhead                      ResourceList           `json:"overhead,omitempty" pb:"32"`
	Resources                     *ResourceRequirements  `json:"resources,omitempty" pb:"40"`
}

// Toleration lets a pod schedule onto nodes with a matching taint.
type Toleration struct {
	Key               string `json:"key,omitempty" pb:"1"`
	Operator          string `json:"operator,omitempty" pb:"2"`
	Value             string `json:"value,omitempty" pb:"3"`
	Effect            string `json:"effect,omitempty" pb:"4"`
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty" pb:"5"`
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
	ObservedGeneration    int64             `json:"observedGeneration,omitempty" pb:"17"`
	Phase                 PodPhase          `json:"phase,omitempty" pb:"1"`
	Conditions            []PodCondition    `json:"conditions,omitempty" pb:"2"`
	Message               string            `json:"message,omitempty" pb:"3"`
	Reason                string            `json:"reason,omitempty" pb:"4"`
	NominatedNodeName     string            `json:"nominatedNodeName,omitempty" pb:"11"`
	HostIP                string            `json:"hostIP,omitempty" pb:"5"`
	HostIPs               []HostIP          `json:"hostIPs,omitempty" pb:"16"`
	PodIP                 string            `json:"podIP,omitempty" pb:"6"`
	PodIPs                []PodIP           `json:"podIPs,omitempty" pb:"12"`
	StartTime             *Time             `json:"startTime,omitempty" pb:"7"`
	InitContainerStatuses []ContainerStatus `json:"initContainerStatuses,omitempty" pb:"10"`
	ContainerStatuses     []ContainerStatus `json:"containerStatuses,omitempty" pb:"8"`
	QOSClass              string            `json:"qosClass,omitempty" pb:"9"`
	// ExtendedResourceClaimStatus: types_resource_dra.go.
	ExtendedResourceClaimStatus *PodExtendedResourceClaimStatus `json:"extendedResourceClaimStatus,omitempty" pb:"18"`
}

// PodCondition is one entry of status.conditions.
type PodCondition struct {
	Type               PodConditionType `json:"type" pb:"1"`
	ObservedGeneration int64            `json:"observedGeneration,omitempty" pb:"7"`
	Status             ConditionStatus  `json:"status" pb:"2"`
	LastProbeTime      Time             `json:"lastProbeTime,omitempty" pb:"3"`
	LastTransitionTime Time             `json:"lastTransitionTime,omitempty" pb:"4"`
	Reason             string           `json:"reason,omitempty" pb:"5"`
	Message            string           `json:"message,omitempty" pb:"6"`
}

// HostIP is one address of the node a pod runs on.
type HostIP struct {
	IP string `json:"ip" pb:"1"`
}

// PodIP is one address assigned to a pod.
type PodIP struct {
	IP string `json:"ip" pb:"1"`
}

// ContainerStatus is the kubelet's report on one container.
type ContainerStatus struct {
	Name                 string         `json:"name" pb:"1"`
	State                ContainerState `json:"state,omitempty" pb:"2"`
	LastTerminationState ContainerState `json:"lastState,omitempty" pb:"3"`
	Ready                bool           `json:"ready" pb:"4"`
	RestartCount         int32          `json:"restartCount" pb:"5"`
	Image                string         `json:"image" pb:"6"`
	ImageID              string         `json:"imageID" pb:"7"`
	ContainerID          string         `json:"containerID,omitempty" pb:"8"`
	Started              *bool          `json:"started,omitempty" pb:"9"`
	// AllocatedResources are the requests the node allocated to the
	// container; Resources what the runtime actually applied (both differ
	// from the spec while an in-place resize is under way).
	AllocatedResources ResourceList          `json:"allocatedResources,omitempty" pb:"10"`
	Resources          *ResourceRequirements `json:"resources,omitempty" pb:"11"`
}

// ContainerState holds at most one of its three members.
type ContainerState struct {
	Waiting    *ContainerStateWaiting    `json:"waiting,omitempty" pb:"1"`
	Running    *ContainerStateRunning    `json:"running,omitempty" pb:"2"`
	Terminated *ContainerStateTerminated `json:"terminated,omitempty" pb:"3"`
}

// ContainerStateWaiting: the container has not started yet.
type ContainerStateWaiting struct {
	Reason  string `json:"reason,omitempty" pb:"1"`
	Message string `json:"message,omitempty" pb:"2"`
}

// ContainerStateRunning: the container is running.
type ContainerStateRunning struct {
	StartedAt Time `json:"startedAt,omitempty" pb:"1"`
}

// ContainerStateTerminated: the container has exited.
type ContainerStateTerminated struct {
	ExitCode    int32  `json:"exitCode" pb:"1"`
	Signal      int32  `json:"signal,omitempty" pb:"2"`
	Reason      string `json:"reason,omitempty" pb:"3"`
	Message     string `json:"message,omitempty" pb:"4"`
	StartedAt   Time   `json:"startedAt,omitempty" pb:"5"`
	FinishedAt  Time   `json:"finishedAt,omitempty" pb:"6"`
	ContainerID string `json:"containerID,omitempty" pb:"7"`
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
	ObjectMeta `json:"metadata" pb:"1"`
	Spec       NamespaceSpec   `json:"spec,omitempty" pb:"2"`
	Status     NamespaceStatus `json:"status,omitempty" pb:"3"`
}

// NamespaceSpec holds the finalizers that must be cleared (through the
// /finalize subresource) before a terminating namespace is removed.
type NamespaceSpec struct {
	Finalizers []string `json:"finalizers,omitempty" pb:"1"`
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
	Phase      NamespacePhase       `json:"phase,omitempty" pb:"1"`
	Conditions []NamespaceCondition `json:"conditions,omitempty" pb:"2"`
}

// NamespaceCondition is one entry of status.conditions, e.g.
// NamespaceContentRemaining.
type NamespaceCondition struct {
	Type               string          `json:"type" pb:"1"`
	Status             ConditionStatus `json:"status" pb:"2"`
	LastTransitionTime Time            `json:"lastTransitionTime,omitempty" pb:"4"`
	Reason             string          `json:"reason,omitempty" pb:"5"`
	Message            string          `json:"message,omitempty" pb:"6"`
}

// ServiceAccount is a core/v1 ServiceAccount.
type ServiceAccount struct {
	TypeMeta
	ObjectMeta                   `json:"metadata" pb:"1"`
	Secrets                      []ObjectReference      `json:"secrets,omitempty" pb:"2"`
	ImagePullSecrets             []LocalObjectReference `json:"imagePullSecrets,omitempty" pb:"3"`
	AutomountServiceAccountToken *bool                  `json:"automountServiceAccountToken,omitempty" pb:"4"`
}

// ConfigMap is a core/v1 ConfigMap. BinaryData travels base64-encoded.
type ConfigMap struct {
	TypeMeta
	ObjectMeta `json:"metadata" pb:"1"`
	Immutable  *bool             `json:"immutable,omitempty" pb:"4"`
	Data       map[string]string `json:"data,omitempty" pb:"2"`
	BinaryData map[string][]byte `json:"binaryData,omitempty" pb:"3"`
}

// Node is a core/v1 Node, reduced to what controllers consult: schedulability,
// taints, capacity, conditions and addresses.
type Node struct {
	TypeMeta
	ObjectMeta `json:"metadata" pb:"1"`
	Spec       NodeSpec   `json:"spec,omitempty" pb:"2"`
	Status     NodeStatus `json:"status,omitempty" pb:"3"`
}

// NodeSpec is the desired state of a node.
type NodeSpec struct {
	PodCIDR       string   `json:"podCIDR,omitempty" pb:"1"`
	PodCIDRs      []string `json:"podCIDRs,omitempty" pb:"7"`
	ProviderID    string   `json:"providerID,omitempty" pb:"3"`
	Unschedulable bool     `json:"unschedulable,omitempty" pb:"4"`
	Taints        []Taint  `json:"taints,omitempty" pb:"5"`
}

// Taint repels pods that do not tolerate it.
type Taint struct {
	Key       string `json:"key" pb:"1"`
	Value     string `json:"value,omitempty" pb:"2"`
	Effect    string `json:"effect" pb:"3"`
	TimeAdded *Time  `json:"timeAdded,omitempty" pb:"4"`
}

// NodeStatus is the observed state of a node.
type NodeStatus struct {
	Capacity    ResourceList    `json:"capacity,omitempty" pb:"1"`
	Allocatable ResourceList    `json:"allocatable,omitempty" pb:"2"`
	Phase       string          `json:"phase,omitempty" pb:"3"`
	Conditions  []NodeCondition `json:"conditions,omitempty" pb:"4"`
	Addresses   []NodeAddress   `json:"addresses,omitempty" pb:"5"`
}

// NodeCondition is one entry of a node's status.conditions.
type NodeCondition struct {
	Type               string          `json:"type" pb:"1"`
	Status             ConditionStatus `json:"status" pb:"2"`
	LastHeartbeatTime  Time            `json:"lastHeartbeatTime,omitempty" pb:"3"`
	LastTransitionTime Time            `json:"lastTransitionTime,omitempty" pb:"4"`
	Reason             string          `json:"reason,omitempty" pb:"5"`
	Message            string          `json:"message,omitempty" pb:"6"`
}

// NodeAddress is one address of a node (InternalIP, Hostname, ...).
type NodeAddress struct {
	Type    string `json:"type" pb:"1"`
	Address string `json:"address" pb:"2"`
}

// CoreEvent is a core/v1 Event, as controllers record them. (Event is the
// name of a watch event in this package.)
type CoreEvent struct {
	TypeMeta
	ObjectMeta          `json:"metadata" pb:"1"`
	InvolvedObject      ObjectReference  `json:"involvedObject" pb:"2"`
	Reason              string           `json:"reason,omitempty" pb:"3"`
	Message             string           `json:"message,omitempty" pb:"4"`
	Source              EventSource      `json:"source,omitempty" pb:"5"`
	FirstTimestamp      Time             `json:"firstTimestamp,omitempty" pb:"6"`
	LastTimestamp       Time             `json:"lastTimestamp,omitempty" pb:"7"`
	Count               int32            `json:"count,omitempty" pb:"8"`
	Type                string           `json:"type,omitempty" pb:"9"`
	EventTime           MicroTime        `json:"eventTime,omitempty" pb:"10"`
	Action              string           `json:"action,omitempty" pb:"12"`
	Related             *ObjectReference `json:"related,omitempty" pb:"13"`
	ReportingController string           `json:"reportingComponent" pb:"14"`
	ReportingInstance   string           `json:"reportingInstance" pb:"15"`
}

// EventSource names the component that reported a CoreEvent.
type EventSource struct {
	Component string `json:"component,omitempty" pb:"1"`
	Host      string `json:"host,omitempty" pb:"2"`
}

// The CoreEvent types.
const (
	EventTypeNormal  = "Normal"
	EventTypeWarning = "Warning"
)
