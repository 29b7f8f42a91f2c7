// Package hintdiff checks kcm's EndpointSlice hints against Kubernetes'
// own code: random nodes and slices go through
// k8s.io/endpointslice@v0.37.2's topologycache and trafficdist and
// through kcm's ctrl/endpointslice/topology, and the results must agree.
// It lives in the bench module because its judge is k8s.io/endpointslice,
// which kcm's own module may not import.
//
// # Where it sits
//
//	Generate(seed) ──nodes, slices to create / update / unchanged──┬─▶ topologycache.SetNodes + AddHints (N runs)
//	                                                               │   trafficdist.ReconcileHints
//	                                                               └─▶ topology.Cache.SetNodes + AddHints
//	                                                                   topology.ReconcileHints
//	                                 each endpoint's hints, the lists, the Events, the cache's state ◀─ compared
//
// # Guarantees checked
//
//   - ReconcileHints, for every trafficDistribution value (none,
//     PreferClose, PreferSameZone, PreferSameNode, an unknown one): the
//     same slices to create, to update and left unchanged, with the same
//     hints on every endpoint.
//   - AddHints after SetNodes (nodes Ready or not, control-plane or not,
//     with or without a zone, CPU in several spellings): the same slices
//     in each list with the same hints, the same Events (type, reason,
//     message), the same HasPopulatedHints and OverloadedServices. Where
//     upstream's result depends on Go map order (it varies between runs
//     of the same input: ties between zones, several receiving zones),
//     kcm settles in zone-name order; there the Events, the unchanged
//     list and the number of hints per zone are compared instead.
//
// # Kubernetes names
//
// The judge is k8s.io/endpointslice@v0.37.2 topologycache.TopologyCache
// and trafficdist.ReconcileHints, the code kube-controller-manager 1.37
// runs.
package hintdiff
