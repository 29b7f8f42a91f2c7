package statefulset

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"github.com/kcmlab/kcm/kube/api"
)

// The labels a StatefulSet puts on its pods (k8s.io/api/apps/v1).
const (
	// StatefulSetPodNameLabel holds the pod's own name, so that a Service
	// can select one member of a set.
	StatefulSetPodNameLabel = "statefulset.kubernetes.io/pod-name"
	// PodIndexLabel holds the pod's ordinal (feature gate PodIndexLabel,
	// GA since Kubernetes 1.32).
	PodIndexLabel = "apps.kubernetes.io/pod-index"
	// StatefulSetRevisionLabel names the ControllerRevision the pod was
	// made from.
	StatefulSetRevisionLabel = "controller-revision-hash"
)

// memberName splits a pod name into <parent>-<ordinal>: the parent is
// everything before the last dash followed only by digits (greedy, as
// Kubernetes' statefulPodRegex "(.*)-([0-9]+)$").
var memberName = regexp.MustCompile("(.*)-([0-9]+)$")

// getParentNameAndOrdinal returns the StatefulSet a pod's name says it
// belongs to and its ordinal; ("", -1) for a name that is not
// <parent>-<digits>, and (parent, -1) when the digits do not fit an int32
// (Kubernetes' getParentNameAndOrdinal).
func getParentNameAndOrdinal(pod *api.Pod) (parent string, ordinal int) {
	m := memberName.FindStringSubmatch(pod.Name)
	if len(m) < 3 {
		return "", -1
	}
	n, err := strconv.ParseInt(m[2], 10, 32)
	if err != nil {
		return m[1], -1
	}
	return m[1], int(n)
}

// getOrdinal is the pod's ordinal, -1 when its name has none.
func getOrdinal(pod *api.Pod) int {
	_, ordinal := getParentNameAndOrdinal(pod)
	return ordinal
}

// getStartOrdinal is the set's first ordinal: spec.ordinals.start, or 0
// (feature gate StatefulSetStartOrdinal, GA since Kubernetes 1.31).
func getStartOrdinal(set *api.StatefulSet) int {
	if set.Spec.Ordinals != nil {
		return int(set.Spec.Ordinals.Start)
	}
	return 0
}

// getEndOrdinal is the set's last ordinal (inclusive): start + replicas
// - 1. A nil replicas (never the case for a set read from the apiserver,
// which defaults it) counts as 1.
func getEndOrdinal(set *api.StatefulSet) int {
	return getStartOrdinal(set) + int(replicasOf(set)) - 1
}

// replicasOf is spec.replicas, nil read as the apiserver's default 1.
func replicasOf(set *api.StatefulSet) int32 {
	if set.Spec.Replicas == nil {
		return 1
	}
	return *set.Spec.Replicas
}

// podInOrdinalRange reports whether the pod's ordinal is one the set
// wants now (start ≤ ordinal ≤ end); a pod outside is condemned.
func podInOrdinalRange(pod *api.Pod, set *api.StatefulSet) bool {
	o := getOrdinal(pod)
	return o >= getStartOrdinal(set) && o <= getEndOrdinal(set)
}

// getPodName is the name of the set's pod with this ordinal: <set>-<ordinal>.
func getPodName(set *api.StatefulSet, ordinal int) string {
	return fmt.Sprintf("%s-%d", set.Name, ordinal)
}

// isMemberOf reports whether the pod's name makes it one of set's pods.
func isMemberOf(set *api.StatefulSet, pod *api.Pod) bool {
	parent, _ := getParentNameAndOrdinal(pod)
	return parent == set.Name
}

// identityMatches reports whether the pod has the identity of a member
// of set: a valid ordinal, set's name as parent, set's namespace, and the
// pod-name label equal to its name (Kubernetes' identityMatches; the
// pod-index label is not checked, as upstream does not).
func identityMatches(set *api.StatefulSet, pod *api.Pod) bool {
	parent, ordinal := getParentNameAndOrdinal(pod)
	return ordinal >= 0 &&
		parent == set.Name &&
		pod.Name == getPodName(set, ordinal) &&
		pod.Namespace == set.Namespace &&
		pod.Labels[StatefulSetPodNameLabel] == pod.Name
}

// storageMatches reports whether the pod mounts, for each of set's
// volumeClaimTemplates, a volume of the template's name that is that
// pod's claim <claim>-<set>-<ordinal> (Kubernetes' storageMatches).
func storageMatches(set *api.StatefulSet, pod *api.Pod) bool {
	ordinal := getOrdinal(pod)
	if ordinal < 0 {
		return false
	}
	volumes := make(map[string]*api.Volume, len(pod.Spec.Volumes))
	for i := range pod.Spec.Volumes {
		volumes[pod.Spec.Volumes[i].Name] = &pod.Spec.Volumes[i]
	}
	for i := range set.Spec.VolumeClaimTemplates {
		claim := &set.Spec.VolumeClaimTemplates[i]
		v := volumes[claim.Name]
		if v == nil || v.PersistentVolumeClaim == nil ||
			v.PersistentVolumeClaim.ClaimName != getPersistentVolumeClaimName(set, claim, ordinal) {
			return false
		}
	}
	return true
}

// updateIdentity gives the pod the identity its ordinal has in set: name,
// namespace, and the pod-name and pod-index labels (Kubernetes'
// updateIdentity). Hostname and subdomain are immutable and set only when
// a pod is made (newStatefulSetPod).
func updateIdentity(set *api.StatefulSet, pod *api.Pod) {
	ordinal := getOrdinal(pod)
	pod.Name = getPodName(set, ordinal)
	pod.Namespace = set.Namespace
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[StatefulSetPodNameLabel] = pod.Name
	pod.Labels[PodIndexLabel] = strconv.Itoa(ordinal)
}

// updateStorage makes the pod's volumes mount its claims: one
// persistentVolumeClaim volume per volumeClaimTemplate, named as the
// template, first and in the templates' order, then the pod's other
// volumes; a volume of the pod named as a template is replaced
// (Kubernetes' updateStorage, whose claim volumes come in map order).
func updateStorage(set *api.StatefulSet, pod *api.Pod) {
	ordinal := getOrdinal(pod)
	templates := set.Spec.VolumeClaimTemplates
	out := make([]api.Volume, 0, len(templates)+len(pod.Spec.Volumes))
	claimed := make(map[string]bool, len(templates))
	for i := range templates {
		claimed[templates[i].Name] = true
		out = append(out, claimVolume(templates[i].Name, getPersistentVolumeClaimName(set, &templates[i], ordinal)))
	}
	for _, v := range pod.Spec.Volumes {
		if !claimed[v.Name] {
			out = append(out, v)
		}
	}
	pod.Spec.Volumes = out
}

// claimVolume is the volume that mounts claim under name.
func claimVolume(name, claim string) api.Volume {
	return api.Volume{Name: name, PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: claim}}
}

// allowsBurst reports whether the set's pods are managed in parallel
// (podManagementPolicy Parallel) rather than one at a time in order.
func allowsBurst(set *api.StatefulSet) bool {
	return set.Spec.PodManagementPolicy == api.ParallelPodManagement
}

// getPodRevision is the name of the revision the pod was made from (its
// controller-revision-hash label), "" when it has none.
func getPodRevision(pod *api.Pod) string { return pod.Labels[StatefulSetRevisionLabel] }

// setPodRevision labels the pod with the revision it is made from.
func setPodRevision(pod *api.Pod, revision string) {
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[StatefulSetRevisionLabel] = revision
}

// sortByOrdinal sorts pods by ascending ordinal (Kubernetes'
// ascendingOrdinal); pods without one (-1) come first. The sort is
// stable, which upstream's sort.Sort is not: pods of equal ordinal keep
// their order.
func sortByOrdinal(pods []*api.Pod) {
	slices.SortStableFunc(pods, func(a, b *api.Pod) int { return cmp.Compare(getOrdinal(a), getOrdinal(b)) })
}

// sortByOrdinalDescending sorts pods by descending ordinal (Kubernetes'
// descendingOrdinal); pods without one come last.
func sortByOrdinalDescending(pods []*api.Pod) {
	slices.SortStableFunc(pods, func(a, b *api.Pod) int { return cmp.Compare(getOrdinal(b), getOrdinal(a)) })
}
