package quota

import (
	"errors"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/resource"
)

// CalculateUsage returns the usage of a quota: for every hard name some
// evaluator of r computes, that evaluator's usage over the namespace's
// objects that match scopes and sel (Kubernetes' quota.CalculateUsage).
// Names no evaluator computes are left out. An evaluator that fails
// leaves its names out, and its error is joined into the returned error
// beside the usage the others computed.
func CalculateUsage(namespace string, scopes []string, hard resource.List, r *Registry, sel *api.ScopeSelector) (resource.List, error) {
	hardNames := ResourceNames(hard)
	evaluators := r.List()
	var potential []string
	for _, e := range evaluators {
		potential = append(potential, e.MatchingResources(hardNames)...)
	}
	matched := intersection(hardNames, potential)
	var errs []error
	usage := resource.List{}
	for _, e := range evaluators {
		names := e.MatchingResources(matched)
		if len(names) == 0 {
			continue
		}
		stats, err := e.UsageStats(UsageStatsOptions{Namespace: namespace, Scopes: scopes, ScopeSelector: sel, Resources: names})
		if err != nil {
			errs = append(errs, err)
			matched = difference(matched, names)
			continue
		}
		usage = Add(usage, stats)
	}
	return Mask(usage, matched), errors.Join(errs...)
}
