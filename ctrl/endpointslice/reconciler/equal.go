package reconciler

import "github.com/kcmlab/kcm/kube/api"

// samePlaceholder: an existing slice is the placeholder this sync would
// create, compared as upstream's placeholderSliceCompare does: of the
// metadata only the namespace and the labels count (a label absent on one
// side equals an empty value on the other; owner references, names, uids,
// versions and annotations are not compared), then the address type, and
// no endpoints and no ports on either (empty and absent alike).
func samePlaceholder(existing, placeholder *api.EndpointSlice) bool {
	return existing.Namespace == placeholder.Namespace &&
		labelsLooselyEqual(existing.Labels, placeholder.Labels) &&
		existing.AddressType == placeholder.AddressType &&
		len(existing.Endpoints) == 0 && len(placeholder.Endpoints) == 0 &&
		len(existing.Ports) == 0 && len(placeholder.Ports) == 0
}

// labelsLooselyEqual: every label of each side has the same value on the
// other, reading an absent label as "".
func labelsLooselyEqual(a, b map[string]string) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}
