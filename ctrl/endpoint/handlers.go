package endpoint

import (
	"maps"
	"time"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/queue"
)

// handlers turn informer notifications into Service keys
// ("namespace/name"). Service and Endpoints events enqueue their own key;
// a pod event enqueues the Services whose selector matches the pod, after
// the batch period. Upstream maps pods to Services on a second queue and
// workers of its own (podQueue); here the mapping runs in the pod
// handler, which kcm's processor runs on a goroutine of its own, so the
// result is the same keys, batched the same way.
type handlers struct {
	q        *queue.Queue[string]
	services informer.ServiceLister
	batch    time.Duration
}

func (h *handlers) serviceAdded(s *api.Service, _ bool) { h.q.Add(s.Key()) }
func (h *handlers) serviceUpdated(_, s *api.Service)    { h.q.Add(s.Key()) }
func (h *handlers) serviceDeleted(s *api.Service, _ bool) {
	h.q.Add(s.Key())
}

// endpointsAdded enqueues, from the informer's first list only, the
// Service of every Endpoints but the leader-election records: an
// Endpoints left behind by a Service deleted while no manager ran is then
// deleted (upstream's checkLeftoverEndpoints, run once at start).
func (h *handlers) endpointsAdded(e *api.Endpoints, initial bool) {
	if !initial {
		return
	}
	if _, leader := e.Annotations[AnnotationLeader]; leader {
		return
	}
	h.q.Add(e.Key())
}

// endpointsDeleted enqueues the Service, which re-creates its Endpoints.
func (h *handlers) endpointsDeleted(e *api.Endpoints, _ bool) { h.q.Add(e.Key()) }

func (h *handlers) podAdded(p *api.Pod, _ bool) {
	h.enqueue(servicesFor(h.services, p.Namespace, p.Labels))
}

func (h *handlers) podDeleted(p *api.Pod, _ bool) {
	h.enqueue(servicesFor(h.services, p.Namespace, p.Labels))
}

// podUpdated is GetPodUpdateProjectionKey and GetServicesToUpdate: a
// resync (same resourceVersion) or a change that moves no endpoint does
// nothing; a change of the pod's endpoint (readiness, deletion, IPs)
// enqueues the Services it matches; a change of its labels, hostname or
// subdomain enqueues the Services it matched or matches, all of them if
// its endpoint changed too, else only those it left or joined.
func (h *handlers) podUpdated(old, cur *api.Pod) {
	if old.ResourceVersion == cur.ResourceVersion {
		return
	}
	podChanged, labelsChanged := podEndpointsChanged(old, cur)
	switch {
	case !podChanged && !labelsChanged:
		return
	case !labelsChanged:
		h.enqueue(servicesFor(h.services, cur.Namespace, cur.Labels))
		return
	}
	now := servicesFor(h.services, cur.Namespace, cur.Labels)
	before := servicesFor(h.services, cur.Namespace, old.Labels)
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
	h.enqueue(keys)
}

func (h *handlers) enqueue(keys map[string]bool) {
	for k := range keys {
		h.q.AddAfter(k, h.batch)
	}
}

// podEndpointsChanged returns whether the pod's endpoint may have changed
// (deletion timestamp, readiness, pod IPs) and whether the Services it
// matches may have (labels, hostname, subdomain). Upstream compares the
// deletion timestamps as pointers, so two decoded pods differ whenever
// either has one; this does the same.
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
// matches podLabels; a Service without a selector matches nothing.
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
