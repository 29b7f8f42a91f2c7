package quota

import (
	"fmt"
	"strings"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/resource"
)

// This file computes a pod's effective requests and limits as Kubernetes'
// resource helpers do for quota (component-helpers PodRequests/PodLimits
// with status resources used and pod-level resources on, 1.37's defaults):
//
//   - per container, the spec's requests, the allocated requests
//     (status.allocatedResources) and the actuated ones
//     (status.resources): the pod's total is the maximum of the three sums
//     (of actuated and allocated only when a resize is Infeasible);
//   - init containers run one at a time: the pod needs the largest of
//     them, each plus the restartable (sidecar) init containers started
//     before it; sidecars also run beside the containers, so they add to
//     the sum;
//   - pod-level requests and limits of cpu, memory and hugepages-* replace
//     the containers' totals;
//   - the pod overhead adds to every request, and to each limit that is
//     set and non-zero.

// podLevelResource reports whether name may be set at pod level.
func podLevelResource(name string) bool {
	return name == "cpu" || name == "memory" || strings.HasPrefix(name, "hugepages-")
}

// anyPodLevel reports whether l names a pod-level resource.
func anyPodLevel(l api.ResourceList) bool {
	for n := range l {
		if podLevelResource(n) {
			return true
		}
	}
	return false
}

// podLevelSet reports whether the pod sets pod-level requests or limits
// (IsPodLevelResourcesSet); podLevelRequestsSet, requests only.
func podLevelSet(pod *api.Pod) bool {
	r := pod.Spec.Resources
	return r != nil && (anyPodLevel(r.Requests) || anyPodLevel(r.Limits))
}

func podLevelRequestsSet(pod *api.Pod) bool {
	r := pod.Spec.Resources
	return r != nil && anyPodLevel(r.Requests)
}

// resizeInfeasible reports whether the pod's first PodResizePending
// condition says Infeasible.
func resizeInfeasible(pod *api.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == api.PodResizePending {
			return c.Reason == api.PodReasonInfeasible
		}
	}
	return false
}

// containerStatus returns the status of the named container, regular
// containers first, then init containers.
func containerStatus(pod *api.Pod, name string) *api.ContainerStatus {
	for i := range pod.Status.ContainerStatuses {
		if pod.Status.ContainerStatuses[i].Name == name {
			return &pod.Status.ContainerStatuses[i]
		}
	}
	for i := range pod.Status.InitContainerStatuses {
		if pod.Status.InitContainerStatuses[i].Name == name {
			return &pod.Status.InitContainerStatuses[i]
		}
	}
	return nil
}

// pick chooses one container's resource list from its spec and status.
type pick func(c *api.Container, cs *api.ContainerStatus, infeasible bool) api.ResourceList

func specRequests(c *api.Container, _ *api.ContainerStatus, _ bool) api.ResourceList {
	return c.Resources.Requests
}

func allocatedRequests(c *api.Container, cs *api.ContainerStatus, infeasible bool) api.ResourceList {
	switch {
	case cs != nil && cs.AllocatedResources != nil:
		return cs.AllocatedResources
	case infeasible:
		return nil
	}
	return c.Resources.Requests
}

func actuatedRequests(c *api.Container, cs *api.ContainerStatus, infeasible bool) api.ResourceList {
	switch {
	case cs != nil && cs.Resources != nil && cs.Resources.Requests != nil:
		return cs.Resources.Requests
	case cs != nil && cs.AllocatedResources != nil:
		return cs.AllocatedResources
	case infeasible:
		return nil
	}
	return c.Resources.Requests
}

func specLimits(c *api.Container, _ *api.ContainerStatus, _ bool) api.ResourceList {
	return c.Resources.Limits
}

func actuatedLimits(c *api.Container, cs *api.ContainerStatus, infeasible bool) api.ResourceList {
	switch {
	case cs != nil && cs.Resources != nil && cs.Resources.Limits != nil:
		return cs.Resources.Limits
	case infeasible:
		return nil
	}
	return c.Resources.Limits
}

// sidecar reports whether an init container is restartable (a sidecar).
func sidecar(c *api.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == string(api.RestartPolicyAlways)
}

// aggregate sums what p picks over the pod's containers, with the init
// containers' rule (see the file comment).
func aggregate(pod *api.Pod, p pick) (resource.List, error) {
	infeasible := resizeInfeasible(pod)
	total := resource.List{}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		l, err := resource.ParseList(p(c, containerStatus(pod, c.Name), infeasible))
		if err != nil {
			return nil, fmt.Errorf("container %s: %w", c.Name, err)
		}
		addInto(total, l)
	}
	sidecars, inits := resource.List{}, resource.List{}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		l, err := resource.ParseList(p(c, containerStatus(pod, c.Name), infeasible))
		if err != nil {
			return nil, fmt.Errorf("init container %s: %w", c.Name, err)
		}
		if sidecar(c) {
			addInto(total, l)
			addInto(sidecars, l)
			maxInto(inits, sidecars)
			continue
		}
		running := resource.List{}
		addInto(running, l)
		addInto(running, sidecars)
		maxInto(inits, running)
	}
	maxInto(total, inits)
	return total, nil
}

// addInto adds l to into, key by key (addResourceList).
func addInto(into, l resource.List) {
	for k, v := range l {
		if cur, ok := into[k]; ok {
			into[k] = cur.Add(v)
		} else {
			into[k] = v
		}
	}
}

// maxInto keeps in into the larger of into's and l's quantity, key by key;
// on a tie into's stays (maxResourceList).
func maxInto(into, l resource.List) {
	for k, v := range l {
		if cur, ok := into[k]; !ok || v.Cmp(cur) > 0 {
			into[k] = v
		}
	}
}

// maxOf returns the key-by-key maximum of the lists, the first winning ties.
func maxOf(lists ...resource.List) resource.List {
	out := resource.List{}
	for _, l := range lists {
		maxInto(out, l)
	}
	return out
}

// podRequests returns the pod's effective requests.
func podRequests(pod *api.Pod) (resource.List, error) {
	spec, err := aggregate(pod, specRequests)
	if err != nil {
		return nil, err
	}
	allocated, err := aggregate(pod, allocatedRequests)
	if err != nil {
		return nil, err
	}
	actuated, err := aggregate(pod, actuatedRequests)
	if err != nil {
		return nil, err
	}
	var reqs resource.List
	if resizeInfeasible(pod) {
		reqs = maxOf(actuated, allocated)
	} else {
		reqs = maxOf(spec, actuated, allocated)
	}
	if podLevelRequestsSet(pod) {
		if err := applyPodLevel(reqs, pod.Spec.Resources.Requests); err != nil {
			return nil, err
		}
	}
	if pod.Spec.Overhead != nil {
		o, err := resource.ParseList(pod.Spec.Overhead)
		if err != nil {
			return nil, fmt.Errorf("overhead: %w", err)
		}
		addInto(reqs, o)
	}
	return reqs, nil
}

// podLimits returns the pod's effective limits.
func podLimits(pod *api.Pod) (resource.List, error) {
	spec, err := aggregate(pod, specLimits)
	if err != nil {
		return nil, err
	}
	actuated, err := aggregate(pod, actuatedLimits)
	if err != nil {
		return nil, err
	}
	var lims resource.List
	if resizeInfeasible(pod) {
		lims = maxOf(actuated)
	} else {
		lims = maxOf(spec, actuated)
	}
	if podLevelSet(pod) {
		if err := applyPodLevel(lims, pod.Spec.Resources.Limits); err != nil {
			return nil, err
		}
	}
	if pod.Spec.Overhead != nil {
		o, err := resource.ParseList(pod.Spec.Overhead)
		if err != nil {
			return nil, fmt.Errorf("overhead: %w", err)
		}
		for k, v := range o {
			if cur, ok := lims[k]; ok && !cur.IsZero() {
				lims[k] = cur.Add(v)
			}
		}
	}
	return lims, nil
}

// applyPodLevel replaces the pod-level resources of l with the pod's.
func applyPodLevel(into resource.List, podLevel api.ResourceList) error {
	l, err := resource.ParseList(podLevel)
	if err != nil {
		return fmt.Errorf("pod-level resources: %w", err)
	}
	for k, v := range l {
		if podLevelResource(k) {
			into[k] = v
		}
	}
	return nil
}
