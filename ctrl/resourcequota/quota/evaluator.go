package quota

import (
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/resource"
)

// GroupResource names the resource an evaluator computes usage of
// (Group "" is the core group).
type GroupResource struct{ Group, Resource string }

// String is "resource" for the core group, else "resource.group".
func (gr GroupResource) String() string {
	if gr.Group == "" {
		return gr.Resource
	}
	return gr.Resource + "." + gr.Group
}

// ObjectCountName is the quota name that counts the objects of gr:
// count/<resource> for the core group, count/<resource>.<group> for others
// (Kubernetes' ObjectCountQuotaResourceNameFor).
func ObjectCountName(gr GroupResource) string { return "count/" + gr.String() }

// UsageStatsOptions says what usage to compute: of the objects in
// Namespace that match every scope of Scopes and every requirement of
// ScopeSelector, the quantities named in Resources.
type UsageStatsOptions struct {
	Namespace     string
	Scopes        []string           // spec.scopes
	ScopeSelector *api.ScopeSelector // spec.scopeSelector
	Resources     []string           // the quota's hard names this evaluator should compute
}

// Evaluator computes the quota usage of one group-resource (Kubernetes'
// quota.Evaluator, trimmed to what the controller uses).
type Evaluator interface {
	// GroupResource is the resource the evaluator computes usage of.
	GroupResource() GroupResource
	// MatchingResources returns, of a quota's hard names, those this
	// evaluator computes.
	MatchingResources(names []string) []string
	// Usage returns one object's usage; the controller compares an
	// object's old and new usage to decide whether quotas need a sync.
	Usage(obj any) (resource.List, error)
	// UsageStats returns the usage of the objects the options select.
	UsageStats(opts UsageStatsOptions) (resource.List, error)
}

// PodLister lists the pods of a namespace (from a cache).
type PodLister func(namespace string) ([]*api.Pod, error)

// ServiceLister lists the Services of a namespace (from a cache).
type ServiceLister func(namespace string) ([]*api.Service, error)

// PVCLister lists the PersistentVolumeClaims of a namespace (from a cache).
type PVCLister func(namespace string) ([]*api.PersistentVolumeClaim, error)

// CountFunc returns how many objects of a resource a namespace holds.
type CountFunc func(namespace string) (int, error)

// scopeFunc reports whether an object matches one scope requirement.
type scopeFunc[T any] func(req api.ScopedResourceSelectorRequirement, obj T) (bool, error)

// usageStats is Kubernetes' generic CalculateUsageStats: every name of
// opts.Resources starts at zero (decimal SI), and the usage of every
// object that matches all scopes (each as an Exists requirement) and all
// requirements of the selector is added. As upstream, a scope that cannot
// be evaluated ends the scan: the usage so far is returned, without error.
func usageStats[T any](opts UsageStatsOptions, items []T, matches scopeFunc[T], usage func(T) (resource.List, error)) (resource.List, error) {
	used := make(resource.List, len(opts.Resources))
	for _, n := range opts.Resources {
		used[n] = resource.NewQuantity(0, resource.DecimalSI)
	}
	for _, item := range items {
		ok := true
		for _, s := range opts.Scopes {
			m, err := matches(api.ScopedResourceSelectorRequirement{ScopeName: api.ResourceQuotaScope(s), Operator: api.ScopeSelectorOpExists}, item)
			if err != nil {
				return used, nil
			}
			ok = ok && m
		}
		if opts.ScopeSelector != nil {
			for _, req := range opts.ScopeSelector.MatchExpressions {
				m, err := matches(req, item)
				if err != nil {
					return used, nil
				}
				ok = ok && m
			}
		}
		if !ok {
			continue
		}
		u, err := usage(item)
		if err != nil {
			return used, err
		}
		used = Add(used, u)
	}
	return used, nil
}

// matchesNoScope is the scope function of evaluators whose objects no
// scope selects (Kubernetes' MatchesNoScopeFunc): a quota with any scope
// counts none of them.
func matchesNoScope[T any](api.ScopedResourceSelectorRequirement, T) (bool, error) { return false, nil }

// listError wraps a lister's error as upstream words it.
func listError(gr GroupResource, err error) error {
	return fmt.Errorf("failed to list content of %s: %w", gr, err)
}
