package tainteviction

import "github.com/kcmlab/kcm/kube/api"

// handlers turn informer notifications into the controller's keys
// (upstream's PodUpdated and NodeUpdated, which feed its two work queues;
// kcm has one queue and tells the kinds by prefix).
type handlers struct{ q keyQueue }

// podAdded and podDeleted always enqueue the pod.
func (h handlers) podAdded(p *api.Pod, _ bool)   { h.q.Add(podKey(p.Key())) }
func (h handlers) podDeleted(p *api.Pod, _ bool) { h.q.Add(podKey(p.Key())) }

// podUpdated enqueues the pod when its tolerations or its node changed:
// nothing else about a pod changes the decision.
func (h handlers) podUpdated(old, cur *api.Pod) {
	if old.Spec.NodeName == cur.Spec.NodeName && tolerationsEqual(old.Spec.Tolerations, cur.Spec.Tolerations) {
		return
	}
	h.q.Add(podKey(cur.Key()))
}

// nodeAdded and nodeDeleted always enqueue the node.
func (h handlers) nodeAdded(n *api.Node, _ bool)   { h.q.Add(nodeKey(n.Name)) }
func (h handlers) nodeDeleted(n *api.Node, _ bool) { h.q.Add(nodeKey(n.Name)) }

// nodeUpdated enqueues the node when its NoExecute taints changed (in
// order, value or timeAdded): the other taints and the rest of the node
// do not matter here.
func (h handlers) nodeUpdated(old, cur *api.Node) {
	if taintsEqual(noExecuteTaints(old.Spec.Taints), noExecuteTaints(cur.Spec.Taints)) {
		return
	}
	h.q.Add(nodeKey(cur.Name))
}
