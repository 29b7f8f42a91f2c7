package endpointslice

import (
	"maps"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
)

// This file is k8s.io/endpointslice/util's pod projection
// (GetPodUpdateProjectionKey, GetServicesToUpdate, podEndpointsChanged,
// determineNeededServiceUpdates): which Services a pod event concerns.
// ctrl/endpoint has the same rules; a controller never imports another, so
// each keeps its copy.

// servicesForPodUpdate returns the keys of the Services a pod update
// concerns, or none:
//   - a resync (same resourceVersion), or a change that moves neither the
//     pod's endpoint nor the Services it matches: none;
//   - a change of its endpoint only (deletion timestamp, readiness, IPs):
//     the Services it matches;
//   - a change of its labels, hostname or subdomain: the Services it
//     matched or matches — all of them when its endpoint changed too, else
//     only those it left or joined.
func servicesForPodUpdate(services informer.ServiceLister, old, cur *api.Pod) map[string]bool {
	if old.ResourceVersion == cur.ResourceVersion {
		return nil
	}
	podChanged, labelsChanged := podEndpointsChanged(old, cur)
	switch {
	case !podChanged && !labelsChanged:
		return nil
	case !labelsChanged:
		return servicesFor(services, cur.Namespace, cur.Labels)
	}
	now := servicesFor(services, cur.Namespace, cur.Labels)
	before := servicesFor(services, cur.Namespace, old.Labels)
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

// podEndpointsChanged returns whether the pod's endpoint may have changed
// (deletion timestamp, readiness, pod IPs) and whether the Services it
// matches may have (labels, hostname, subdomain: the hostname is part of
// the endpoint only for the Service its subdomain names). Upstream compares
// the deletion timestamps as pointers, so two decoded pods differ whenever
// either has one; this does the same. Name, namespace, UID and nodeName
// are immutable once the pod has an IP.
func podEndpointsChanged(old, cur *api.Pod) (podChanged, labelsChanged bool) {
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

// servicesFor returns the keys of the Services in ns whose selector
// matches podLabels; a Service without a selector matches nothing (an
// empty one everything).
func servicesFor(services informer.ServiceLister, ns string, podLabels map[string]string) map[string]bool {
	keys := map[string]bool{}
	for _, s := range services.Services(ns).List(labels.Everything()) {
		if s.Spec.Selector == nil {
			continue
		}
		if labels.SelectorFromSet(s.Spec.Selector).Matches(podLabels) {
			keys[s.Key()] = true
		}
	}
	return keys
}
