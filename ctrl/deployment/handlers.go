package deployment

import (
	"reflect"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/queue"
)

// handlers turn informer notifications into Deployment keys, as
// kube-controller-manager's DeploymentController does:
//
//	Deployment added/updated/deleted ──▶ that Deployment
//	ReplicaSet with a controller ref  ──▶ its Deployment (also the old one when the ref changed)
//	orphan ReplicaSet added, or its labels or ref changed ──▶ every Deployment selecting it
//	ReplicaSet deleted               ──▶ its Deployment
//	Pod deleted                      ──▶ its Deployment, if Recreate
type handlers struct {
	c   *Controller
	q   *queue.Queue[string]
	log zerolog.Logger
}

func (h *handlers) enqueue(d *api.Deployment) { h.q.Add(d.Key()) }

func (h *handlers) addDeployment(d *api.Deployment, _ bool)    { h.enqueue(d) }
func (h *handlers) updateDeployment(_, d *api.Deployment)      { h.enqueue(d) }
func (h *handlers) deleteDeployment(d *api.Deployment, _ bool) { h.enqueue(d) }

// deploymentsSelecting returns the Deployments of rs's namespace whose
// (valid, non-empty) selector matches rs's labels (GetDeploymentsForReplicaSet).
func (h *handlers) deploymentsSelecting(rs *api.ReplicaSet) []*api.Deployment {
	if len(rs.Labels) == 0 {
		return nil
	}
	var out []*api.Deployment
	for _, d := range h.c.deployments.Deployments(rs.Namespace).List(labels.Everything()) {
		sel, err := labels.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(rs.Labels) {
			continue
		}
		out = append(out, d)
	}
	if len(out) > 1 {
		h.log.Debug().Str("replicaSet", rs.Key()).Int("deployments", len(out)).Msg("more than one deployment selects the replica set")
	}
	return out
}

func (h *handlers) addReplicaSet(rs *api.ReplicaSet, _ bool) {
	if rs.DeletionTimestamp != nil {
		h.deleteReplicaSet(rs, false) // seen first while being deleted
		return
	}
	if rs.ControllerRef() != nil {
		h.c.owners.EnqueueController(h.q, rs)
		return
	}
	for _, d := range h.deploymentsSelecting(rs) {
		h.enqueue(d)
	}
}

func (h *handlers) updateReplicaSet(old, cur *api.ReplicaSet) {
	if cur.ResourceVersion == old.ResourceVersion {
		return // a resync: nothing changed
	}
	curRef, oldRef := cur.ControllerRef(), old.ControllerRef()
	refChanged := !reflect.DeepEqual(curRef, oldRef)
	if refChanged && oldRef != nil {
		h.c.owners.EnqueueController(h.q, old) // the old owner lost it
	}
	if curRef != nil {
		h.c.owners.EnqueueController(h.q, cur)
		return
	}
	if refChanged || !reflect.DeepEqual(cur.Labels, old.Labels) {
		for _, d := range h.deploymentsSelecting(cur) {
			h.enqueue(d)
		}
	}
}

func (h *handlers) deleteReplicaSet(rs *api.ReplicaSet, _ bool) {
	h.c.owners.EnqueueController(h.q, rs)
}

// deletePod wakes a Recreate Deployment waiting for its old pods, on
// every deletion of one of its pods. Kubernetes 1.34 enqueued only when no
// pod of the Deployment was left; since 1.35 (deployment_controller.go,
// deletePod) it enqueues on each deletion, and the sync counts what is
// left.
func (h *handlers) deletePod(pod *api.Pod, _ bool) {
	rs, ok := h.c.rsOwners.ControllerOf(pod)
	if !ok {
		return
	}
	d, ok := h.c.owners.ControllerOf(rs)
	if !ok || d.Spec.Strategy.Type != api.RecreateDeploymentStrategyType {
		return
	}
	h.enqueue(d)
}
