package nodelifecycle

import (
	"context"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/queue"
)

// handlers turn notifications into keys: a node added or updated into its
// name on the node loop (the NoSchedule pass), a node deleted into
// forgetting its retry mark, and a pod newly bound to a node into its key
// on the pod loop (upstream's podUpdated).
type handlers struct {
	nodes, pods *queue.Queue[string]
	c           *Controller
}

func (h *handlers) nodeAdded(n *api.Node, _ bool)   { h.nodes.Add(n.Name) }
func (h *handlers) nodeUpdated(_, n *api.Node)      { h.nodes.Add(n.Name) }
func (h *handlers) nodeDeleted(n *api.Node, _ bool) { h.c.forgetRetry(n.Name) }

func (h *handlers) podAdded(p *api.Pod, _ bool) { h.podUpdated(nil, p) }
func (h *handlers) podUpdated(old, p *api.Pod) {
	if p.Spec.NodeName != "" && (old == nil || old.Spec.NodeName != p.Spec.NodeName) {
		h.pods.Add(p.Namespace + "/" + p.Name)
	}
}

func (c *Controller) forgetRetry(node string) {
	c.retryMu.Lock()
	defer c.retryMu.Unlock()
	delete(c.toRetry, node)
}

func (c *Controller) markRetry(node string) {
	c.retryMu.Lock()
	defer c.retryMu.Unlock()
	c.toRetry[node] = true
}

func (c *Controller) needsRetry(node string) bool {
	c.retryMu.Lock()
	defer c.retryMu.Unlock()
	return c.toRetry[node]
}

// noScheduleSync is the node loop's sync (doNoScheduleTaintingPass): the
// node's condition and unschedulable NoSchedule taints made to match its
// conditions and spec.unschedulable. Upstream logs a failure and does not
// requeue; kcm's loop retries it with backoff.
func (c *Controller) noScheduleSync(ctx context.Context, name string) (ctrl.Result, error) {
	node, err := c.nodeLister.Get(name)
	if rest.IsNotFound(err) {
		return ctrl.Result{}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	add, remove := noScheduleDiff(node)
	if len(add) == 0 && len(remove) == 0 {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{}, c.swapTaints(ctx, node, add, remove)
}

// podSync is the pod loop's sync (processPod): a pod bound to a node
// whose last seen Ready condition is not True is marked NotReady. A pod
// gone, or on a node the monitor has not seen yet, is left alone.
func (c *Controller) podSync(ctx context.Context, key string) (ctrl.Result, error) {
	ns, name, _ := cutKey(key)
	pod, err := c.podLister.Pods(ns).Get(name)
	if rest.IsNotFound(err) {
		return ctrl.Result{}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	node := pod.Spec.NodeName
	rec := c.healthOf(node)
	if rec == nil {
		return ctrl.Result{}, nil
	}
	if _, err := c.nodeLister.Get(node); err != nil {
		return ctrl.Result{}, err
	}
	ready := getCondition(rec.status, ConditionReady)
	if ready == nil || ready.Status == api.ConditionTrue {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{}, c.markPodsNotReady(ctx, []*api.Pod{pod}, node)
}

func cutKey(key string) (ns, name string, ok bool) {
	for i := range len(key) {
		if key[i] == '/' {
			return key[:i], key[i+1:], true
		}
	}
	return "", key, false
}

// healthOf returns a copy of the node's health record, or nil.
func (c *Controller) healthOf(node string) *health {
	c.healthMu.Lock()
	defer c.healthMu.Unlock()
	h := c.healths[node]
	if h == nil {
		return nil
	}
	cp := *h
	return &cp
}

func (c *Controller) setHealth(node string, h *health) {
	c.healthMu.Lock()
	defer c.healthMu.Unlock()
	c.healths[node] = h
}
