package nodelifecycle

import (
	"context"
	"time"

	"github.com/kcmlab/kcm/ctrl/nodelifecycle/scheduler"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// processTaintBasedEviction decides a node's NoExecute taint from its Ready
// condition (processTaintBaseEviction): False or Unknown while the node
// carries the opposite taint swaps them at once; otherwise the node joins
// its zone's rate-limited queue; True removes both taints and takes the
// node off the queue.
func (c *Controller) processTaintBasedEviction(ctx context.Context, node *api.Node, ready *api.NodeCondition) {
	switch ready.Status {
	case api.ConditionFalse:
		if api.TaintExists(node.Spec.Taints, &UnreachableTaint) {
			if err := c.swapTaints(ctx, node, []api.Taint{NotReadyTaint}, []api.Taint{UnreachableTaint}); err != nil {
				c.log.Error().Err(err).Str("node", node.Name).Msg("failed to instantly swap UnreachableTaint to NotReadyTaint; will try again in the next cycle")
			}
		} else if c.markNodeForTainting(node, api.ConditionFalse) {
			c.log.Debug().Str("node", node.Name).Msg("node is NotReady; adding it to the taint queue")
		}
	case api.ConditionUnknown:
		if api.TaintExists(node.Spec.Taints, &NotReadyTaint) {
			if err := c.swapTaints(ctx, node, []api.Taint{UnreachableTaint}, []api.Taint{NotReadyTaint}); err != nil {
				c.log.Error().Err(err).Str("node", node.Name).Msg("failed to instantly swap NotReadyTaint to UnreachableTaint; will try again in the next cycle")
			}
		} else if c.markNodeForTainting(node, api.ConditionUnknown) {
			c.log.Debug().Str("node", node.Name).Msg("node is unresponsive; adding it to the taint queue")
		}
	case api.ConditionTrue:
		removed, err := c.markNodeAsReachable(ctx, node)
		if err != nil {
			c.log.Error().Err(err).Str("node", node.Name).Msg("failed to remove taints from node; will retry in next iteration")
		}
		if removed {
			c.log.Debug().Str("node", node.Name).Msg("node is healthy again, removed all taints")
		}
	}
}

// markNodeForTainting queues the node in its zone (markNodeForTainting):
// a node that lacks the taint its status calls for is first forgotten by
// the queue, so that it is tainted again even if it was before.
func (c *Controller) markNodeForTainting(node *api.Node, status api.ConditionStatus) bool {
	c.evictorMu.Lock()
	defer c.evictorMu.Unlock()
	q := c.tainters[ZoneKey(node)]
	if q == nil {
		return false
	}
	if status == api.ConditionFalse && !api.TaintExists(node.Spec.Taints, &NotReadyTaint) {
		q.Remove(node.Name)
	}
	if status == api.ConditionUnknown && !api.TaintExists(node.Spec.Taints, &UnreachableTaint) {
		q.Remove(node.Name)
	}
	return q.Add(node.Name, node.UID)
}

// markNodeAsReachable removes both NoExecute taints from the node and
// takes it off its zone's queue; it reports whether the queue had it.
func (c *Controller) markNodeAsReachable(ctx context.Context, node *api.Node) (bool, error) {
	if err := c.removeTaints(ctx, node, UnreachableTaint); err != nil {
		return false, err
	}
	if err := c.removeTaints(ctx, node, NotReadyTaint); err != nil {
		return false, err
	}
	c.evictorMu.Lock()
	defer c.evictorMu.Unlock()
	q := c.tainters[ZoneKey(node)]
	if q == nil {
		return false, nil
	}
	return q.Remove(node.Name), nil
}

// noExecuteTaintingPass is doNoExecuteTaintingPass: each zone's queue
// hands its due nodes, at its rate, to a function that reads the node from
// the cache and sets the NoExecute taint its Ready condition calls for
// (not-ready for False, unreachable for Unknown), removing the other; a
// node Ready again, or gone, leaves the queue untainted.
func (c *Controller) noExecuteTaintingPass(ctx context.Context) {
	c.evictorMu.Lock()
	zones := make([]string, 0, len(c.tainters))
	for z := range c.tainters {
		zones = append(zones, z)
	}
	c.evictorMu.Unlock()
	for _, zone := range zones {
		c.evictorMu.Lock()
		q := c.tainters[zone]
		c.evictorMu.Unlock()
		q.Try(func(v scheduler.TimedValue) (bool, time.Duration) {
			node, err := c.nodeLister.Get(v.Value)
			if rest.IsNotFound(err) {
				c.log.Info().Str("node", v.Value).Msg("node no longer present in nodeLister")
				return true, 0
			}
			if err != nil {
				return false, retryAfterListerMiss
			}
			ready := getCondition(&node.Status, ConditionReady)
			if ready == nil {
				return false, retryAfterListerMiss
			}
			var add, opposite api.Taint
			switch ready.Status {
			case api.ConditionFalse:
				add, opposite = NotReadyTaint, UnreachableTaint
			case api.ConditionUnknown:
				add, opposite = UnreachableTaint, NotReadyTaint
			default:
				return true, 0 // Ready again: no taint
			}
			if err := c.swapTaints(ctx, node, []api.Taint{add}, []api.Taint{opposite}); err != nil {
				c.log.Error().Err(err).Str("node", node.Name).Msg("tainting node")
				return false, 0
			}
			c.metrics.evicted(ZoneKey(node), 1)
			return true, 0
		})
	}
}

// handleDisruption recomputes every zone's state from its nodes' Ready
// conditions and sets the zones' tainting rates (handleDisruption):
//   - all zones fully disrupted now, not before: the NoExecute taints come
//     off every node and every zone's rate drops to 0 (the controller does
//     not evict a whole cluster it cannot hear);
//   - all were and now one is not: every node's probe times reset to now
//     and each zone gets its state's rate;
//   - otherwise each zone whose state changed gets its state's rate.
func (c *Controller) handleDisruption(ctx context.Context, zoneConditions map[string][]*api.NodeCondition, nodes []*api.Node) {
	next := map[string]ZoneState{}
	for zone, conds := range zoneConditions {
		unhealthy, state := ComputeZoneState(conds, c.cfg.UnhealthyZoneThreshold)
		c.metrics.setZone(zone, len(conds), unhealthy, float64(100*(len(conds)-unhealthy))/float64(len(conds)))
		next[zone] = state
	}
	c.evictorMu.Lock()
	for zone := range next {
		if _, had := c.zoneStates[zone]; !had {
			c.log.Error().Str("zone", zone).Msg("setting initial state for unseen zone")
			c.zoneStates[zone] = StateInitial
		}
	}
	for zone := range c.zoneStates {
		if _, have := zoneConditions[zone]; !have {
			c.metrics.setZone(zone, 0, 0, 100)
			delete(c.zoneStates, zone)
		}
	}
	mode := planDisruption(c.zoneStates, next)
	c.evictorMu.Unlock()

	switch mode {
	case stayFull:
		return
	case enterFull:
		c.log.Info().Msg("controller detected that all Nodes are not-Ready; entering master disruption mode")
		for _, n := range nodes {
			if _, err := c.markNodeAsReachable(ctx, n); err != nil {
				c.log.Error().Err(err).Str("node", n.Name).Msg("failed to remove taints from Node")
			}
		}
		c.evictorMu.Lock()
		defer c.evictorMu.Unlock()
		for zone := range c.zoneStates {
			c.tainters[zone].SwapLimiter(0)
			c.zoneStates[zone] = StateFullDisruption
		}
	case exitFull:
		c.log.Info().Msg("controller detected that some Nodes are Ready; exiting master disruption mode")
		now := c.clock.Now()
		for _, n := range nodes {
			if h := c.healthOf(n.Name); h != nil {
				h.probe, h.readyTransition = now, now
				c.setHealth(n.Name, h)
			}
		}
		c.evictorMu.Lock()
		defer c.evictorMu.Unlock()
		for zone := range c.zoneStates {
			c.setZoneRate(zone, len(zoneConditions[zone]), next[zone])
			c.zoneStates[zone] = next[zone]
		}
	case perZone:
		c.evictorMu.Lock()
		defer c.evictorMu.Unlock()
		for zone, state := range c.zoneStates {
			if state == next[zone] {
				continue
			}
			c.log.Info().Str("zone", zone).Str("state", string(next[zone])).Msg("controller detected that zone is now in new state")
			c.setZoneRate(zone, len(zoneConditions[zone]), next[zone])
			c.zoneStates[zone] = next[zone]
		}
	}
}

// setZoneRate is setLimiterInZone; the caller holds evictorMu.
func (c *Controller) setZoneRate(zone string, size int, state ZoneState) {
	if qps, ok := c.rates.zoneQPS(state, size); ok {
		c.tainters[zone].SwapLimiter(qps)
	}
}
