package reconciler

import "github.com/kcmlab/kcm/kube/api"

// endpointsEqualBeyondKey: two endpoints with the same endpointKey are
// equal in what the key leaves out — nodeName, zone, the ready, serving
// and terminating conditions, and the targetRef (its resourceVersion
// ignored) — (EndpointsEqualBeyondHash). Hints are not compared here:
// the topology step decides them.
func endpointsEqualBeyondKey(a, b *api.Endpoint) bool {
	return optEqual(a.NodeName, b.NodeName) && optEqual(a.Zone, b.Zone) &&
		optEqual(a.Conditions.Ready, b.Conditions.Ready) &&
		optEqual(a.Conditions.Serving, b.Conditions.Serving) &&
		optEqual(a.Conditions.Terminating, b.Conditions.Terminating) &&
		targetRefEqual(a.TargetRef, b.TargetRef)
}

func optEqual[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func targetRefEqual(a, b *api.ObjectReference) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, y := *a, *b
	x.ResourceVersion, y.ResourceVersion = "", ""
	return x == y
}

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
