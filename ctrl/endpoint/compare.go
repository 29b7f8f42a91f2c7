package endpoint

import (
	"math"

	"github.com/kcmlab/kcm/ctrl/internal/endpointlabels"
	"github.com/kcmlab/kcm/kube/api"
)

// Labels and annotations the controller writes on Endpoints (k8s.io/api
// core/v1 and pkg/controller/endpoint constants).
const (
	// LabelManagedBy marks Endpoints this controller manages; its value is
	// ManagedByValue.
	LabelManagedBy = "endpoints.kubernetes.io/managed-by"
	// ManagedByValue is kube-controller-manager's value for LabelManagedBy
	// (its endpoint controller's ControllerName, which kcm keeps so that
	// either manager recognises the other's Endpoints).
	ManagedByValue = "endpoint-controller"
	// LabelHeadless is set, empty, on the Endpoints of a Service without a
	// cluster IP.
	LabelHeadless = endpointlabels.LabelHeadless
	// AnnotationLastChangeTriggerTime is the time of the earliest pod or
	// Service change behind this write.
	AnnotationLastChangeTriggerTime = endpointlabels.AnnotationLastChangeTriggerTime
	// AnnotationOverCapacity is set to "truncated" when more than
	// MaxCapacity addresses were cut down to MaxCapacity.
	AnnotationOverCapacity = "endpoints.kubernetes.io/over-capacity"
	// AnnotationLeader marks the leader-election record of an old
	// Endpoints lock, which has no Service and is never deleted.
	AnnotationLeader = endpointlabels.AnnotationLeader
	// MaxCapacity is the most addresses an Endpoints object holds.
	MaxCapacity = 1000
	truncated   = "truncated"
)

// subsetsEqual is upstream's semantic comparison of subsets: equal in
// order and content, nil and empty slices alike, the targetRef's
// resourceVersion ignored (a pod update that changes nothing else writes
// nothing).
func subsetsEqual(a, b []api.EndpointSubset) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !addressesEqual(a[i].Addresses, b[i].Addresses) || !addressesEqual(a[i].NotReadyAddresses, b[i].NotReadyAddresses) ||
			!portsEqual(a[i].Ports, b[i].Ports) {
			return false
		}
	}
	return true
}

func addressesEqual(a, b []api.EndpointAddress) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.IP != y.IP || x.Hostname != y.Hostname || !stringPtrEqual(x.NodeName, y.NodeName) {
			return false
		}
		if (x.TargetRef == nil) != (y.TargetRef == nil) {
			return false
		}
		if x.TargetRef != nil {
			rx, ry := *x.TargetRef, *y.TargetRef
			rx.ResourceVersion, ry.ResourceVersion = "", ""
			if rx != ry {
				return false
			}
		}
	}
	return true
}

func portsEqual(a, b []api.EndpointPort) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Name != y.Name || x.Port != y.Port || x.Protocol != y.Protocol || !stringPtrEqual(x.AppProtocol, y.AppProtocol) {
			return false
		}
	}
	return true
}

func stringPtrEqual(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// labelsCorrect: the Endpoints carry the managed-by label and exactly the
// Service's labels besides it and the headless label
// (labelsCorrectForEndpoints; whether the headless label is right is not
// checked, as upstream does not).
func labelsCorrect(epLabels, svcLabels map[string]string) bool {
	if epLabels[LabelManagedBy] != ManagedByValue {
		return false
	}
	skipped := 0
	for k, v := range epLabels {
		if k == LabelHeadless || k == LabelManagedBy {
			skipped++
			continue
		}
		if sv, ok := svcLabels[k]; !ok || sv != v {
			return false
		}
	}
	return len(svcLabels) == len(epLabels)-skipped
}

// capacityAnnotationCorrect: the subsets are within MaxCapacity and the
// over-capacity annotation is absent (capacityAnnotationSetCorrectly).
func capacityAnnotationCorrect(annotations map[string]string, subsets []api.EndpointSubset) bool {
	n := 0
	for _, s := range subsets {
		n += len(s.Addresses) + len(s.NotReadyAddresses)
	}
	if n > MaxCapacity {
		return false
	}
	_, set := annotations[AnnotationOverCapacity]
	return !set
}

// truncate cuts subsets down to MaxCapacity addresses and reports whether
// it did (truncateEndpoints). Ready addresses go first: when they alone
// exceed the capacity every not-ready address goes and the ready ones are
// cut, else only the not-ready ones are. Each subset keeps its share of
// the addresses being cut, rounded up, so the last subsets may get less.
func truncate(subsets []api.EndpointSubset) bool {
	ready, notReady := 0, 0
	for _, s := range subsets {
		ready += len(s.Addresses)
		notReady += len(s.NotReadyAddresses)
	}
	if ready+notReady <= MaxCapacity {
		return false
	}
	cutReady := ready > MaxCapacity
	room, total := MaxCapacity-ready, notReady
	if cutReady {
		room, total = MaxCapacity, ready
	}
	left := room
	for i := range subsets {
		s := &subsets[i]
		n := len(s.NotReadyAddresses)
		if cutReady {
			n = len(s.Addresses)
		}
		share := int(math.Ceil(float64(n) / float64(total) * float64(room)))
		share = min(share, left)
		if cutReady {
			s.Addresses = firstN(s.Addresses, share)
			s.NotReadyAddresses = []api.EndpointAddress{}
			left -= len(s.Addresses)
		} else {
			s.NotReadyAddresses = firstN(s.NotReadyAddresses, share)
			left -= len(s.NotReadyAddresses)
		}
	}
	return true
}

func firstN(as []api.EndpointAddress, n int) []api.EndpointAddress {
	if len(as) <= n {
		return as
	}
	return as[:n]
}
