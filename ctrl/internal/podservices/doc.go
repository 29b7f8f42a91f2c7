// Package podservices holds the pod-to-Service rules that the endpoints
// and EndpointSlice controllers share: which Services a pod belongs to,
// and which of them a pod update concerns. Both controllers' pod handlers
// enqueue the keys it returns (after their batch period).
//
//	pod added / deleted ──Matching(ns, labels)──▶ the Services whose selector matches
//	pod updated ──ForUpdate(old, cur)──▶ none (resync, nothing that matters changed)
//	                                   ▶ the Services it matches (its endpoint changed)
//	                                   ▶ the Services it left or joined (labels changed)
//	                                   ▶ all it matched or matches (both changed)
//
// # Guarantees
//
// The functions read the Service cache and the pods given and modify
// nothing. A Service without a selector matches no pod (its Endpoints are
// the user's); an empty selector matches every pod of its namespace.
//
// # Kubernetes counterpart
//
// k8s.io/endpointslice/util GetPodServiceMemberships,
// GetPodUpdateProjectionKey, GetServicesToUpdate, podEndpointsChanged and
// determineNeededServiceUpdates, used by pkg/controller/endpoint and
// pkg/controller/endpointslice.
//
// One concept per file: matching.go (the Services a pod's labels match),
// update.go (the Services a pod update concerns).
package podservices
