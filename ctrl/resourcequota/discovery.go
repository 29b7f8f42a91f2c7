package resourcequota

import (
	"context"
	"errors"
	"maps"

	"github.com/kcmlab/kcm/ctrl/internal/monitorset"
	"github.com/kcmlab/kcm/ctrl/resourcequota/quota"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/rest"
)

// DefaultIgnoredResources are the resources quota never monitors nor
// counts (Kubernetes' quota install DefaultIgnoredResources): virtual
// resources that are not stored, and Events, which were never quota-ed.
func DefaultIgnoredResources() map[quota.GroupResource]bool {
	return map[quota.GroupResource]bool{
		{Resource: "bindings"}: true, {Resource: "componentstatuses"}: true,
		{Group: "authentication.k8s.io", Resource: "tokenreviews"}:             true,
		{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"}:       true,
		{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"}:      true,
		{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"}:  true,
		{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"}: true,
		{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"}:   true,
		{Resource: "events"}: true, {Group: "events.k8s.io", Resource: "events"}: true,
	}
}

// quotableResources keeps, of what discovery found, the namespaced
// resources that support create, list, watch and delete (Kubernetes'
// GetQuotableResources over ServerPreferredNamespacedResources), less
// the ignored ones (SyncMonitors' filter).
func quotableResources(all []rest.APIResource, ignored map[quota.GroupResource]bool) map[rest.Resource]bool {
	out := map[rest.Resource]bool{}
	for _, r := range all {
		if r.Namespaced && r.Supports("create", "list", "watch", "delete") && !ignored[grOf(r.Resource)] {
			out[r.Resource] = true
		}
	}
	return out
}

// discoveryLoop reads discovery now and every discovery period until ctx
// ends (Kubernetes' Sync, run by kube-controller-manager beside the
// controller; the first read is NewController's initial monitor setup).
func (c *Controller) discoveryLoop(ctx context.Context) {
	known := c.resyncDiscovery(ctx, nil, false)
	t := c.clock.NewTicker(c.discoveryPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			known = c.resyncDiscovery(ctx, known, true)
		}
	}
}

// resyncDiscovery reads discovery and, when the quotable resources
// differ from known, changes the monitors (and adds a count evaluator for
// each new resource without one), with the workers paused, and waits at
// most a discovery period for the new monitors to sync. It returns what
// is now known. An empty or failed discovery changes nothing; a partial
// one keeps the known resources of the groups that failed. With wait
// false (the first discovery, before the workers start) it does not wait.
func (c *Controller) resyncDiscovery(ctx context.Context, known map[rest.Resource]bool, wait bool) map[rest.Resource]bool {
	all, err := c.discover(ctx)
	next := quotableResources(all, c.ignored)
	if err != nil {
		if ctx.Err() != nil {
			return known
		}
		c.log.Error().Err(err).Msg("error during resource discovery")
		var gde *rest.GroupDiscoveryError
		if !errors.As(err, &gde) || len(next) == 0 {
			return known
		}
		monitorset.KeepFailedGroups(next, known, err, nil) // keep what the failed groups served
	}
	if len(next) == 0 {
		return known
	}
	served := false
	for r := range next {
		served = served || grOf(r) == resourceClaimsGR
	}
	c.draServed.Store(served)
	if maps.Equal(known, next) {
		c.log.Debug().Msg("no resource updates from discovery, skipping resource quota sync")
		return known
	}
	c.workerLock.Lock()
	defer c.workerLock.Unlock()
	added, removed := monitorset.Diff(known, next)
	c.log.Info().Strs("added", added).Strs("removed", removed).Msg("syncing resource quota controller with updated resources from discovery")
	newEvaluators, err := c.syncMonitors(next)
	if err != nil {
		c.log.Error().Err(err).Msg("failed to sync resource monitors")
	}
	if wait {
		waitCtx, cancel := context.WithTimeout(ctx, c.discoveryPeriod)
		informer.WaitForCacheSync(waitCtx, c.clock, syncedFunc{"resourcequota-monitors", c.monitors.Synced})
		cancel()
		if !c.monitors.Synced() {
			c.log.Error().Msg("timed out waiting for quota monitor sync")
			// known is still recorded: the informers go on syncing, and
			// the next change of discovery resyncs again.
		} else {
			c.log.Info().Msg("synced quota controller")
		}
	}
	c.enqueueMatching(newEvaluators)
	return next
}

// syncMonitors gives every quotable resource but the typed ones a
// metadata monitor, and every new resource without an evaluator an
// object count evaluator (count/<resource>.<group>) reading that monitor
// (Kubernetes' SyncMonitors). It returns the evaluators it added.
func (c *Controller) syncMonitors(resources map[rest.Resource]bool) ([]quota.Evaluator, error) {
	meta := make(map[rest.Resource]bool, len(resources))
	for r := range resources {
		if !typedResources[grOf(r)] {
			meta[r] = true
		}
	}
	err := c.monitors.Sync(meta)
	var added []quota.Evaluator
	for r := range resources {
		gr := grOf(r)
		if c.registry.Get(gr) != nil {
			continue
		}
		e := quota.NewObjectCountEvaluator(gr, "", c.countFunc(gr))
		c.registry.Add(e)
		added = append(added, e)
		c.log.Info().Str("resource", r.Resource+"."+r.Group).Msg("QuotaMonitor created object count evaluator")
	}
	return added, err
}
