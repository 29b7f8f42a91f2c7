package endpointset

import "github.com/kcmlab/kcm/kube/api"

// EqualBeyondKey: two endpoints with the same Key are equal in what the
// key leaves out — nodeName, zone, the ready, serving and terminating
// conditions, and the targetRef (its resourceVersion ignored)
// (EndpointsEqualBeyondHash). Hints are not compared: the EndpointSlice
// reconciler's topology step decides them, and the mirroring controller
// writes none.
func EqualBeyondKey(a, b *api.Endpoint) bool {
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
