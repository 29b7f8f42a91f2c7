// Package topology sets the topology hints of EndpointSlices: for each
// ready endpoint, the zones (and nodes) whose clients kube-proxy should
// send to it. A Service asks for hints in one of two ways.
//
//   - spec.trafficDistribution: PreferClose or PreferSameZone give every
//     ready endpoint a hint for its own zone; PreferSameNode adds one for
//     its own node (ReconcileHints). No state is kept.
//   - The annotation service.kubernetes.io/topology-mode: Auto (or the
//     deprecated service.kubernetes.io/topology-aware-hints: Auto): the
//     topology cache (Cache) spreads the endpoints over the zones in
//     proportion to each zone's allocatable CPU (Cache.AddHints). The
//     annotation wins over trafficDistribution.
//
// # Place in the pipeline
//
//	Node informer ──(add, delete, ready or zone changed)──▶ Cache.SetNodes ──▶ OverloadedServices ──▶ requeue
//	reconciler: pods ─▶ endpoints ─▶ slices to create / update / unchanged ─▶ Apply ─▶ writes, Events
//	                                                                      (AddHints, RemoveHintsFromSlices,
//	                                                                       ReconcileHints)
//
// The reconciler (package ctrl/endpointslice/reconciler) packs a
// Service's endpoints into slices, then calls Apply once per address type
// with a SliceInfo ("namespace/name"; Unchanged = the existing slices of
// that address type that it neither updates nor deletes, as upstream's
// unchangedSlices); Apply returns what to create and update, hints set,
// and the Events to record on the Service. When an address type goes
// away, the reconciler calls RemoveHints for it. The controller feeds the
// cache the nodes it lists (SetNodes) when one is added, deleted, or
// changes readiness or zone (NodeTopologyChanged), and requeues
// OverloadedServices.
//
// # Guarantees (each as kube-controller-manager 1.37 with default gates)
//
//   - Only slices that change are written: an unchanged slice whose hints
//     are already right stays unchanged; one that needs new hints is
//     copied to the update list (the informer's object is never changed).
//   - trafficDistribution: PreferClose/PreferSameZone hint each ready
//     endpoint to its zone (none when it has no zone), PreferSameNode
//     also to its node (the PreferSameTrafficDistribution gate is GA and
//     locked on since 1.35); any other value, or none, removes hints.
//     Endpoints that are not ready keep what they have.
//   - Cache.SetNodes counts the allocatable CPU of Ready nodes per
//     topology.kubernetes.io/zone, leaving out control-plane (and master)
//     nodes. Nodes that are not Ready, or control-plane nodes, are
//     ignored even without a zone label; but one counted (Ready, worker)
//     node without a zone or CPU, or fewer than two zones, disables hints
//     for every Service (InsufficientNodeInfo), as upstream.
//   - Cache.AddHints refuses, removing hints with a Warning
//     TopologyAwareHintsDisabled, when there are fewer ready endpoints
//     than zones (InsufficientNumberOfEndpoints), when the zones' minimums
//     (CPU share less the 20% overload threshold, rounded up) need more
//     endpoints than there are (MinAllocationExceedsOverloadThreshold),
//     or when a ready endpoint has no zone (NoZoneSpecified). Otherwise
//     each zone's endpoints get hints for it, and zones above their share
//     give endpoints to zones below it; the first time for a Service it
//     returns a Normal TopologyAwareHintsEnabled. Messages carry ",
//     addressType: IPv4" as upstream's do.
//   - Apply, once the annotation is gone, forgets the Service's hints in
//     the cache with a Warning TopologyAwareHintsDisabled ("Topology
//     Aware Hints has been disabled") and removes the hints unless
//     trafficDistribution asks for its own.
//   - Cache is safe for concurrent use by the reconciler's workers.
//
// # Deliberate differences
//
//   - Where upstream walks Go maps, the cache walks zones in name order:
//     which receiving zone gets a redistributed endpoint, and which zone
//     wins a tie for "most over / most under", no longer vary from run to
//     run. The counts per zone are the same; with three or more zones the
//     zone an individual endpoint is hinted to can differ from one
//     kube-controller-manager run (which itself varies).
//   - CPU quantities are read from their wire strings (kcm keeps
//     api.ResourceList as strings) and summed exactly; the shares are
//     then computed from milli-CPUs as upstream's MilliValue does.
//   - Apply bundles the hint step of upstream's reconcileByAddressType so
//     that its branches are tested here; GetOverloadedServices is
//     OverloadedServices and returns its keys sorted.
//   - Copies of unchanged slices are made by a typed clone that keeps the
//     slice's source (so updates keep unmodelled fields) instead of
//     api.DeepCopy's JSON round trip, which could fail.
//
// # Checked against Kubernetes
//
// Besides this package's table tests, bench/hintdiff (in the bench
// module, which may import k8s.io) runs random nodes and slices through
// k8s.io/endpointslice's topologycache and trafficdist and through this
// package, and compares the results.
//
// # Kubernetes counterpart
//
// k8s.io/endpointslice@v0.37.2: topologycache (TopologyCache, SliceInfo,
// EventBuilder, RemoveHintsFromSlices, FormatWithAddressType and the
// message constants) and trafficdist (ReconcileHints), plus utils.go's
// hintsEnabled and reconciler.go's hint step; the controller's node
// handling is kubernetes pkg/controller/endpointslice's
// checkNodeTopologyDistribution.
package topology
