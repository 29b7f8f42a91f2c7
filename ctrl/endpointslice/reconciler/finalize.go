package reconciler

import (
	"context"
	"fmt"
	"time"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// finalize makes the writes of one address type (finalize):
//
//  1. A slice to create and a slice to delete become one update: the new
//     content is written under the old slice's name, when that slice is
//     owned by svc and has the same address type (a slice being garbage
//     collected for an old Service of the same name is never reused).
//  2. Creates, unless the Service is being deleted (the garbage collector
//     would race with them). A create refused because the namespace is
//     terminating ends the sync without error; other failures end it with
//     one.
//  3. Updates, then deletes; the first failure ends the sync.
//
// Every slice written carries the trigger time (or loses a stale one);
// the tracker learns each written generation and each deletion; the
// changes and endpointslices_changed_per_sync metrics count them.
func (r *Reconciler) finalize(ctx context.Context, svc *api.Service, create, update, del []*api.EndpointSlice, triggerTime time.Time) error {
	del = append([]*api.EndpointSlice(nil), del...)
	for i := 0; i < len(del) && len(create) > 0; {
		old, s := del[i], create[len(create)-1]
		if old.AddressType == s.AddressType && ownedBy(old, svc) {
			s.Name = old.Name
			create = create[:len(create)-1]
			update = append(update, s)
			del = append(del[:i], del[i+1:]...)
			continue
		}
		i++
	}

	client := r.client.InNamespace(svc.Namespace)
	if svc.DeletionTimestamp == nil {
		for _, s := range create {
			setTriggerTime(s, triggerTime)
			created, err := client.Create(ctx, s)
			if err != nil {
				if rest.IsNamespaceTerminating(err) {
					return nil // creates keep failing until the namespace is gone
				}
				return fmt.Errorf("failed to create EndpointSlice for Service %s/%s: %w", svc.Namespace, svc.Name, err)
			}
			r.tracker.Update(created)
			r.metrics.change(opCreate)
		}
	}
	for _, s := range update {
		setTriggerTime(s, triggerTime)
		updated, err := client.Update(ctx, s)
		if err != nil {
			return fmt.Errorf("failed to update %s EndpointSlice for Service %s/%s: %w", s.Name, svc.Namespace, svc.Name, err)
		}
		r.tracker.Update(updated)
		r.metrics.change(opUpdate)
	}
	for _, s := range del {
		if err := client.Delete(ctx, s.Name, rest.DeleteOptions{}); err != nil {
			return fmt.Errorf("failed to delete %s EndpointSlice for Service %s/%s: %w", s.Name, svc.Namespace, svc.Name, err)
		}
		r.tracker.ExpectDeletion(s)
		r.metrics.change(opDelete)
	}

	topologyLabel, trafficDistribution := r.topologyLabels(svc)
	r.metrics.slicesChanged(topologyLabel, trafficDistribution, len(create)+len(update)+len(del))
	return nil
}

// setTriggerTime sets the last-change-trigger-time annotation to t, or
// removes it when t is zero (addTriggerTimeAnnotation).
func setTriggerTime(s *api.EndpointSlice, t time.Time) {
	if s.Annotations == nil {
		s.Annotations = map[string]string{}
	}
	if t.IsZero() {
		delete(s.Annotations, AnnotationLastChangeTriggerTime)
		return
	}
	s.Annotations[AnnotationLastChangeTriggerTime] = t.UTC().Format(time.RFC3339Nano)
}

func serviceRef(svc *api.Service) api.ObjectReference { return ctrl.Ref(rest.Services, svc) }
