// Package triggertime computes the endpoints.kubernetes.io/last-change-trigger-time
// annotation: the time of the earliest pod or Service change behind a
// write of a Service's Endpoints or EndpointSlices, from which kube-proxy
// and the SLI metrics measure endpoint programming latency. The endpoints
// controller and the EndpointSlice controller each keep one Tracker.
//
//	sync(ns/name, svc, pods) ──Compute──▶ first sync seen: the Service's creationTimestamp
//	                                    ▶ else the earliest trigger that moved forward
//	                                      (a pod's Ready lastTransitionTime, the Service's creation)
//	                                    ▶ zero: nothing moved, no annotation
//	Service deleted ──Forget──▶ its state dropped
//
// # Guarantees
//
// A Tracker is safe for concurrent use by syncs of different Services;
// one Service is never synced twice at once (the work queue's
// guarantee). As upstream says of its own, the time is an approximation
// when one object changes twice between two syncs.
//
// # Kubernetes counterpart
//
// k8s.io/endpointslice/util TriggerTimeTracker (NewTriggerTimeTracker,
// ComputeEndpointLastChangeTriggerTime, DeleteService), used by
// pkg/controller/endpoint and pkg/controller/endpointslice.
//
// One concept per file: tracker.go.
package triggertime
