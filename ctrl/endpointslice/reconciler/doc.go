// Package reconciler turns one Service's pods into its EndpointSlices: it
// compares the endpoints the pods give with the slices that exist and
// makes the fewest writes that put them right. The EndpointSlice
// controller (package endpointslice) calls it once per Service sync.
//
//	controller sync(ns/name) ──▶ Tracker.StaleSlices? ──yes──▶ ErrStaleInformerCache (retry)
//	        │ no
//	        ▼
//	Reconcile(svc, pods, slices) ── per address type (IPv4, IPv6 from spec.ipFamilies):
//	   pods ──podToEndpoint──▶ endpoints grouped by port set (named targetPorts per pod)
//	   pack each group into the existing slices of that port set
//	   placeholder when no slice would remain
//	   topology.Apply (hints) ──▶ finalize: POST / PUT / DELETE endpointslices
//	                                  └──▶ Tracker.Update / ExpectDeletion, metrics
//
// # What it writes, as kube-controller-manager does
//
//   - One set of slices per Service and address type; a slice of an
//     address type the Service no longer has is deleted. Slices have
//     generateName "<service>-", a controller ownerReference to the
//     Service (blockOwnerDeletion), the Service's labels plus
//     endpointslice.kubernetes.io/managed-by (ControllerName),
//     kubernetes.io/service-name and, without a cluster IP,
//     service.kubernetes.io/headless; every slice written carries the
//     endpoints.kubernetes.io/last-change-trigger-time annotation.
//   - A pod is an endpoint unless it is terminal or has no IP; terminating
//     pods stay, with ready=false (ready=true when the Service publishes
//     not-ready addresses), serving=pod Ready, terminating=true. An
//     endpoint has the pod's IPs of the slice's family, targetRef, nodeName,
//     the zone of its Node (topology.kubernetes.io/zone) and, when the pod
//     names the Service as its subdomain, its hostname. A pod whose Node is
//     not cached is left out (and the sync fails, to be retried) unless the
//     Service publishes not-ready addresses.
//   - Ports are resolved per pod; pods whose named targetPorts resolve
//     differently get slices of their own (one slice set per port set),
//     with their ports in Kubernetes' hash order.
//   - Packing: endpoints stay in the slice that holds them; a slice with a
//     changed or removed endpoint or stale labels is updated, or deleted
//     when empty; new endpoints fill the slices being updated (fullest
//     first), then the unchanged slice they fill best, then new slices of
//     at most MaxEndpointsPerSlice. A create and a delete merge into one
//     update. At most one write per slice per sync; no write when nothing
//     changed (conditions, node, zone, targetRef compared; labels compared
//     without the reserved ones).
//   - A Service without endpoints keeps one placeholder slice (no ports,
//     no endpoints). Slices not owned by the Service (a re-created Service
//     of the same name) are deleted, never reused. No slice is created for
//     a Service being deleted; a namespace being deleted ends the sync
//     quietly.
//   - Topology hints are package topology's (the topology-mode annotation
//     with a Cache, trafficDistribution without); its Events are recorded
//     on the Service. A failed Reconcile records the Warning
//     FailedToUpdateEndpointSlices on the Service (upstream records it in
//     the controller's syncService; kcm's controller does not).
//   - Tracker remembers the generation of every slice written and every
//     slice deleted, so the controller can ignore its own echoes
//     (ShouldSync, HandleDeletion) and refuse to sync from a cache that
//     has not seen its writes (StaleSlices).
//   - Metrics: kube-controller-manager's endpoint_slice_controller_*
//     families (NewMetrics), registered on the Registerer given.
//
// # Deliberate differences
//
//   - Upstream iterates Go maps, so which slice receives which new
//     endpoint, and the order of writes, vary from run to run; kcm packs
//     in a fixed order (existing slices by name, new endpoints in pod
//     order). Every outcome kcm produces is one upstream can produce.
//   - Reconcile takes a context for its writes (upstream uses
//     context.TODO()).
//
// # Kubernetes counterpart
//
// k8s.io/endpointslice (staging) Reconciler (reconciler.go, utils.go),
// util.EndpointSliceTracker and util.EndpointSet, and metrics.Cache and
// its families; used by kubernetes/pkg/controller/endpointslice.
package reconciler
