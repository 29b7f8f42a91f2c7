package statefulset

import (
	"maps"
	"reflect"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
)

// keyQueue is the part of the loop's queue the handlers use.
type keyQueue interface {
	Add(key string)
	AddAfter(key string, d time.Duration)
}

// handlers turn informer notifications into StatefulSet keys (upstream's
// enqueueStatefulSet on set events, addPod, updatePod and deletePod).
// Their methods take a pointer: New hands them to the wiring before the
// controller exists and sets c before Build registers them.
type handlers struct {
	c *Controller
	q keyQueue
}

// addSet, updateSet and deleteSet sync the set on every change, resyncs
// and status-only updates included, as upstream does (a deleted set's
// sync finds it gone and forgets it).
func (h *handlers) addSet(set *api.StatefulSet, _ bool) { h.q.Add(set.Key()) }

func (h *handlers) updateSet(old, cur *api.StatefulSet) {
	if old.Status.Replicas != cur.Status.Replicas {
		h.c.log.Debug().Str("statefulset", cur.Key()).Int32("old", old.Status.Replicas).
			Int32("new", cur.Status.Replicas).Msg("observed updated replica count")
	}
	h.q.Add(cur.Key())
}

func (h *handlers) deleteSet(set *api.StatefulSet, _ bool) { h.q.Add(set.Key()) }

// addPod: a pod with a controller ref wakes its set, if the cache holds
// that set; an orphan wakes every set whose selector matches it, so that
// one may adopt it. A pod that arrives already being deleted (seen after
// a restart) is handled as a deletion.
func (h *handlers) addPod(pod *api.Pod, _ bool) {
	if pod.DeletionTimestamp != nil {
		h.deletePod(pod, false)
		return
	}
	if ref := pod.ControllerRef(); ref != nil {
		if set, ok := h.c.owners.Resolve(pod.Namespace, ref); ok {
			h.q.Add(set.Key())
		}
		return
	}
	for _, set := range h.c.podStatefulSets(pod) {
		h.q.Add(set.Key())
	}
}

// updatePod wakes the sets a pod update concerns. A relist's update with
// an unchanged resourceVersion concerns none. A changed controller ref
// wakes the old owner too. An owned pod wakes its owner, and again
// minReadySeconds after it turned Ready, when it becomes available
// (upstream's enqueueSSAfter; the sync plans further checks when pods
// turned Ready at different times). An orphan whose labels or ref changed
// wakes the sets that may adopt it.
func (h *handlers) updatePod(old, cur *api.Pod) {
	if cur.ResourceVersion == old.ResourceVersion {
		return
	}
	labelsChanged := !maps.Equal(old.Labels, cur.Labels)
	curRef, oldRef := cur.ControllerRef(), old.ControllerRef()
	refChanged := !reflect.DeepEqual(curRef, oldRef)
	if refChanged && oldRef != nil {
		if set, ok := h.c.owners.Resolve(old.Namespace, oldRef); ok {
			h.q.Add(set.Key())
		}
	}
	if curRef != nil {
		set, ok := h.c.owners.Resolve(cur.Namespace, curRef)
		if !ok {
			return
		}
		h.q.Add(set.Key())
		if !api.IsPodReady(old) && api.IsPodReady(cur) && set.Spec.MinReadySeconds > 0 {
			h.q.AddAfter(set.Key(), time.Duration(set.Spec.MinReadySeconds)*time.Second)
		}
		return
	}
	if labelsChanged || refChanged {
		for _, set := range h.c.podStatefulSets(cur) {
			h.q.Add(set.Key())
		}
	}
}

// deletePod wakes the set that controlled the pod (tombstones included:
// their object may be stale, which at worst wakes the wrong set). The
// deletion of an orphan concerns no one.
func (h *handlers) deletePod(pod *api.Pod, _ bool) {
	if set, ok := h.c.owners.Resolve(pod.Namespace, pod.ControllerRef()); ok {
		h.q.Add(set.Key())
	}
}

// podStatefulSets returns the sets of the pod's namespace whose selector
// matches it (client-go's GetPodStatefulSets): a pod without labels
// matches none, and an invalid, missing or empty selector matches
// nothing. More than one is a user error, logged; controller refs keep it
// harmless.
func (c *Controller) podStatefulSets(pod *api.Pod) []*api.StatefulSet {
	if len(pod.Labels) == 0 {
		return nil
	}
	var out []*api.StatefulSet
	for _, set := range c.setLister.StatefulSets(pod.Namespace).List(labels.Everything()) {
		sel, err := labels.LabelSelectorAsSelector(set.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(pod.Labels) {
			continue
		}
		out = append(out, set)
	}
	if len(out) > 1 {
		names := make([]string, len(out))
		for i, s := range out {
			names[i] = s.Name
		}
		c.log.Error().Str("pod", pod.Key()).Strs("sets", names).
			Msg("more than one StatefulSet is selecting pods with same labels")
	}
	return out
}
