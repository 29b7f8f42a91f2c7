package quota

import (
	"cmp"
	"slices"
	"sync"

	"github.com/kcmlab/kcm/clock"
)

// Registry holds the evaluators of a controller, one per group-resource.
// It is safe for concurrent use: the controller adds evaluators for
// resources discovery finds while its workers compute usage.
type Registry struct {
	mu         sync.RWMutex
	evaluators map[GroupResource]Evaluator
}

// Add registers e, replacing the evaluator of the same group-resource.
func (r *Registry) Add(e Evaluator) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.evaluators == nil {
		r.evaluators = map[GroupResource]Evaluator{}
	}
	r.evaluators[e.GroupResource()] = e
}

// Get returns the evaluator of gr, or nil.
func (r *Registry) Get(gr GroupResource) Evaluator {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.evaluators[gr]
}

// List returns the evaluators, sorted by group, then resource.
func (r *Registry) List() []Evaluator {
	r.mu.RLock()
	out := make([]Evaluator, 0, len(r.evaluators))
	for _, e := range r.evaluators {
		out = append(out, e)
	}
	r.mu.RUnlock()
	slices.SortFunc(out, func(a, b Evaluator) int {
		ga, gb := a.GroupResource(), b.GroupResource()
		return cmp.Or(cmp.Compare(ga.Group, gb.Group), cmp.Compare(ga.Resource, gb.Resource))
	})
	return out
}

// legacyCounts are the core resources Kubernetes counts under a bare name
// as well as count/<resource> (evaluator/core registry.go).
var legacyCounts = map[string]string{
	"configmaps":             "configmaps",
	"resourcequotas":         "resourcequotas",
	"replicationcontrollers": "replicationcontrollers",
	"secrets":                "secrets",
}

// NewRegistry returns the evaluators kube-controller-manager installs by
// default: pods, Services and PersistentVolumeClaims, and the object
// counts of configmaps, resourcequotas, replicationcontrollers and secrets
// (each also under its bare name), counted with counts(gr). The
// controller adds count/<resource>.<group> evaluators for what discovery
// finds (NewObjectCountEvaluator with no legacy name). DRA's ResourceClaim
// evaluator (DynamicResourceAllocation is GA) is installed when
// WithResourceClaims gives its listers.
func NewRegistry(pods PodLister, svcs ServiceLister, pvcs PVCLister, counts func(GroupResource) CountFunc, clk clock.Clock, opts ...RegistryOption) *Registry {
	var o registryOptions
	for _, opt := range opts {
		opt(&o)
	}
	r := &Registry{}
	r.Add(NewPodEvaluator(pods, clk))
	r.Add(NewServiceEvaluator(svcs))
	r.Add(NewPVCEvaluator(pvcs))
	if o.claims != nil {
		r.Add(NewResourceClaimEvaluator(o.claims, o.classes, pods, clk))
	}
	for res, legacy := range legacyCounts {
		gr := GroupResource{Resource: res}
		r.Add(NewObjectCountEvaluator(gr, legacy, counts(gr)))
	}
	return r
}

// RegistryOption adds to what NewRegistry installs.
type RegistryOption func(*registryOptions)

type registryOptions struct {
	claims  ResourceClaimLister
	classes DeviceClassLister
}

// WithResourceClaims installs the ResourceClaim evaluator
// (NewResourceClaimEvaluator) on claims and classes, with the registry's
// pod lister and clock.
func WithResourceClaims(claims ResourceClaimLister, classes DeviceClassLister) RegistryOption {
	return func(o *registryOptions) { o.claims, o.classes = claims, classes }
}
