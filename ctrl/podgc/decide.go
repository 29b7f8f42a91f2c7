package podgc

import (
	"cmp"
	"slices"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// The decisions of one pass: pure functions of the listers' snapshot (the
// pods, the nodes by name), the threshold, the quarantine record and the
// time. The shell (gc.go) lists, calls them and writes what they chose.

// evictedReason is the status.reason the kubelet gives a pod it evicted
// (pkg/kubelet/eviction's Reason).
const evictedReason = "Evicted"

// isTerminated: the pod counts towards --terminated-pod-gc-threshold
// (upstream's isPodTerminated). Any phase other than Pending, Running and
// Unknown counts — Succeeded and Failed, and also a pod with no phase
// yet, exactly as kube-controller-manager counts it.
func isTerminated(p *api.Pod) bool {
	switch p.Status.Phase {
	case api.PodPending, api.PodRunning, api.PodUnknown:
		return false
	}
	return true
}

// isTerminalPhase: Succeeded or Failed, the phases a pod never leaves
// (markFailedAndDeletePodWithCondition patches every other pod to Failed).
func isTerminalPhase(p *api.Pod) bool {
	return p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed
}

// isEvicted: the kubelet evicted the pod (eviction.PodIsEvicted: Failed
// with reason Evicted).
func isEvicted(p *api.Pod) bool {
	return p.Status.Phase == api.PodFailed && p.Status.Reason == evictedReason
}

// deletionOrder is upstream's byEvictionAndCreationTimestamp: evicted
// pods first (a controller's own terminated pods are kept longest), then
// the oldest creationTimestamp, ties broken by name; the namespace breaks
// what upstream leaves to sort.Sort, so that the order is total.
func deletionOrder(a, b *api.Pod) int {
	if ea, eb := isEvicted(a), isEvicted(b); ea != eb {
		if ea {
			return -1
		}
		return 1
	}
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Namespace, b.Namespace))
}

// terminatedToCollect returns the terminated pods beyond threshold, in
// deletion order (gcTerminated): of n terminated pods, the first
// n-threshold by deletionOrder. A threshold of 0 or less turns the rule
// off (gc runs gcTerminated only when the threshold is positive).
func terminatedToCollect(pods []*api.Pod, threshold int) []*api.Pod {
	if threshold <= 0 {
		return nil
	}
	var terminated []*api.Pod
	for _, p := range pods {
		if isTerminated(p) {
			terminated = append(terminated, p)
		}
	}
	n := len(terminated) - threshold
	if n <= 0 {
		return nil
	}
	slices.SortFunc(terminated, deletionOrder)
	return terminated[:n]
}

// isNodeReady: the node's Ready condition is True (pkg/util/node's
// IsNodeReady; a node without one is not ready).
func isNodeReady(n *api.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == "Ready" {
			return c.Status == api.ConditionTrue
		}
	}
	return false
}

// hasTaintKey: some taint of the node has key, whatever its effect and
// value (pkg/util/taints' TaintKeyExists).
func hasTaintKey(n *api.Node, key string) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == key {
			return true
		}
	}
	return false
}

// terminatingOutOfService returns the terminating pods whose node is in
// the cache, not Ready and tainted node.kubernetes.io/out-of-service (any
// effect), in deletion order (gcTerminating, the GA
// NodeOutOfServiceVolumeDetach rule: an administrator says the node is
// shut down for good, so its pods' volumes may be detached). A pod whose
// node is not in the cache is left to the orphan rule, as upstream skips
// it; missing counts the terminating pods skipped so, for the log.
func terminatingOutOfService(pods []*api.Pod, nodes map[string]*api.Node) (collect []*api.Pod, missing int) {
	for _, p := range pods {
		if p.DeletionTimestamp == nil {
			continue
		}
		n, ok := nodes[p.Spec.NodeName]
		if !ok {
			missing++
			continue
		}
		if !isNodeReady(n) && hasTaintKey(n, api.TaintNodeOutOfService) {
			collect = append(collect, p)
		}
	}
	slices.SortFunc(collect, deletionOrder)
	return collect, missing
}

// unscheduledTerminating returns the terminating pods bound to no node
// (gcUnscheduledTerminating: no kubelet will ever finish them), by
// namespace and name.
func unscheduledTerminating(pods []*api.Pod) []*api.Pod {
	var out []*api.Pod
	for _, p := range pods {
		if p.DeletionTimestamp != nil && p.Spec.NodeName == "" {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, byKey)
	return out
}

// orphanedOn returns the pods bound to one of the deleted nodes, by
// namespace and name (gcOrphaned's last loop).
func orphanedOn(pods []*api.Pod, deleted map[string]bool) []*api.Pod {
	var out []*api.Pod
	for _, p := range pods {
		if p.Spec.NodeName != "" && deleted[p.Spec.NodeName] {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, byKey)
	return out
}

func byKey(a, b *api.Pod) int {
	return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}

// quarantine records the nodes that pods are bound to but the node cache
// lacks, each with the time it may be checked with a live GET (upstream's
// nodeQueue, a delaying queue of node names filled with
// AddAfter(node, quarantineTime)). A node can be missing from the cache
// only because the cache is behind — a node just created, a watch that
// reconnects — so its pods go only if the apiserver itself, asked after
// the quarantine, does not have it either.
type quarantine map[string]time.Time

// step advances the record by one pass at now and returns the nodes to
// GET, sorted: those whose time has come and that the cache still lacks
// (a due node the cache has now is dropped). Then every node named by a
// pod and missing from the cache that is not waiting already starts
// waiting until now+d; one that is keeps its earlier time, as a delaying
// queue keeps the earlier of two AddAfter times. A due node goes out of
// the record, so while it stays missing it is checked again d after this
// pass — as upstream, whose AddAfter in the same pass queues it again.
func (q quarantine) step(pods []*api.Pod, nodes map[string]*api.Node, now time.Time, d time.Duration) []string {
	var check []string
	for name, at := range q {
		if at.After(now) {
			continue
		}
		delete(q, name)
		if _, ok := nodes[name]; !ok {
			check = append(check, name)
		}
	}
	for _, p := range pods {
		name := p.Spec.NodeName
		if name == "" {
			continue
		}
		if _, ok := nodes[name]; ok {
			continue
		}
		if _, waiting := q[name]; !waiting {
			q[name] = now.Add(d)
		}
	}
	slices.Sort(check)
	return check
}
