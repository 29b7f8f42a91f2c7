package endpointslicemirroring

import (
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl/endpointslice/reconciler"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/queue"
)

// handlers turn informer notifications into Endpoints keys
// ("namespace/name"), as upstream's handlers do:
//
//   - an Endpoints that may be mirrored (shouldMirror), added, deleted, or
//     updated while it may be mirrored before or after: its key;
//   - a Service without a selector, added or deleted, and a Service whose
//     selector appears or disappears: its key;
//   - an EndpointSlice this controller manages whose generation the
//     tracker has not seen (someone else changed it), one whose managed-by
//     label moved to or from this controller, one whose service-name
//     label changed (both Endpoints), and one deleted that the tracker did
//     not expect to go: the key of its Endpoints, after the batch period.
type handlers struct {
	q       *queue.Queue[string]
	tracker *reconciler.Tracker
	batch   time.Duration
	log     zerolog.Logger
}

func (h *handlers) endpointsAdded(e *api.Endpoints, _ bool) {
	if shouldMirror(e) {
		h.q.Add(e.Key())
	}
}

func (h *handlers) endpointsUpdated(old, cur *api.Endpoints) {
	if shouldMirror(old) || shouldMirror(cur) {
		h.q.Add(cur.Key())
	}
}

func (h *handlers) endpointsDeleted(e *api.Endpoints, _ bool) {
	if shouldMirror(e) {
		h.q.Add(e.Key())
	}
}

func (h *handlers) serviceAdded(s *api.Service, _ bool) {
	if s.Spec.Selector == nil {
		h.q.Add(s.Key())
	}
}

func (h *handlers) serviceUpdated(old, cur *api.Service) {
	if (old.Spec.Selector == nil) != (cur.Spec.Selector == nil) {
		h.q.Add(cur.Key())
	}
}

func (h *handlers) serviceDeleted(s *api.Service, _ bool) {
	if s.Spec.Selector == nil {
		h.q.Add(s.Key())
	}
}

func (h *handlers) sliceAdded(s *api.EndpointSlice, _ bool) {
	if managedByController(s) && h.tracker.ShouldSync(s) {
		h.enqueueFor(s)
	}
}

// sliceUpdated: a change of the service-name label (which does not bump
// the generation) enqueues the Endpoints named before and after.
func (h *handlers) sliceUpdated(old, cur *api.EndpointSlice) {
	if before, now := old.Labels[LabelServiceName], cur.Labels[LabelServiceName]; before != now {
		h.log.Info().Str("endpointSlice", cur.Key()).Str("oldName", before).Str("newName", now).
			Msg("service-name label of an EndpointSlice changed")
		h.enqueueFor(cur)
		h.enqueueFor(old)
		return
	}
	if managedByController(old) != managedByController(cur) || (managedByController(cur) && h.tracker.ShouldSync(cur)) {
		h.enqueueFor(cur)
	}
}

// sliceDeleted: a tracked slice deleted by someone else is re-created.
func (h *handlers) sliceDeleted(s *api.EndpointSlice, _ bool) {
	if managedByController(s) && h.tracker.Has(s) && !h.tracker.HandleDeletion(s) {
		h.enqueueFor(s)
	}
}

// enqueueFor adds the key of the slice's Endpoints, named by its
// service-name label, after the batch period; a slice without the label
// names none.
func (h *handlers) enqueueFor(s *api.EndpointSlice) {
	name := s.Labels[LabelServiceName]
	if name == "" {
		h.log.Debug().Str("endpointSlice", s.Key()).Msg("EndpointSlice has no service-name label")
		return
	}
	h.q.AddAfter(s.Namespace+"/"+name, h.batch)
}
