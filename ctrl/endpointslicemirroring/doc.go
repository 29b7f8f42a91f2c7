// Package endpointslicemirroring is the EndpointSlice mirroring
// controller: for a Service without a selector, whose Endpoints object a
// user (or another controller) writes by hand, it keeps EndpointSlices
// that hold the same addresses, so that kube-proxy, service meshes and
// ingress controllers, which read only slices, route to them too.
//
//	Endpoints added/updated/deleted ───────────┐
//	Service without selector added/deleted,    ├──"ns/name"──▶ queue ──▶ Sync(ns/name)
//	  or its selector appearing/disappearing ──┤
//	EndpointSlice changed by someone else  ────┘ (after --mirroring-endpointslice-updates-batch-period)
//
//	Sync: Endpoints gone, skip-mirror=true, a leader-election record,
//	      Service gone or with a selector    ──▶ DELETE its mirrored slices
//	      cached slices older than own writes ──▶ ErrStaleSlices (retried)
//	      subsets repacked ──▶ one group per address type and port set
//	      per group: first slice already right ──▶ nothing
//	                 otherwise                 ──▶ PUT it, or POST a new one
//	                 other slices of the group ──▶ DELETE (or reused by a POST)
//
// # What it writes, as kube-controller-manager does
//
//   - One slice per subset (after Kubernetes' RepackSubsets,
//     ctrl/internal/endpointsubsets, as the endpoints controller) and address
//     type: an IPv4 and an IPv6 address of one subset land in two slices
//     with the same ports, in the order Kubernetes sorts them (by hash).
//   - Each address becomes an endpoint with its IP written canonically
//     (leading zeros allowed, as Kubernetes parses), ready true for
//     addresses and false for notReadyAddresses, and the address's
//     hostname, nodeName and targetRef. An address that is not an IP is
//     skipped, with a Warning Event InvalidIPAddress on the Endpoints.
//   - At most --mirroring-max-endpoints-per-subset (1000) addresses of a
//     subset are mirrored, ready ones first; the rest are skipped, with a
//     Warning Event TooManyAddressesToMirror.
//   - Labels: the Endpoints', with kubernetes.io/service-name set to its
//     name and endpointslice.kubernetes.io/managed-by to
//     endpointslicemirroring-controller.k8s.io. Annotations: the
//     Endpoints', but endpoints.kubernetes.io/last-change-trigger-time and
//     kubectl.kubernetes.io/last-applied-configuration. A controller
//     ownerReference to the Endpoints (not the Service), so that the
//     garbage collector deletes the slices with it. generateName
//     "<name>-".
//   - No write when a group's first slice holds the desired endpoints
//     (compared by identity, then node, zone, conditions and targetRef),
//     labels and annotations and is owned by this Endpoints' uid. The
//     generations of the slices it writes are tracked (Tracker, the
//     EndpointSlice controller's kind, ctrl/internal/slicetrack), so that its own writes coming back through
//     the informer trigger nothing and a sync on a cache older than them
//     is retried (ErrStaleSlices); a slice it did not expect to be
//     changed or deleted is rewritten.
//   - A create refused because the namespace is terminating ends the sync
//     without error; no slice is created for an Endpoints being deleted.
//     Failed syncs are retried with upstream's pacing (1 s doubling to
//     100 s, 10 per second overall), MaxRetries times.
//   - Metrics: kube-controller-manager's endpoint_slice_mirroring_controller_*
//     families (NewMetrics), on the manager's registry.
//
// An Endpoints managed by the endpoints controller belongs to a Service
// with a selector, so it is not mirrored: upstream checks the Service's
// selector, not the Endpoints' endpoints.kubernetes.io/managed-by label,
// and so does kcm.
//
// # Deliberate differences
//
//   - The endpoints of a new or rewritten slice are in the order of the
//     repacked subset (ready addresses first), and the slices of a group
//     are taken in name order; upstream iterates maps here, so its order
//     varies from run to run. No-write decisions do not depend on order.
//   - A create paired with a delete of the same address type becomes an
//     update of the deleted slice, as upstream; upstream pairs the create
//     it removes by name, which for unnamed creates can be another
//     address type's, and kcm removes the paired create itself.
//   - Deleting a slice that is already gone is not an error.
//
// One concept per file: controller.go (the descriptor, flags and Sync),
// handlers.go (informer events to keys), reconciler.go (desired slices
// against existing ones, and the writes), desired.go (the desired groups
// and the write plan), slice.go (a slice's metadata,
// endpoints and ports from an Endpoints), events.go (Event reasons),
// metrics.go (the metric families and the efficiency cache).
//
// # Kubernetes counterpart
//
// kubernetes/pkg/controller/endpointslicemirroring (Controller,
// reconciler, reconciler_helpers, utils, events, metrics), with
// k8s.io/endpointslice/util's EndpointSliceTracker, EndpointSet,
// PortMapKey and EndpointsEqualBeyondHash (ctrl/internal/slicetrack and
// ctrl/internal/endpointset, shared with the EndpointSlice controller) and
// pkg/api/v1/endpoints RepackSubsets (ctrl/internal/endpointsubsets);
// registered in
// kube-controller-manager as "endpointslice-mirroring-controller" with the
// alias "endpointslicemirroring", --mirroring-concurrent-service-endpoint-syncs
// (5 workers, 1 to 50), --mirroring-max-endpoints-per-subset (1000, 1 to 1000) and
// --mirroring-endpointslice-updates-batch-period (0). Bootstrap role:
// system:controller:endpointslicemirroring-controller.
package endpointslicemirroring
