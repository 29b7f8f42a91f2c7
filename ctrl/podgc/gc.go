package podgc

import (
	"context"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
)

// Pass runs the four rules once, in kube-controller-manager's order, on
// one snapshot of the pod and node caches (PodGCController.gc):
//
//  1. terminated pods beyond the threshold, evicted and oldest first
//     (when the threshold is positive);
//  2. terminating pods on not-ready nodes tainted out-of-service;
//  3. pods bound to nodes that are gone: missing from the cache for the
//     quarantine and then from the apiserver too;
//  4. terminating pods bound to no node.
//
// Each pod is force-deleted (forceDelete): marked Failed first unless it
// has finished, then deleted with grace period 0. A rule acts on the
// snapshot, so a pod two rules pick is attempted twice and the second
// attempt fails NotFound (counted as an error, as upstream counts it).
// Errors are logged and counted, never returned; the pass stops early
// only when ctx ends.
func (c *Controller) Pass(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pods := c.pods.List(labels.Everything())
	nodes := map[string]*api.Node{}
	for _, n := range c.nodes.List(labels.Everything()) {
		nodes[n.Name] = n
	}
	now := c.clock.Now()

	if collect := terminatedToCollect(pods, c.threshold); len(collect) > 0 {
		c.log.Info().Int("numPods", len(collect)).Msg("Garbage collecting pods")
		c.deleteAll(ctx, collect, ReasonTerminated, nil, "Failed to delete terminated pod", "")
	}

	collect, missing := terminatingOutOfService(pods, nodes)
	c.log.Debug().Int("numPods", len(collect)).Int("nodeNotCached", missing).
		Msg("Garbage collecting pods that are terminating on node tainted with node.kubernetes.io/out-of-service")
	c.deleteAll(ctx, collect, ReasonOutOfService, nil, "Failed to delete terminating pod on out-of-service node", "")

	c.gcOrphaned(ctx, pods, nodes, now)

	c.deleteAll(ctx, unscheduledTerminating(pods), ReasonUnscheduled, nil,
		"Failed to delete unscheduled terminating pod", "Forced deletion of unscheduled terminating Pod succeeded")
}

// gcOrphaned advances the quarantine, asks the apiserver about the nodes
// whose quarantine ended, and force-deletes the pods of those it does
// not have, with the DisruptionTarget condition (gcOrphaned and
// discoverDeletedNodes). A node the GET finds, or a GET that fails, saves
// its pods for this pass; the node is quarantined again if its pods remain.
func (c *Controller) gcOrphaned(ctx context.Context, pods []*api.Pod, nodes map[string]*api.Node, now time.Time) {
	deleted := map[string]bool{}
	for _, name := range c.waiting.step(pods, nodes, now, c.quarantine) {
		if ctx.Err() != nil {
			return
		}
		_, err := c.nodeClient.Get(ctx, name)
		if rest.IsNotFound(err) {
			deleted[name] = true
		} else if err != nil {
			c.log.Error().Err(err).Str("node", name).Msg("Error while getting node")
		}
	}
	orphans := orphanedOn(pods, deleted)
	for _, p := range orphans {
		c.log.Debug().Str("pod", p.Namespace+"/"+p.Name).Str("node", p.Spec.NodeName).
			Msg("Found orphaned Pod assigned to the Node, deleting")
	}
	c.deleteAll(ctx, orphans, ReasonOrphaned, nodeGoneCondition,
		"Failed to delete orphaned pod", "Forced deletion of orphaned Pod succeeded")
}

// deleteAll force-deletes pods one after another, in the order given,
// counting each attempt under reason; cond, when not nil, is made per pod
// from it. failMsg and okMsg are the log lines of a failure and (when not
// empty) of a success.
func (c *Controller) deleteAll(ctx context.Context, pods []*api.Pod, reason string, cond func(*api.Pod) *api.PodCondition, failMsg, okMsg string) {
	for _, p := range pods {
		if ctx.Err() != nil {
			return
		}
		var pc *api.PodCondition
		if cond != nil {
			pc = cond(p)
		}
		err := c.forceDelete(ctx, p, pc)
		c.metrics.attempt(p.Namespace, reason, err != nil)
		if err != nil {
			c.log.Error().Err(err).Str("pod", p.Namespace+"/"+p.Name).Msg(failMsg)
		} else if okMsg != "" {
			c.log.Info().Str("pod", p.Namespace+"/"+p.Name).Msg(okMsg)
		}
	}
}
