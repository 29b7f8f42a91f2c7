package endpoint

import (
	"time"

	"github.com/kcmlab/kcm/ctrl/internal/podservices"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
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
	h.enqueue(podservices.Matching(h.services, p.Namespace, p.Labels))
}

func (h *handlers) podDeleted(p *api.Pod, _ bool) {
	h.enqueue(podservices.Matching(h.services, p.Namespace, p.Labels))
}

// podUpdated enqueues the Services the update concerns
// (podservices.ForUpdate: GetPodUpdateProjectionKey, GetServicesToUpdate).
func (h *handlers) podUpdated(old, cur *api.Pod) {
	h.enqueue(podservices.ForUpdate(h.services, old, cur))
}

func (h *handlers) enqueue(keys map[string]bool) {
	for k := range keys {
		h.q.AddAfter(k, h.batch)
	}
}
