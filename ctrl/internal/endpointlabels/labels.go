package endpointlabels

// Keys shared by the endpoint controllers (k8s.io/api discovery/v1 and
// core/v1 constants).
const (
	// LabelManagedBy names the controller that manages an EndpointSlice
	// (discovery/v1 LabelManagedBy); each controller writes its own value.
	LabelManagedBy = "endpointslice.kubernetes.io/managed-by"
	// LabelServiceName names the Service an EndpointSlice belongs to
	// (discovery/v1 LabelServiceName); the mirroring controller writes the
	// Endpoints' name, which is its Service's.
	LabelServiceName = "kubernetes.io/service-name"
	// LabelHeadless is set, empty, on the Endpoints and EndpointSlices of
	// a Service without a cluster IP (core/v1 IsHeadlessService).
	LabelHeadless = "service.kubernetes.io/headless"
	// AnnotationLastChangeTriggerTime is the time of the earliest pod or
	// Service change behind a write (core/v1
	// EndpointsLastChangeTriggerTime).
	AnnotationLastChangeTriggerTime = "endpoints.kubernetes.io/last-change-trigger-time"
	// AnnotationLeader marks the leader-election record of an old
	// Endpoints lock, which has no Service (resourcelock's
	// LeaderElectionRecordAnnotationKey).
	AnnotationLeader = "control-plane.alpha.kubernetes.io/leader"
)
