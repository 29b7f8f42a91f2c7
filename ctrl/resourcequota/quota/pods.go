package quota

import (
	"fmt"
	"strings"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/resource"
	"github.com/kcmlab/kcm/kube/labels"
)

// This file is the pod evaluator (Kubernetes' evaluator/core pods.go):
// what a pod counts for, which pods count, and the pod scopes.

// podsResource is core/v1 pods.
var podsResource = GroupResource{Resource: "pods"}

// podNames are the quota names the pod evaluator computes, beside the
// hugepages-* and extended-resource request names.
var podNames = []string{
	"count/pods", "cpu", "memory", "ephemeral-storage",
	"requests.cpu", "requests.memory", "requests.ephemeral-storage",
	"limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods",
}

// The prefixes of the names of requested resources the evaluator computes.
const (
	hugePagesPrefix         = "hugepages-"
	requestsPrefix          = "requests."
	requestsHugePagesPrefix = "requests.hugepages-"
	deviceClassPrefix       = "deviceclass.resource.kubernetes.io/"
)

type podEvaluator struct {
	pods PodLister
	clk  clock.Clock
}

// NewPodEvaluator returns the evaluator of pods: the count (pods,
// count/pods), compute requests and limits (cpu, memory,
// ephemeral-storage, bare names being requests), hugepages and extended
// resources, over the pods that count (PodCounts) and match the quota's
// scopes: Terminating, NotTerminating, BestEffort, NotBestEffort,
// PriorityClass, CrossNamespacePodAffinity. clk decides whether a
// deleted pod's grace period is over.
func NewPodEvaluator(pods PodLister, clk clock.Clock) Evaluator {
	return &podEvaluator{pods: pods, clk: clk}
}

func (p *podEvaluator) GroupResource() GroupResource { return podsResource }

// MatchingResources: the fixed names, then, in input order, hugepages-*
// and requests.hugepages-* names and extended-resource request names.
func (p *podEvaluator) MatchingResources(names []string) []string {
	out := intersection(names, podNames)
	for _, n := range names {
		if strings.HasPrefix(n, hugePagesPrefix) || strings.HasPrefix(n, requestsHugePagesPrefix) {
			out = append(out, n)
		}
		if extendedRequestName(n) {
			out = append(out, n)
		}
	}
	return out
}

// nativeResource reports whether name is in the kubernetes.io namespace:
// unprefixed, or prefixed with a *kubernetes.io/ domain.
func nativeResource(name string) bool {
	return !strings.Contains(name, "/") || strings.Contains(name, "kubernetes.io/")
}

// extendedRequestName reports whether a quota name is the request of an
// extended resource: requests.<domain>/<name> outside kubernetes.io, or
// requests.deviceclass.resource.kubernetes.io/<class> (isExtendedResourceNameForQuota).
func extendedRequestName(name string) bool {
	return strings.HasPrefix(name, requestsPrefix) &&
		(!nativeResource(name) || strings.HasPrefix(name, requestsPrefix+deviceClassPrefix))
}

// extendedResource reports whether a container resource is an extended
// resource, device classes' included (IsDRAExtendedResourceName).
func extendedResource(name string) bool {
	if strings.HasPrefix(name, deviceClassPrefix) {
		return true
	}
	return !nativeResource(name) && !strings.HasPrefix(name, requestsPrefix) &&
		labels.ValidateLabelKey(requestsPrefix+name) == nil
}

// Usage is the pod's usage (PodUsage at the evaluator's clock's time).
func (p *podEvaluator) Usage(obj any) (resource.List, error) {
	pod, ok := obj.(*api.Pod)
	if !ok {
		return nil, fmt.Errorf("pod evaluator: expected *api.Pod, got %T", obj)
	}
	return PodUsage(pod, p.clk.Now())
}

func (p *podEvaluator) UsageStats(opts UsageStatsOptions) (resource.List, error) {
	pods, err := p.pods(opts.Namespace)
	if err != nil {
		return nil, listError(podsResource, err)
	}
	now := p.clk.Now()
	return usageStats(opts, pods, podMatchesScope, func(pod *api.Pod) (resource.List, error) { return PodUsage(pod, now) })
}

// PodUsage is what one pod counts for at time now: count/pods always (a
// pod object exists), and, while the pod counts (PodCounts), pods 1 and
// its effective requests and limits under their quota names
// (Kubernetes' PodUsageFunc).
func PodUsage(pod *api.Pod, now time.Time) (resource.List, error) {
	u := resource.List{"count/pods": resource.NewQuantity(1, resource.DecimalSI)}
	if !PodCounts(pod, now) {
		return u, nil
	}
	reqs, err := podRequests(pod)
	if err != nil {
		return nil, fmt.Errorf("pod %s/%s requests: %w", pod.Namespace, pod.Name, err)
	}
	lims, err := podLimits(pod)
	if err != nil {
		return nil, fmt.Errorf("pod %s/%s limits: %w", pod.Namespace, pod.Name, err)
	}
	return Add(u, computeUsage(reqs, lims)), nil
}

// PodCounts reports whether a pod counts towards compute quota at time
// now: not when it has terminated (Succeeded or Failed), nor when it was
// deleted and its grace period is over (Kubernetes' QuotaV1Pod).
func PodCounts(pod *api.Pod, now time.Time) bool {
	if pod.Status.Phase == api.PodFailed || pod.Status.Phase == api.PodSucceeded {
		return false
	}
	if pod.DeletionTimestamp != nil && pod.DeletionGracePeriodSeconds != nil {
		end := pod.DeletionTimestamp.Add(time.Duration(*pod.DeletionGracePeriodSeconds) * time.Second)
		if now.After(end) {
			return false
		}
	}
	return true
}

// computeUsage maps effective requests and limits to quota names
// (podComputeUsageHelper): pods 1; cpu, memory and ephemeral-storage
// requests under the bare and requests.* names, limits under limits.*;
// hugepages-* requests under both names; extended resources' requests
// under requests.*.
func computeUsage(reqs, lims resource.List) resource.List {
	u := resource.List{"pods": resource.MustParse("1")}
	for _, r := range []string{"cpu", "memory", "ephemeral-storage"} {
		if q, ok := reqs[r]; ok {
			u[r] = q
			u[requestsPrefix+r] = q
		}
		if q, ok := lims[r]; ok {
			u["limits."+r] = q
		}
	}
	for r, q := range reqs {
		if strings.HasPrefix(r, hugePagesPrefix) {
			u[r] = q
			u[requestsPrefix+r] = q
		}
		if extendedResource(r) {
			u[requestsPrefix+r] = q
		}
	}
	return u
}

// podMatchesScope evaluates one scope requirement for a pod. The
// operator counts only for PriorityClass; a requirement on any other scope
// matches as its scope says (as upstream).
func podMatchesScope(req api.ScopedResourceSelectorRequirement, pod *api.Pod) (bool, error) {
	switch req.ScopeName {
	case api.ResourceQuotaScopeTerminating:
		return terminating(pod), nil
	case api.ResourceQuotaScopeNotTerminating:
		return !terminating(pod), nil
	case api.ResourceQuotaScopeBestEffort:
		return bestEffort(pod)
	case api.ResourceQuotaScopeNotBestEffort:
		be, err := bestEffort(pod)
		return !be, err
	case api.ResourceQuotaScopePriorityClass:
		if req.Operator == api.ScopeSelectorOpExists {
			return pod.Spec.PriorityClassName != "", nil
		}
		var values []string
		if pod.Spec.PriorityClassName != "" {
			values = []string{pod.Spec.PriorityClassName}
		}
		return matchesValues(req, values)
	case api.ResourceQuotaScopeCrossNamespacePodAffinity:
		return pod.Spec.UsesCrossNamespacePodAffinity(), nil
	}
	return false, nil
}

// terminating reports whether the pod has an active deadline (the
// Terminating scope: pods that end on their own).
func terminating(pod *api.Pod) bool {
	d := pod.Spec.ActiveDeadlineSeconds
	return d != nil && *d >= 0
}

// bestEffort reports whether the pod's QoS class is BestEffort: the class
// in its status when set, else computed — from the pod-level resources
// when set, else from every container's (init containers included): no
// cpu or memory request or limit anywhere (qos.GetPodQOS).
func bestEffort(pod *api.Pod) (bool, error) {
	if pod.Status.QOSClass != "" {
		return pod.Status.QOSClass == "BestEffort", nil
	}
	if pod.Spec.Resources != nil && podLevelSet(pod) {
		return bestEffortRequirements(pod.Spec.Resources)
	}
	for _, cs := range [][]api.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			be, err := bestEffortRequirements(&cs[i].Resources)
			if err != nil || !be {
				return false, err
			}
		}
	}
	return true, nil
}

// bestEffortRequirements: no requests and limits at all, or cpu and memory
// both with a zero (or no) request equal to their limit.
func bestEffortRequirements(r *api.ResourceRequirements) (bool, error) {
	if len(r.Requests) == 0 && len(r.Limits) == 0 {
		return true, nil
	}
	for _, name := range []string{"cpu", "memory"} {
		req, lim := resource.Quantity{}, resource.Quantity{}
		var err error
		if s, ok := r.Requests[name]; ok {
			if req, err = resource.Parse(s); err != nil {
				return false, fmt.Errorf("request %s: %w", name, err)
			}
		}
		if s, ok := r.Limits[name]; ok {
			if lim, err = resource.Parse(s); err != nil {
				return false, fmt.Errorf("limit %s: %w", name, err)
			}
		}
		if req.Cmp(lim) != 0 || !req.IsZero() {
			return false, nil
		}
	}
	return true, nil
}
