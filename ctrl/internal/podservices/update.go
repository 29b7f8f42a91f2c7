package podservices

import (
	"maps"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
)

// ForUpdate returns the keys of the Services a pod update concerns, or
// none (GetPodUpdateProjectionKey, GetServicesToUpdate):
//   - a resync (same resourceVersion), or a change that moves neither the
//     pod's endpoint nor the Services it matches: none;
//   - a change of its endpoint only (deletion timestamp, readiness, IPs):
//     the Services it matches;
//   - a change of its labels, hostname or subdomain: the Services it
//     matched or matches — all of them when its endpoint changed too, else
//     only those it left or joined (determineNeededServiceUpdates).
func ForUpdate(services informer.ServiceLister, old, cur *api.Pod) map[string]bool {
	if old.ResourceVersion == cur.ResourceVersion {
		return nil
	}
	podChanged, labelsChanged := endpointsChanged(old, cur)
	switch {
	case !podChanged && !labelsChanged:
		return nil
	case !labelsChanged:
		return Matching(services, cur.Namespace, cur.Labels)
	}
	now := Matching(services, cur.Namespace, cur.Labels)
	before := Matching(services, cur.Namespace, old.Labels)
	keys := map[string]bool{}
	for k := range now {
		if podChanged || !before[k] {
			keys[k] = true
		}
	}
	for k := range before {
		if podChanged || !now[k] {
			keys[k] = true
		}
	}
	return keys
}

// endpointsChanged returns whether the pod's endpoint may have changed
// (deletion timestamp, readiness, pod IPs) and whether the Services it
// matches may have (labels, hostname, subdomain: the hostname is part of
// the endpoint only for the Service its subdomain names)
// (podEndpointsChanged). Upstream compares the deletion timestamps as
// pointers, so two decoded pods differ whenever either has one; this does
// the same. Name, namespace, UID and nodeName are immutable once the pod
// has an IP.
func endpointsChanged(old, cur *api.Pod) (podChanged, labelsChanged bool) {
	labelsChanged = !maps.Equal(old.Labels, cur.Labels) ||
		old.Spec.Hostname != cur.Spec.Hostname || old.Spec.Subdomain != cur.Spec.Subdomain
	switch {
	case old.DeletionTimestamp != cur.DeletionTimestamp:
		return true, labelsChanged
	case api.IsPodReady(old) != api.IsPodReady(cur):
		return true, labelsChanged
	case len(old.Status.PodIPs) != len(cur.Status.PodIPs):
		return true, labelsChanged
	}
	for i := range old.Status.PodIPs {
		if old.Status.PodIPs[i].IP != cur.Status.PodIPs[i].IP {
			return true, labelsChanged
		}
	}
	return false, labelsChanged
}
