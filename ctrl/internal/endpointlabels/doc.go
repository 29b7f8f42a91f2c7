// Package endpointlabels names the well-known label and annotation keys
// that more than one of the endpoint controllers (endpoints, EndpointSlice,
// EndpointSlice mirroring) reads or writes on Endpoints and EndpointSlices,
// so that each key is spelled once.
//
//	EndpointSlice ──LabelServiceName──▶ the Service (or Endpoints) it belongs to
//	              ──LabelManagedBy──▶ the controller that writes it
//	Endpoints     ──AnnotationLastChangeTriggerTime──▶ (not mirrored into slices)
//	              ──AnnotationLeader──▶ an old leader-election lock, never a Service's
//
// # Guarantees
//
// Constants only; the values are Kubernetes' own, so kcm and
// kube-controller-manager read each other's objects.
//
// # Kubernetes counterpart
//
// k8s.io/api discovery/v1 LabelManagedBy and LabelServiceName, core/v1
// EndpointsLastChangeTriggerTime and IsHeadlessService, and client-go's
// resourcelock LeaderElectionRecordAnnotationKey.
//
// One concept per file: labels.go.
package endpointlabels
