package endpointslice

import (
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl/endpointslice/reconciler"
	"github.com/kcmlab/kcm/ctrl/endpointslice/topology"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/queue"
)

// keyQueue is what the handlers need of the loop's queue
// (*queue.Queue[string]); tests record the keys and their delays.
type keyQueue interface {
	Add(key string)
	AddAfter(key string, d time.Duration)
}

var _ keyQueue = (*queue.Queue[string])(nil)

// SliceChangeMinDelay is the least delay before a Service is synced
// because one of its slices changed under the controller (upstream's
// endpointSliceChangeMinSyncDelay): changes to several slices of one
// Service are synced once. A longer batch period replaces it.
const SliceChangeMinDelay = time.Second

// topologyKey is the queue key of the topology check: a key without a
// slash, so it can be no Service's (upstream's topologyQueueItemKey, on a
// queue of its own).
const topologyKey = "topology"

// handlers turn informer notifications into queue keys: Services'
// "namespace/name", and topologyKey. Service events enqueue the Service;
// pod events the Services they concern, after the batch period; slice
// events the owning Service when the slice changed other than as this
// controller last wrote it; Node events the topology check.
//
// Upstream maps pods to Services on a queue and workers of their own
// (podQueue); here the mapping runs in the pod handler, which kcm's
// processor runs on a goroutine of its own, so the keys, and their
// batching, are the same.
type handlers struct {
	q        keyQueue
	services informer.ServiceLister
	rec      *reconciler.Reconciler
	tracker  *reconciler.Tracker
	batch    time.Duration
	log      zerolog.Logger
}

// Services: onServiceUpdate, onServiceDelete.
func (h *handlers) serviceAdded(s *api.Service, _ bool)   { h.q.Add(s.Key()) }
func (h *handlers) serviceUpdated(_, s *api.Service)      { h.q.Add(s.Key()) }
func (h *handlers) serviceDeleted(s *api.Service, _ bool) { h.q.Add(s.Key()) }

// Pods: onPodUpdate and syncPod. An added or deleted pod concerns the
// Services its labels match; an update, servicesForPodUpdate's.
func (h *handlers) podAdded(p *api.Pod, _ bool) {
	h.enqueueAfterBatch(servicesFor(h.services, p.Namespace, p.Labels))
}

func (h *handlers) podUpdated(old, cur *api.Pod) {
	h.enqueueAfterBatch(servicesForPodUpdate(h.services, old, cur))
}

func (h *handlers) podDeleted(p *api.Pod, _ bool) {
	h.enqueueAfterBatch(servicesFor(h.services, p.Namespace, p.Labels))
}

func (h *handlers) enqueueAfterBatch(keys map[string]bool) {
	for k := range keys {
		h.q.AddAfter(k, h.batch)
	}
}

// sliceAdded (onEndpointSliceAdd): a slice managed by this controller
// that the tracker has not seen at this generation — made by someone else
// in its name, or by an earlier run — syncs its Service.
func (h *handlers) sliceAdded(s *api.EndpointSlice, _ bool) {
	if h.rec.ManagedByController(s) && h.tracker.ShouldSync(s) {
		h.enqueueSliceService(s)
	}
}

// sliceUpdated (onEndpointSliceUpdate): a change of the service-name
// label (which does not move the generation) syncs both Services; a slice
// that became or stopped being this controller's, or a managed slice at a
// generation this controller did not write, syncs its Service.
func (h *handlers) sliceUpdated(old, cur *api.EndpointSlice) {
	if was, is := old.Labels[reconciler.LabelServiceName], cur.Labels[reconciler.LabelServiceName]; was != is {
		h.log.Info().Str("endpointslice", cur.Key()).Str("oldService", was).Str("newService", is).
			Msg("label " + reconciler.LabelServiceName + " changed")
		h.enqueueSliceService(cur)
		h.enqueueSliceService(old)
		return
	}
	if h.rec.ManagedByChanged(old, cur) || (h.rec.ManagedByController(cur) && h.tracker.ShouldSync(cur)) {
		h.enqueueSliceService(cur)
	}
}

// sliceDeleted (onEndpointSliceDelete): the deletion of a managed slice
// the tracker knows syncs its Service, unless this controller deleted it.
func (h *handlers) sliceDeleted(s *api.EndpointSlice, _ bool) {
	if h.rec.ManagedByController(s) && h.tracker.Has(s) && !h.tracker.HandleDeletion(s) {
		h.enqueueSliceService(s)
	}
}

// enqueueSliceService (queueServiceForEndpointSlice) adds the slice's
// Service after the longer of SliceChangeMinDelay and the batch period; a
// slice without a service-name label names none.
func (h *handlers) enqueueSliceService(s *api.EndpointSlice) {
	name := s.Labels[reconciler.LabelServiceName]
	if name == "" {
		h.log.Error().Str("endpointslice", s.Key()).Msg("EndpointSlice has no " + reconciler.LabelServiceName + " label; no Service to sync")
		return
	}
	h.q.AddAfter(s.Namespace+"/"+name, max(SliceChangeMinDelay, h.batch))
}

// Nodes (addNode, updateNode, deleteNode): a Node added or deleted, or
// one whose readiness or zone label changed (a cloud provider may label
// the zone after creating the Node), runs the topology check.
func (h *handlers) nodeAdded(*api.Node, bool) { h.q.Add(topologyKey) }
func (h *handlers) nodeUpdated(old, cur *api.Node) {
	if topology.NodeTopologyChanged(old, cur) {
		h.q.Add(topologyKey)
	}
}
func (h *handlers) nodeDeleted(*api.Node, bool) { h.q.Add(topologyKey) }
