// Package endpointset holds the identities the EndpointSlice reconcilers
// (the EndpointSlice controller's and the mirroring controller's) compare
// by, and the set of desired endpoints they pack into slices:
//
//	endpoint ──KeyOf──▶ Key: addresses (as a set), hostname, pod namespace/name
//	         ──EqualBeyondKey──▶ same node, zone, conditions, targetRef (but its resourceVersion)?
//	ports    ──NewPortMapKey / SortPorts──▶ PortMapKey: the port set, whatever its order
//	desired endpoints of one port set ──Set──▶ Insert, Get, Remove, Pop (insertion order), List
//
// An endpoint keeps its Key across syncs while its pod stays the same
// pod, so a change of its conditions, node or zone updates the slice that
// holds it instead of moving it. Slices are grouped by address type and
// PortMapKey; their ports are written in SortPorts' order, Kubernetes'
// hash order (package hashorder).
//
// # Guarantees
//
// KeyOf, EqualBeyondKey and NewPortMapKey modify nothing; SortPorts sorts
// the ports it is given, in place. A Set is not safe for concurrent use;
// it pops and lists in the order keys were first inserted, so kcm packs
// deterministically where upstream pops a Go map in random order.
//
// # Kubernetes counterpart
//
// k8s.io/endpointslice/util EndpointSet (and its endpointHash),
// EndpointsEqualBeyondHash, PortMapKey and NewPortMapKey.
//
// One concept per file: key.go (an endpoint's identity), equal.go (the
// comparison beyond it), set.go (the ordered set), portkey.go (a port
// set's identity and order).
package endpointset
