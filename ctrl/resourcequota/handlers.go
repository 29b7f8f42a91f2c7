package resourcequota

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/resourcequota/quota"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/processor"
)

// The group-resources of the typed informers, which replenish through the
// update filter as well as on delete.
var (
	podsGR     = quota.GroupResource{Resource: "pods"}
	servicesGR = quota.GroupResource{Resource: "services"}
	claimsGR   = quota.GroupResource{Resource: "persistentvolumeclaims"}
	quotasGR   = quota.GroupResource{Resource: "resourcequotas"}
)

// typedResources are monitored through the shared typed informers, not
// through a metadata monitor of the controller's own.
var typedResources = map[quota.GroupResource]bool{podsGR: true, servicesGR: true, claimsGR: true, quotasGR: true,
	quota.ResourceClaimsResource: true}

// register adds the controller's handlers to the typed informers: the
// quota handler (which also replenishes the namespace's other quotas when
// one is deleted: resourcequotas are counted too), and the replenishment
// handlers of pods, services and claims. It returns the registrations the
// workers wait for, and removes the ones it made when one fails.
func (c *Controller) register(inf Informers) ([]informer.Synced, error) {
	var regs []informer.Synced
	var undo []func()
	add := func(name string, reg *processor.Registration, err error, remove func(*processor.Registration) error) error {
		if err != nil {
			for _, u := range undo {
				u()
			}
			return fmt.Errorf("%s: %s handler: %w", Name, name, err)
		}
		regs = append(regs, syncedFunc{name + "/" + Name, reg.HasSynced})
		undo = append(undo, func() { _ = remove(reg) })
		return nil
	}
	opts := processor.HandlerOptions{Name: Name}
	reg, err := inf.Quotas.AddEventHandler(c.quotaHandler(), opts)
	if err := add(ResourceQuotas.Resource, reg, err, inf.Quotas.RemoveEventHandler); err != nil {
		return nil, err
	}
	reg, err = inf.Pods.AddEventHandler(replenisher(c, podsGR, c.podChanged), opts)
	if err := add("pods", reg, err, inf.Pods.RemoveEventHandler); err != nil {
		return nil, err
	}
	reg, err = inf.Services.AddEventHandler(replenisher(c, servicesGR, serviceChanged), opts)
	if err := add("services", reg, err, inf.Services.RemoveEventHandler); err != nil {
		return nil, err
	}
	reg, err = inf.Claims.AddEventHandler(replenisher(c, claimsGR, claimChanged), opts)
	if err := add("persistentvolumeclaims", reg, err, inf.Claims.RemoveEventHandler); err != nil {
		return nil, err
	}
	return regs, nil
}

// quotaHandler is the quota informer's handler (Kubernetes' NewController
// handlers, and the resourcequotas monitor's delete).
func (c *Controller) quotaHandler() processor.HandlerFuncs[*api.ResourceQuota] {
	return processor.HandlerFuncs[*api.ResourceQuota]{
		AddFunc: func(rq *api.ResourceQuota, _ bool) { c.addQuota(rq) },
		UpdateFunc: func(old, cur *api.ResourceQuota) {
			// Only a change of spec.hard matters: status changes are this
			// controller's own, and a full recalculation comes from the
			// periodic resync, not from status updates.
			if !sameList(old.Spec.Hard, cur.Spec.Hard) {
				c.addQuota(cur)
			}
		},
		DeleteFunc: func(rq *api.ResourceQuota, _ bool) {
			c.primary.Queue().Add(rq.Key())
			c.resourceChanged(quotasGR, rq.Namespace)
		},
	}
}

// replenisher is a monitor's handler (Kubernetes' QuotaMonitor
// controllerFor): a delete, or an update that changed passes, signals a
// change of gr in the object's namespace. Adds signal nothing: admission
// charged the quota when the object was created.
func replenisher[T api.Object](c *Controller, gr quota.GroupResource, changed func(old, cur T) bool) processor.Handler[T] {
	return processor.HandlerFuncs[T]{
		UpdateFunc: func(old, cur T) {
			ns := cur.GetObjectMeta().Namespace
			// A namespace without quotas has nothing to replenish: the
			// filter (a pod's usage, computed twice) is not worth running.
			if changed != nil && len(c.quotas.Namespace(ns).List(labels.Everything())) > 0 && changed(old, cur) {
				c.resourceChanged(gr, ns)
			}
		},
		DeleteFunc: func(obj T, _ bool) { c.resourceChanged(gr, obj.GetObjectMeta().Namespace) },
	}
}

// podChanged is the pods' update filter (Kubernetes' DefaultUpdateFilter):
// the pod moved between the Terminating and NotTerminating scopes, or its
// usage changed — it stopped being counted (it turned terminal) or its
// resources were resized in place.
func (c *Controller) podChanged(old, cur *api.Pod) bool {
	if isTerminating(old) != isTerminating(cur) {
		return true
	}
	e := c.registry.Get(podsGR)
	if e == nil {
		return false
	}
	uo, errO := e.Usage(old)
	uc, errC := e.Usage(cur)
	return errO != nil || errC != nil || !quota.Equals(uo, uc)
}

// isTerminating: the pod has an active deadline (the Terminating scope).
func isTerminating(p *api.Pod) bool {
	return p.Spec.ActiveDeadlineSeconds != nil && *p.Spec.ActiveDeadlineSeconds >= 0
}

// serviceChanged is the services' update filter: the service's quota type
// (NodePort, LoadBalancer, or neither) changed.
func serviceChanged(old, cur *api.Service) bool {
	return quotaServiceType(old) != quotaServiceType(cur)
}

func quotaServiceType(s *api.Service) api.ServiceType {
	switch s.Spec.Type {
	case api.ServiceTypeNodePort, api.ServiceTypeLoadBalancer:
		return s.Spec.Type
	}
	return ""
}

// claimChanged is the claims' update filter. Kubernetes' (core's
// RequiresQuotaReplenish under RecoverVolumeExpansionFailure, on in 1.37)
// compares two freshly allocated *Quantity pointers, which always differ,
// so every claim update replenishes; kcm does what it does.
func claimChanged(_, _ *api.PersistentVolumeClaim) bool { return true }

// addQuota queues a quota added or whose spec.hard changed (Kubernetes'
// addQuota): on the priority queue when status.hard is not spec.hard yet,
// or a hard name some evaluator computes has no usage yet; on the primary
// queue otherwise.
func (c *Controller) addQuota(rq *api.ResourceQuota) {
	key := rq.Key()
	if !sameList(rq.Spec.Hard, rq.Status.Hard) {
		c.priority.Queue().Add(key)
		return
	}
	for name := range rq.Status.Hard {
		if _, found := rq.Status.Used[name]; found {
			continue
		}
		for _, e := range c.registry.List() {
			if len(e.MatchingResources([]string{name})) > 0 {
				c.priority.Queue().Add(key)
				return
			}
		}
	}
	c.primary.Queue().Add(key)
}

// resourceChanged queues a change of gr in namespace on the resource
// changes queue, whose worker replenishes.
func (c *Controller) resourceChanged(gr quota.GroupResource, namespace string) {
	c.changes.Queue().Add(changeKey(gr, namespace))
}

// changeKey is "namespace/resource.group" ("ns/pods." for the core group).
func changeKey(gr quota.GroupResource, namespace string) string {
	return namespace + "/" + gr.Resource + "." + gr.Group
}

func parseChangeKey(key string) (quota.GroupResource, string, error) {
	ns, rg, ok := strings.Cut(key, "/")
	r, g, ok2 := strings.Cut(rg, ".")
	if !ok || !ok2 {
		return quota.GroupResource{}, "", fmt.Errorf("%w: change %q", ErrBadKey, key)
	}
	return quota.GroupResource{Group: g, Resource: r}, ns, nil
}

// replenish is the resource changes loop's sync (Kubernetes'
// replenishQuota): the namespace's quotas that track a resource the
// changed group-resource's evaluator computes (by their status.hard) go on
// the primary queue for a full recalculation. A resource no evaluator
// computes changes nothing.
func (c *Controller) replenish(_ context.Context, key string) (ctrl.Result, error) {
	gr, ns, err := parseChangeKey(key)
	if err != nil {
		return ctrl.Result{}, ctrl.TerminalError(err)
	}
	e := c.registry.Get(gr)
	if e == nil {
		return ctrl.Result{}, nil
	}
	for _, rq := range c.quotas.Namespace(ns).List(labels.Everything()) {
		if len(e.MatchingResources(sortedNames(rq.Status.Hard))) > 0 {
			c.primary.Queue().Add(rq.Key())
		}
	}
	return ctrl.Result{}, nil
}

// enqueueMatching puts on the priority queue every quota whose status.hard
// names a resource one of evaluators computes: after discovery added
// count evaluators, the quotas that already name them get their usage now
// rather than at the next full resync.
func (c *Controller) enqueueMatching(evaluators []quota.Evaluator) {
	if len(evaluators) == 0 {
		return
	}
	for _, rq := range c.quotas.List(labels.Everything()) {
		names := sortedNames(rq.Status.Hard)
		for _, e := range evaluators {
			if len(e.MatchingResources(names)) > 0 {
				c.priority.Queue().Add(rq.Key())
				break
			}
		}
	}
}

// ErrNotMonitored: a count was asked of a resource the controller has no
// monitor for (not discovered yet, or no longer served).
var ErrNotMonitored = errors.New("resourcequota: resource not monitored")

// ErrNotSynced: a count was asked of a monitor whose cache has not
// synced yet.
var ErrNotSynced = errors.New("resourcequota: resource monitor not synced")

// countFunc counts gr's objects in a namespace from its monitor's cache
// (quotas: from the typed quota cache).
func (c *Controller) countFunc(gr quota.GroupResource) quota.CountFunc {
	if gr == quotasGR {
		return func(ns string) (int, error) { return len(c.quotas.Namespace(ns).List(labels.Everything())), nil }
	}
	return func(ns string) (int, error) { return c.count(gr, ns) }
}

// sortedNames are a wire list's resource names, sorted.
func sortedNames(l api.ResourceList) []string { return slices.Sorted(maps.Keys(l)) }
