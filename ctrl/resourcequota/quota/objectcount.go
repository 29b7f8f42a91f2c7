package quota

import (
	"fmt"

	"github.com/kcmlab/kcm/kube/api/resource"
)

// objectCount counts the objects of one resource: count/<r>.<g>, and a
// legacy name ("configmaps", "secrets", ...) where Kubernetes has one
// (Kubernetes' generic objectCountEvaluator).
type objectCount struct {
	gr    GroupResource
	names []string
	count CountFunc
}

// NewObjectCountEvaluator returns the evaluator that counts the objects of
// gr under ObjectCountName(gr) and, when legacyName is not empty, under
// legacyName too. No scope selects its objects: a quota with scopes or a
// scope selector requirement counts zero of them, as upstream.
func NewObjectCountEvaluator(gr GroupResource, legacyName string, count CountFunc) Evaluator {
	names := []string{ObjectCountName(gr)}
	if legacyName != "" {
		names = append(names, legacyName)
	}
	return &objectCount{gr: gr, names: names, count: count}
}

func (o *objectCount) GroupResource() GroupResource { return o.gr }

func (o *objectCount) MatchingResources(names []string) []string {
	return intersection(names, o.names)
}

// Usage is 1 under each of the evaluator's names, whatever obj is.
func (o *objectCount) Usage(any) (resource.List, error) {
	u := make(resource.List, len(o.names))
	for _, n := range o.names {
		u[n] = resource.NewQuantity(1, resource.DecimalSI)
	}
	return u, nil
}

func (o *objectCount) UsageStats(opts UsageStatsOptions) (resource.List, error) {
	used := make(resource.List, len(opts.Resources))
	for _, n := range opts.Resources {
		used[n] = resource.NewQuantity(0, resource.DecimalSI)
	}
	n, err := o.count(opts.Namespace)
	if err != nil {
		return used, listError(o.gr, err)
	}
	if n < 0 {
		return used, fmt.Errorf("count of %s in %q is negative: %d", o.gr, opts.Namespace, n)
	}
	if len(opts.Scopes) > 0 || opts.ScopeSelector != nil && len(opts.ScopeSelector.MatchExpressions) > 0 || n == 0 {
		return used, nil
	}
	for _, name := range o.names {
		used[name] = resource.NewQuantity(int64(n), resource.DecimalSI)
	}
	return used, nil
}
