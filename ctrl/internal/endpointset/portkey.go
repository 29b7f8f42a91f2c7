package endpointset

import (
	"slices"
	"strings"

	"github.com/kcmlab/kcm/ctrl/internal/hashorder"
	"github.com/kcmlab/kcm/kube/api"
)

// PortMapKey identifies a set of slice ports whatever their order
// (PortMapKey): the slices of a Service, or of a mirrored Endpoints, are
// grouped by it. A nil and an empty list are the same set.
type PortMapKey string

// NewPortMapKey returns the key of ports; ports is not modified (a cached
// slice's may be given).
func NewPortMapKey(ports []api.EndpointSlicePort) PortMapKey {
	return SortPorts(slices.Clone(ports))
}

// SortPorts sorts ports in place into Kubernetes' order — by the hash of
// each port's discovery/v1 EndpointPort text (hashorder.SlicePortText),
// as upstream's NewPortMapKey sorts the desired ports, in the order slices
// are written with — and returns their key.
func SortPorts(ports []api.EndpointSlicePort) PortMapKey {
	return PortMapKey(strings.Join(hashorder.Sort(ports, hashorder.SlicePortText), ","))
}
