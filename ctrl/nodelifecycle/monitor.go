package nodelifecycle

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/kcmlab/kcm/ctrl/nodelifecycle/scheduler"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
)

// monitorWorkers is how many nodes a monitor pass checks at once
// (upstream's nodeUpdateWorkerSize).
const monitorWorkers = 8

// errShortCircuit marks a health update the circuit breaker stopped: the
// Lease cache is behind the live Lease, so no node's Lease can be trusted
// this pass (upstream's shortCircuitError). The node is not retried.
var errShortCircuit = errors.New("lease cache is stale")

// monitorNodeHealth is one monitor pass (upstream's monitorNodeHealth):
// new nodes are registered (RegisteredNode; their NoExecute taints
// removed), deleted ones forgotten (RemovingNode); every node's health is
// updated, its NoExecute tainting decided and, when it just stopped being
// Ready, its pods marked NotReady; then the zones' states and rates are
// recomputed.
func (c *Controller) monitorNodeHealth(ctx context.Context) error {
	start := c.clock.Now()
	defer func() { c.metrics.observeAll(c.clock.Since(start).Seconds()) }()

	nodes := c.nodeLister.List(labels.Everything())
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	added, deleted, newZones := c.classifyNodes(nodes)
	for _, n := range newZones {
		c.addZone(n)
	}
	for _, n := range added {
		c.log.Debug().Str("node", n.Name).Msg("controller observed a new Node")
		c.recorder.Eventf(nodeRef(n), api.EventTypeNormal, "RegisteredNode", "Node %s event: %s", n.Name,
			fmt.Sprintf("Registered Node %v in Controller", n.Name))
		c.known[n.Name] = n
		c.addZone(n)
		if _, err := c.markNodeAsReachable(ctx, n); err != nil {
			c.log.Error().Err(err).Str("node", n.Name).Msg("failed to remove taints from new node")
		}
	}
	for _, n := range deleted {
		c.log.Debug().Str("node", n.Name).Msg("controller observed a Node deletion")
		c.recorder.Eventf(nodeRef(n), api.EventTypeNormal, "RemovingNode", "Node %s event: %s", n.Name,
			fmt.Sprintf("Removing Node %v from Controller", n.Name))
		delete(c.known, n.Name)
	}

	podsByNode := map[string][]*api.Pod{}
	for _, p := range c.podLister.List(labels.Everything()) {
		if p.Spec.NodeName != "" {
			podsByNode[p.Spec.NodeName] = append(podsByNode[p.Spec.NodeName], p)
		}
	}

	var mu sync.Mutex
	zoneConditions := map[string][]*api.NodeCondition{}
	work := make(chan *api.Node)
	var wg sync.WaitGroup
	for range min(monitorWorkers, len(nodes)) {
		wg.Go(func() {
			for n := range work {
				zone, cond, counted := c.updateNode(ctx, n, podsByNode[n.Name])
				if counted {
					mu.Lock()
					zoneConditions[zone] = append(zoneConditions[zone], cond)
					mu.Unlock()
				}
			}
		})
	}
	for _, n := range nodes {
		select {
		case work <- n:
		case <-ctx.Done():
		}
	}
	close(work)
	wg.Wait()

	c.handleDisruption(ctx, zoneConditions, nodes)
	return nil
}

// updateNode is one node's part of the pass (updateNodeFunc). It returns
// the node's zone and its Ready condition after the update, and whether
// they count in the zone's state (not when the update failed or the node
// is excluded from disruption checks).
func (c *Controller) updateNode(ctx context.Context, cached *api.Node, pods []*api.Pod) (string, *api.NodeCondition, bool) {
	start := c.clock.Now()
	defer func() { c.metrics.observeNode(c.clock.Since(start).Seconds()) }()
	node, err := api.DeepCopy(cached)
	if err != nil {
		return "", nil, false
	}
	var observed api.NodeCondition
	var current *api.NodeCondition
	for attempt := 1; ; attempt++ {
		observed, current, err = c.tryUpdateNodeHealth(ctx, node)
		if err == nil || errors.Is(err, errShortCircuit) || attempt == scheduler.NodeHealthUpdateRetry || ctx.Err() != nil {
			break
		}
		if node, err = c.nodes.Get(ctx, cached.Name); err != nil {
			c.log.Error().Err(err).Str("node", cached.Name).Msg("failed while getting a Node to retry updating node health; probably Node was deleted")
			break
		}
	}
	if err != nil {
		c.log.Error().Err(err).Str("node", cached.Name).Msg("update health of Node from Controller error, skipping - no pods will be evicted")
		return "", nil, false
	}
	zone := ZoneKey(node)
	counted := !excludedFromDisruption(node)
	if current == nil {
		c.forgetRetry(node.Name)
		return zone, current, counted
	}
	c.processTaintBasedEviction(ctx, node, current)
	if current.Status != api.ConditionTrue && (observed.Status == api.ConditionTrue || c.needsRetry(node.Name)) {
		if observed.Status == api.ConditionTrue {
			// Reported once, when the status changes (RecordNodeStatusChange).
			c.recorder.Eventf(nodeRef(node), api.EventTypeNormal, "NodeNotReady", "Node %s status is now: %s", node.Name, "NodeNotReady")
		}
		if err := c.markPodsNotReady(ctx, pods, node.Name); err != nil {
			c.log.Error().Err(err).Str("node", node.Name).Msg("unable to mark all pods NotReady on node; queuing for retry")
			c.markRetry(node.Name)
			return zone, current, counted
		}
	}
	c.forgetRetry(node.Name)
	return zone, current, counted
}

// tryUpdateNodeHealth is upstream's: observe the node (probe timestamps
// from its Ready heartbeat and its Lease), and when it has been silent
// past its grace period re-read its Lease live (the circuit breaker),
// mark its conditions Unknown and write its status if Ready changed. It
// returns the Ready condition as observed and as it is now (nil when the
// node has none and is still within its startup grace).
func (c *Controller) tryUpdateNodeHealth(ctx context.Context, node *api.Node) (api.NodeCondition, *api.NodeCondition, error) {
	saved := c.healthOf(node.Name)
	if err := c.consistency.EnsureReady(""); err != nil {
		return api.NodeCondition{}, nil, fmt.Errorf("%w: %w", errShortCircuit, err)
	}
	lease, _ := c.leaseLister.Leases(NamespaceNodeLease).Get(node.Name)
	now := c.clock.Now()
	o := observe(node, lease, saved, now, c.graces)
	rec := o.rec
	defer func() { c.setHealth(node.Name, rec) }()
	current := getCondition(&node.Status, ConditionReady)
	if !o.expired(now) {
		return o.observed, current, nil
	}
	if c.consistency != nil {
		var seenRV string
		if rec.lease != nil {
			seenRV = rec.lease.ResourceVersion
		}
		live, err := c.leases.Get(ctx, node.Name)
		switch {
		case err == nil && live.ResourceVersion != seenRV:
			c.consistency.WroteAt("", "", leasesResource, live.ResourceVersion)
			return api.NodeCondition{}, nil, fmt.Errorf("%w: lease %s read at %q, live at %q", errShortCircuit, node.Name, seenRV, live.ResourceVersion)
		case err != nil && !rest.IsNotFound(err):
			return api.NodeCondition{}, nil, fmt.Errorf("%w: error looking up lease to verify node %s: %w", errShortCircuit, node.Name, err)
		}
	}
	current = markUnknown(node, now)
	if sameCondition(current, &o.observed) {
		return o.observed, current, nil
	}
	if _, err := c.nodes.UpdateStatus(ctx, node); err != nil {
		return o.observed, current, fmt.Errorf("updating status of node %s: %w", node.Name, err)
	}
	rec = &health{status: &node.Status, probe: rec.probe, readyTransition: now, lease: lease}
	return o.observed, current, nil
}

// classifyNodes splits the listed nodes into those not known yet, those
// known but gone, and known ones whose zone has no state (a zone that
// emptied and came back).
func (c *Controller) classifyNodes(all []*api.Node) (added, deleted, newZones []*api.Node) {
	seen := make(map[string]bool, len(all))
	for _, n := range all {
		seen[n.Name] = true
		if _, ok := c.known[n.Name]; !ok {
			added = append(added, n)
			continue
		}
		c.evictorMu.Lock()
		_, found := c.zoneStates[ZoneKey(n)]
		c.evictorMu.Unlock()
		if !found {
			newZones = append(newZones, n)
		}
	}
	for name, n := range c.known {
		if !seen[name] {
			deleted = append(deleted, n)
		}
	}
	sort.Slice(deleted, func(i, j int) bool { return deleted[i].Name < deleted[j].Name })
	return added, deleted, newZones
}

// addZone gives a zone seen for the first time its state (Initial) and
// a new tainting queue at --node-eviction-rate (addPodEvictorForNewZone).
func (c *Controller) addZone(n *api.Node) {
	zone := ZoneKey(n)
	c.evictorMu.Lock()
	defer c.evictorMu.Unlock()
	if _, ok := c.zoneStates[zone]; ok {
		return
	}
	c.zoneStates[zone] = StateInitial
	c.tainters[zone] = scheduler.NewRateLimitedTimedQueue(c.clock, c.rates.primary)
	c.log.Info().Str("zone", zone).Msg("initializing eviction metric for zone")
	c.metrics.evicted(zone, 0)
}
