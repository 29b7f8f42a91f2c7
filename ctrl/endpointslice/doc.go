// Package endpointslice is the EndpointSlice controller: it keeps, for
// every Service with a selector, the discovery.k8s.io/v1 EndpointSlices
// that kube-proxy, service meshes and ingress controllers read — the
// Service's pods as endpoints with their conditions, per address family and
// port set, packed into slices of at most --max-endpoints-per-slice. This
// package is the controller around the work: its handlers decide which
// Service to sync when, its Sync gathers the Service, its pods and its
// slices from the caches; package reconciler computes and writes the
// slices, package topology serves topology-aware hints.
//
//	Service added/updated/deleted ───────────────────────────────┐
//	Pod added/updated/deleted ──the Services whose selector──────┤ after --endpointslice-updates-batch-period
//	                            matches, if the pod's endpoint   │
//	                            or its Services may have changed │
//	EndpointSlice changed other than ──its Service───────────────┤ after max(1s, batch period)
//	as this controller wrote it                                  │
//	Node added/deleted, readiness or zone changed ──"topology"───┴──▶ queue ──▶ Sync(key)
//
//	Sync("topology"): Nodes ──▶ topology cache ──▶ enqueue the Services its hints overload
//	Sync(ns/name):    Service gone                  ──▶ forget it (its slices go by garbage collection)
//	                  ExternalName, no selector     ──▶ nothing
//	                  cached slices older than ours ──▶ ErrStaleInformerCache, retried
//	                  otherwise                     ──▶ reconciler.Reconcile(Service, pods, slices, trigger time)
//
// # Guarantees, as kube-controller-manager
//
//   - A pod update that moves neither the pod's endpoint (deletion
//     timestamp, readiness, IPs) nor the Services it matches (labels,
//     hostname, subdomain) syncs nothing; a resync (same resourceVersion)
//     neither. A label change syncs the Services the pod left or joined,
//     or every Service it matched or matches when its endpoint changed too.
//   - The controller's own writes do not come back as work: a slice event
//     syncs its Service only when the slice is managed by this controller
//     (endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io)
//     at a generation the tracker did not record, when the managed-by or
//     kubernetes.io/service-name label changed, or when it was deleted by
//     someone else.
//   - A sync never computes from a cache older than its own writes: when
//     the tracker knows a newer generation of a listed slice, or a slice
//     the cache lacks, the sync fails with ErrStaleInformerCache and is
//     retried with backoff (1s doubling to 1000s, 10/s overall, at most
//     MaxRetries times).
//   - A reconcile that fails records a Warning Event
//     FailedToUpdateEndpointSlices on the Service (source
//     endpoint-slice-controller) and is retried; a create refused because
//     the namespace is terminating is dropped by the reconciler.
//   - The last-change-trigger-time annotation is the earliest pod Ready
//     transition (or the Service's creation) that moved since the
//     Service's previous sync; the first sync writes the creation time.
//
// # Deliberate differences
//
//   - Pods are mapped to Services in the pod handler, not on a second
//     queue with workers of its own (upstream's podQueue); the keys and the
//     batching delay are the same.
//   - The topology check runs on the Service queue under the key
//     "topology" (no Service key lacks a slash), not on a third queue: one
//     check at a time, deduplicated, as upstream's single-key queue does.
//     Its runs count in the controller's reconcile metrics.
//
// One concept per file: controller.go (Descriptor, New, Sync, the topology
// check), handlers.go (the informer handlers). Shared with the endpoints
// controller: which Services a pod event concerns (ctrl/internal/podservices)
// and the trigger-time tracker (ctrl/internal/triggertime).
//
// # Kubernetes counterpart
//
// kubernetes/pkg/controller/endpointslice Controller
// (endpointslice_controller.go) with k8s.io/endpointslice/util's
// TriggerTimeTracker (ctrl/internal/triggertime) and pod projection
// helpers (ctrl/internal/podservices); registered in
// kube-controller-manager as "endpointslice-controller" with the alias
// "endpointslice", --concurrent-service-endpoint-syncs (5, 1 to 50),
// --max-endpoints-per-slice (100, 1 to 1000) and
// --endpointslice-updates-batch-period (0).
package endpointslice
