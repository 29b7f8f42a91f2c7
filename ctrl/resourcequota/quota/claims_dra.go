package quota

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/resource"
)

// This file is the ResourceClaim evaluator of Dynamic Resource Allocation
// (Kubernetes' evaluator/core resource_claims.go, with the DeviceClass
// mapping of dynamic-resource-allocation's extendedresourcecache): the
// claim count, the devices each claim may be allocated per DeviceClass,
// and, under DRAExtendedResource (GA and locked on in 1.37), the same
// devices under the extended-resource names pods request them by.

// ResourceClaimsResource is resource.k8s.io resourceclaims.
var ResourceClaimsResource = GroupResource{Group: "resource.k8s.io", Resource: "resourceclaims"}

// The name suffix and prefix of per-DeviceClass quota names.
const (
	// devicesPerClassSuffix: <class>.deviceclass.resource.k8s.io/devices
	// (core/v1 ResourceClaimsPerClass).
	devicesPerClassSuffix = ".deviceclass.resource.k8s.io/devices"
	// implicitExtendedPrefix: requests.deviceclass.resource.kubernetes.io/<class>
	// (core/v1 ResourceImplicitExtendedClaimsPerClass).
	implicitExtendedPrefix = requestsPrefix + deviceClassPrefix
)

// DeviceClassDevicesName is the quota name of the devices of class:
// "<class>.deviceclass.resource.k8s.io/devices" (V1ResourceByDeviceClass).
func DeviceClassDevicesName(class string) string { return class + devicesPerClassSuffix }

// ResourceClaimLister lists the ResourceClaims of a namespace (from a
// cache of full objects: the evaluator reads their spec).
type ResourceClaimLister func(namespace string) ([]*api.ResourceClaim, error)

// DeviceClassLister lists every DeviceClass (from a cache).
type DeviceClassLister func() ([]*api.DeviceClass, error)

type claimEvaluator struct {
	claims  ResourceClaimLister
	classes DeviceClassLister
	pods    PodLister
	clk     clock.Clock
}

// NewResourceClaimEvaluator returns the evaluator of ResourceClaims:
//   - count/resourceclaims.resource.k8s.io: 1 per claim;
//   - <class>.deviceclass.resource.k8s.io/devices: per request, Count
//     devices (ExactCount) or AllocationResultsMaxSize (All) of its class;
//     a FirstAvailable request is charged, per class, the most any of its
//     subrequests asks; unknown modes and unknown request kinds count 0;
//   - requests.deviceclass.resource.kubernetes.io/<class> and
//     requests.<extended resource> (the class's spec.extendedResourceName):
//     the class's devices again, less what the owning pod already counts
//     under that name when the claim is the one the scheduler made for the
//     pod's extended-resource requests; only positive amounts are kept.
//
// No scope selects claims. classes, pods and clk may be nil: no class
// maps an extended resource, no pod usage is subtracted, and the real
// clock decides a pod's grace period.
func NewResourceClaimEvaluator(claims ResourceClaimLister, classes DeviceClassLister, pods PodLister, clk clock.Clock) Evaluator {
	if clk == nil {
		clk = clock.Real{}
	}
	return &claimEvaluator{claims: claims, classes: classes, pods: pods, clk: clk}
}

func (e *claimEvaluator) GroupResource() GroupResource { return ResourceClaimsResource }

// MatchingResources: the count and every per-class devices name; an
// implicit extended name whose class maps an extended resource; a
// requests.<name> extended name (isExtendedResourceNameForQuota) some
// DeviceClass serves, by its extendedResourceName or its implicit
// deviceclass.resource.kubernetes.io/<class> name.
func (e *claimEvaluator) MatchingResources(names []string) []string {
	out := []string{}
	var m *classMapping
	mapping := func() *classMapping {
		if m == nil {
			m = e.mapping()
		}
		return m
	}
	for _, n := range names {
		if n == ObjectCountName(ResourceClaimsResource) || strings.HasSuffix(n, devicesPerClassSuffix) {
			out = append(out, n)
			continue
		}
		if class, ok := strings.CutPrefix(n, implicitExtendedPrefix); ok && mapping().extended[class] != "" {
			out = append(out, n)
			continue
		}
		if extendedRequestName(n) && mapping().served[strings.TrimPrefix(n, requestsPrefix)] {
			out = append(out, n)
		}
	}
	return out
}

// Usage is one claim's usage (the evaluator's listers give the owning pod
// and its other claims).
func (e *claimEvaluator) Usage(obj any) (resource.List, error) {
	claim, ok := obj.(*api.ResourceClaim)
	if !ok {
		return nil, fmt.Errorf("resourceclaim evaluator: expected *api.ResourceClaim, got %T", obj)
	}
	src := &claimSource{e: e, namespace: claim.Namespace}
	return e.usage(claim, e.mapping(), src, e.clk.Now()), nil
}

func (e *claimEvaluator) UsageStats(opts UsageStatsOptions) (resource.List, error) {
	claims, err := e.claims(opts.Namespace)
	if err != nil {
		return nil, listError(ResourceClaimsResource, err)
	}
	m := e.mapping()
	src := &claimSource{e: e, namespace: opts.Namespace, claims: claims, claimsListed: true}
	now := e.clk.Now()
	return usageStats(opts, claims, matchesNoScope, func(c *api.ResourceClaim) (resource.List, error) {
		return e.usage(c, m, src, now), nil
	})
}

// usage is Kubernetes' claimEvaluator.Usage.
func (e *claimEvaluator) usage(claim *api.ResourceClaim, m *classMapping, src *claimSource, now time.Time) resource.List {
	u := resource.List{ObjectCountName(ResourceClaimsResource): resource.NewQuantity(1, resource.DecimalSI)}
	for _, req := range claim.Spec.Devices.Requests {
		switch {
		case len(req.FirstAvailable) > 0:
			// The worst case per class: the largest subrequest of each.
			most := map[string]resource.Quantity{}
			for _, sub := range req.FirstAvailable {
				name := DeviceClassDevicesName(sub.DeviceClassName)
				q := resource.NewQuantity(devices(sub.AllocationMode, sub.Count), resource.DecimalSI)
				if q.Cmp(most[name]) > 0 { // a class asked for 0 devices gets no entry
					most[name] = q
				}
			}
			for name, q := range most {
				u[name] = u[name].Add(q)
			}
		case req.Exactly != nil:
			name := DeviceClassDevicesName(req.Exactly.DeviceClassName)
			u[name] = u[name].Add(resource.NewQuantity(devices(req.Exactly.AllocationMode, req.Exactly.Count), resource.DecimalSI))
		default:
			// A request kind this release does not know: no quota.
		}
	}
	addExtendedUsage(u, m, src.verifiedPodUsage(claim, now))
	return u
}

// devices is what a request of mode asks for: count (ExactCount), the
// most one claim may be allocated (All), and 0 for a mode this release
// does not know (after a downgrade).
func devices(mode api.DeviceAllocationMode, count int64) int64 {
	switch mode {
	case api.DeviceAllocationModeExactCount:
		return count
	case api.DeviceAllocationModeAll:
		return api.AllocationResultsMaxSize
	}
	return 0
}

// addExtendedUsage adds to u, for every per-class devices name of u, the
// same amount under requests.deviceclass.resource.kubernetes.io/<class>
// and, when the class maps one, requests.<extended resource>, less what
// podUsage (the owning pod's usage, or nil) holds under that name; only a
// positive remainder is kept (addExtendedResourceQuota). Two classes of
// one claim mapping the same extended resource: upstream keeps one of
// them at random (map order); kcm keeps the last class in name order.
func addExtendedUsage(u resource.List, m *classMapping, podUsage resource.List) {
	extended := map[string]resource.Quantity{}
	for _, name := range slices.Sorted(maps.Keys(u)) {
		class, ok := strings.CutSuffix(name, devicesPerClassSuffix)
		if !ok || class == "" {
			continue
		}
		extended[implicitExtendedPrefix+class] = u[name]
		if ext := m.extended[class]; ext != "" {
			extended[requestsPrefix+ext] = u[name]
		}
	}
	for name, q := range extended {
		if p, ok := podUsage[name]; ok {
			q = q.Sub(p)
		}
		if q.Sign() > 0 {
			u[name] = q
		}
	}
}

// classMapping is what the DeviceClasses say about extended resources
// (the steady state of extendedresourcecache): extended maps a class to
// its spec.extendedResourceName; served holds every resource name some
// class serves, its extendedResourceName or its implicit
// deviceclass.resource.kubernetes.io/<class> name. (Upstream's cache is
// built from events: after the newest of two classes that name the same
// extended resource is deleted, it no longer serves that name until
// restarted; kcm reads the classes as they are.)
type classMapping struct {
	extended map[string]string
	served   map[string]bool
}

func (e *claimEvaluator) mapping() *classMapping {
	m := &classMapping{extended: map[string]string{}, served: map[string]bool{}}
	if e.classes == nil {
		return m
	}
	classes, err := e.classes()
	if err != nil { // upstream's cache is empty until its informer lists
		return m
	}
	for _, c := range classes {
		m.served[deviceClassPrefix+c.Name] = true
		if x := c.Spec.ExtendedResourceName; x != nil && *x != "" {
			m.extended[c.Name] = *x
			m.served[*x] = true
		}
	}
	return m
}

// claimSource reads, once per usage computation, a namespace's pods and
// claims for the extended-resource rule.
type claimSource struct {
	e                        *claimEvaluator
	namespace                string
	pods                     []*api.Pod
	podsListed, claimsListed bool
	podsErr, claimsErr       error
	claims                   []*api.ResourceClaim
}

func (s *claimSource) pod(name string) *api.Pod {
	if !s.podsListed {
		s.podsListed = true
		s.pods, s.podsErr = s.e.pods(s.namespace)
	}
	if s.podsErr != nil {
		return nil
	}
	for _, p := range s.pods {
		if p.Name == name {
			return p
		}
	}
	return nil
}

func (s *claimSource) allClaims() ([]*api.ResourceClaim, error) {
	if !s.claimsListed {
		s.claimsListed = true
		s.claims, s.claimsErr = s.e.claims(s.namespace)
	}
	return s.claims, s.claimsErr
}

// podOwner is the UID of the pod that controls claim when claim is an
// extended-resource claim (the annotation "true", a controller reference
// of kind Pod, apiVersion v1), and whether it is one.
func podOwner(claim *api.ResourceClaim) (*api.OwnerReference, bool) {
	if claim.Annotations[api.ExtendedResourceClaimAnnotation] != "true" {
		return nil, false
	}
	ref := claim.ControllerRef()
	if ref == nil || ref.Kind != "Pod" || ref.APIVersion != "v1" {
		return nil, false
	}
	return ref, true
}

// verifiedPodUsage is the usage of the pod claim was made for, when claim
// is that pod's extended-resource claim: the pod exists with the
// controller reference's UID, and its status names claim, or, naming
// none, claim is the first of the pod's extended-resource claims (by
// creation time, then name). Otherwise, or on any error, nil
// (getVerifiedPodUsage).
func (s *claimSource) verifiedPodUsage(claim *api.ResourceClaim, now time.Time) resource.List {
	ref, ok := podOwner(claim)
	if !ok || s.e.pods == nil {
		return nil
	}
	pod := s.pod(ref.Name)
	if pod == nil || pod.UID != ref.UID {
		return nil
	}
	if st := pod.Status.ExtendedResourceClaimStatus; st != nil {
		if st.ResourceClaimName != claim.Name {
			return nil
		}
	} else {
		all, err := s.allClaims()
		if err != nil {
			return nil
		}
		for _, other := range all {
			if r, ok := podOwner(other); !ok || r.UID != pod.UID {
				continue
			}
			switch other.CreationTimestamp.Compare(claim.CreationTimestamp.Time) {
			case -1:
				return nil
			case 0:
				if other.Name < claim.Name {
					return nil
				}
			}
		}
	}
	u, err := PodUsage(pod, now)
	if err != nil {
		return nil
	}
	return u
}
