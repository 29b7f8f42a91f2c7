package replicaset

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

// handlers turn informer notifications into ReplicaSet keys and
// expectation observations (Kubernetes' addRS, updateRS, deleteRS,
// addPod, updatePod and deletePod). Their methods take a pointer: New
// hands them to the wiring before the controller exists and sets c
// before Build registers them.
type handlers struct {
	c *Controller
	q keyQueue
}

func (h *handlers) addRS(rs *api.ReplicaSet, _ bool) { h.q.Add(rs.Key()) }

// updateRS syncs on every update, not only spec changes: a resync then
// retries a ReplicaSet whose last creations failed. A new UID under the
// same name means the old one was deleted in between.
func (h *handlers) updateRS(old, cur *api.ReplicaSet) {
	if old.UID != cur.UID {
		h.deleteRS(old, true)
	}
	h.q.Add(cur.Key())
}

// deleteRS forgets the ReplicaSet's expectations and writes, so that one
// created again under the same name starts clean, and syncs the key once
// more.
func (h *handlers) deleteRS(rs *api.ReplicaSet, _ bool) {
	h.c.consistency.Clear(rs.Key(), rs.UID)
	h.c.expectations.DeleteExpectations(rs.Key())
	h.q.Add(rs.Key())
}

// addPod: a pod with a controller ref is one creation observed for its
// ReplicaSet; an orphan wakes every ReplicaSet that may adopt it. A pod
// that arrives already being deleted (seen after a restart) counts as a
// deletion instead.
func (h *handlers) addPod(pod *api.Pod, _ bool) {
	if pod.DeletionTimestamp != nil {
		h.deletePod(pod, false)
		return
	}
	if ref := pod.ControllerRef(); ref != nil {
		if rs, ok := h.c.owners.Resolve(pod.Namespace, ref); ok {
			h.c.expectations.CreationObserved(rs.Key())
			h.q.Add(rs.Key())
		}
		return
	}
	for _, rs := range h.c.podReplicaSets(pod) {
		h.q.Add(rs.Key())
	}
}

// updatePod wakes the ReplicaSets a pod update concerns: a pod being
// deleted counts as deleted now (its replacement need not wait for the
// grace period); a changed controller ref wakes the old owner too; an
// owned pod wakes its owner — and again minReadySeconds (plus a second of
// slack) after it turned Ready, when it becomes available; an orphan
// whose labels or ref changed wakes the ReplicaSets that may adopt it.
func (h *handlers) updatePod(old, cur *api.Pod) {
	if cur.ResourceVersion == old.ResourceVersion {
		return // a resync: nothing changed
	}
	labelsChanged := !maps.Equal(old.Labels, cur.Labels)
	if cur.DeletionTimestamp != nil {
		h.deletePod(cur, false)
		if labelsChanged {
			h.deletePod(old, false)
		}
		return
	}
	curRef, oldRef := cur.ControllerRef(), old.ControllerRef()
	refChanged := !reflect.DeepEqual(curRef, oldRef)
	if refChanged && oldRef != nil {
		if rs, ok := h.c.owners.Resolve(old.Namespace, oldRef); ok {
			h.q.Add(rs.Key())
		}
	}
	if curRef != nil {
		rs, ok := h.c.owners.Resolve(cur.Namespace, curRef)
		if !ok {
			return
		}
		h.q.Add(rs.Key())
		if !api.IsPodReady(old) && api.IsPodReady(cur) && rs.Spec.MinReadySeconds > 0 {
			h.q.AddAfter(rs.Key(), time.Duration(rs.Spec.MinReadySeconds)*time.Second+time.Second)
		}
		return
	}
	if labelsChanged || refChanged {
		for _, rs := range h.c.podReplicaSets(cur) {
			h.q.Add(rs.Key())
		}
	}
}

// deletePod observes the deletion of a pod its ReplicaSet may be waiting
// for (tombstones included: their object may be stale, which at worst
// wakes the wrong ReplicaSet) and syncs the owner. Orphans concern no one.
func (h *handlers) deletePod(pod *api.Pod, _ bool) {
	ref := pod.ControllerRef()
	if ref == nil {
		return
	}
	rs, ok := h.c.owners.Resolve(pod.Namespace, ref)
	if !ok {
		return
	}
	h.c.expectations.DeletionObserved(rs.Key(), pod.Key())
	h.q.Add(rs.Key())
}

// podReplicaSets returns the ReplicaSets of the pod's namespace whose
// selector matches it (client-go's GetPodReplicaSets): a pod without
// labels matches none, and an invalid or empty selector matches nothing.
// More than one is a user error, logged; controller refs keep it harmless.
func (c *Controller) podReplicaSets(pod *api.Pod) []*api.ReplicaSet {
	if len(pod.Labels) == 0 {
		return nil
	}
	var out []*api.ReplicaSet
	for _, rs := range c.rsLister.ReplicaSets(pod.Namespace).List(labels.Everything()) {
		sel, err := podSelector(rs)
		if err != nil || sel.Empty() || !sel.Matches(pod.Labels) {
			continue
		}
		out = append(out, rs)
	}
	if len(out) > 1 {
		c.log.Warn().Str("pod", pod.Key()).Int("replicasets", len(out)).
			Msg("user error: more than one ReplicaSet selects this pod's labels")
	}
	return out
}
