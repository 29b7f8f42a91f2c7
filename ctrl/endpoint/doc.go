// Package endpoint is the endpoints controller: it keeps, for every
// Service with a selector, a core/v1 Endpoints object of the same name
// listing the addresses of the pods the selector matches — ready ones in
// addresses, others in notReadyAddresses — with the ports each pod serves
// for each service port. Clients that predate EndpointSlices (and the
// Endpoints mirroring controller) read them.
//
//	Service added/updated/deleted ─────────────┐
//	Endpoints deleted (or listed at start) ────┼──"ns/name"──▶ queue ──▶ Sync(ns/name)
//	Pod added/updated/deleted ──Services whose─┘ (after --endpoint-updates-batch-period)
//	                            selector matches
//
//	Sync: Service gone                    ──▶ DELETE endpoints/<name>
//	      ExternalName, or no selector    ──▶ nothing (the user's Endpoints)
//	      pods ──▶ one address per pod and service port ──▶ RepackSubsets
//	      same subsets, labels, annotation ──▶ nothing
//	      otherwise                        ──▶ POST or PUT endpoints/<name>
//
// # What it writes, as kube-controller-manager does
//
//   - A pod is in the Endpoints unless it is terminal (Succeeded, Failed),
//     has no IP yet, or is terminating (deletionTimestamp set) while the
//     Service does not publish not-ready addresses; with
//     spec.publishNotReadyAddresses every listed pod, terminating ones
//     included, is in addresses.
//   - Its address is its first IP of the Service's family, with nodeName,
//     a targetRef to the pod, and its hostname when its subdomain is the
//     Service's name. A named targetPort is looked up in each pod, so pods
//     that number a port differently land in different subsets; a pod that
//     lacks the port has no address for it. A headless Service without
//     ports gets port-less addresses.
//   - The subsets are repacked (RepackSubsets): addresses grouped by the
//     ports they share, sorted in Kubernetes' hash order, so that kcm and
//     kube-controller-manager write byte-identical subsets.
//   - Labels: the Service's, plus endpoints.kubernetes.io/managed-by:
//     endpoint-controller and, for a Service without a cluster IP,
//     service.kubernetes.io/headless. Annotations:
//     endpoints.kubernetes.io/last-change-trigger-time, and
//     endpoints.kubernetes.io/over-capacity: truncated past MaxCapacity
//     (1000) addresses, ready ones kept first.
//   - No write when the cached Endpoints already has these subsets
//     (ignoring targetRef resourceVersions), the right labels and no
//     stale over-capacity annotation; the trigger-time annotation alone
//     never causes a write. After an update, a sync that still finds the
//     replaced version in the cache fails and is retried
//     (ErrStaleEndpoints).
//   - A create refused because the namespace is terminating is dropped;
//     other failed writes record a Warning Event (FailedToCreateEndpoint,
//     FailedToUpdateEndpoint) and are retried, MaxRetries times.
//
// # Deliberate differences
//
//   - Pods are mapped to Services in the pod handler, not on a second
//     queue with its own workers (upstream's podQueue); the keys and the
//     batching delay are the same.
//   - The start-up pass over existing Endpoints (checkLeftoverEndpoints)
//     is the Endpoints handler's initial adds, which the loop waits for.
//
// # Kubernetes counterpart
//
// kubernetes/pkg/controller/endpoint Controller (endpoints_controller.go,
// endpoints_tracker.go), with k8s.io/endpointslice/util's pod helpers
// (package ctrl/internal/podaddr, shared with the EndpointSlice
// controller) and pkg/api/v1/endpoints RepackSubsets; registered in kube-controller-manager
// as "endpoints-controller" with the alias "endpoint",
// --concurrent-endpoint-syncs (5) workers and
// --endpoint-updates-batch-period (0).
package endpoint
