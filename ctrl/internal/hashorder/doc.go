// Package hashorder puts values in the order Kubernetes gives them by
// hash: the FNV-128a hash of the value as go-spew prints it through
// k8s.io/utils/dump.ForHash (%#v: every field named and typed, pointers
// followed, types as k8s.io/api's packages name them). kcm's structs are
// not k8s.io/api's, so the texts are written here, field by field in
// k8s.io/api's order, for the types Kubernetes sorts so: the same bytes
// give the same hash, so kcm writes Endpoints subsets and EndpointSlice
// ports in the order kube-controller-manager writes them.
//
//	value ──SubsetText / EndpointPortText / SlicePortText──▶ dump.ForHash text
//	      ──Sort(xs, text)──▶ xs in FNV-128a order (hex hashes returned)
//
// # Guarantees
//
// The texts are byte-for-byte dump.ForHash's for the k8s.io/api v0.37.2
// types (TestHashTextIsSpews pins them against go-spew's own output).
// Sort is stable and modifies only the slice it is given.
//
// # Kubernetes counterpart
//
// k8s.io/kubernetes pkg/util/hash DeepHashObject and
// k8s.io/utils/dump.ForHash as used by pkg/api/v1/endpoints (SortSubsets,
// hashObject) and by k8s.io/endpointslice/util (portsInOrder,
// NewPortMapKey); the texts are of core/v1 EndpointSubset and
// EndpointPort, and of discovery/v1 EndpointPort.
//
// One concept per file: sort.go (the hash and the sort), text.go (the
// spew texts).
package hashorder
