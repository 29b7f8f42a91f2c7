// Package endpointsubsets puts an Endpoints object's subsets into the
// canonical layout Kubernetes gives them, so that kcm writes the same
// bytes kube-controller-manager writes and compares subsets as it does.
// The endpoints controller repacks the subsets it computes from pods; the
// EndpointSlice mirroring controller repacks the subsets a user wrote
// before mirroring them.
//
//	subsets ──Repack──▶ addresses deduplicated (IP, pod UID), not ready wins,
//	                    one subset per set of addresses serving the same ports
//	        ──Sort────▶ addresses by IP then pod UID, ports and subsets in hash order
//
// # Guarantees
//
// Repack does not modify its input and returns newly allocated subsets;
// Sort sorts in place. The result is pkg/api/v1/endpoints' for the same
// input, order included (TestRepackMatchesUpstream compares 40 seeded
// inputs with the output of Kubernetes v1.37.2).
//
// # Kubernetes counterpart
//
// k8s.io/kubernetes pkg/api/v1/endpoints RepackSubsets, SortSubsets and
// LessEndpointAddress; the hash order is package hashorder's.
//
// One concept per file: repack.go.
package endpointsubsets
