package statefulset

// Temporary stand-ins of helper A1's contract functions (wt-sts-pods), so
// that A2's files compile before A1's branch is merged. Deleted on merge.

import (
	"maps"
	"regexp"
	"strconv"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

var tmpPodRegex = regexp.MustCompile("(.*)-([0-9]+)$")

func getParentNameAndOrdinal(pod *api.Pod) (string, int) {
	m := tmpPodRegex.FindStringSubmatch(pod.Name)
	if len(m) < 3 {
		return "", -1
	}
	i, err := strconv.ParseInt(m[2], 10, 32)
	if err != nil {
		return m[1], -1
	}
	return m[1], int(i)
}

func getOrdinal(pod *api.Pod) int { _, o := getParentNameAndOrdinal(pod); return o }

func getStartOrdinal(set *api.StatefulSet) int {
	if set.Spec.Ordinals != nil {
		return int(set.Spec.Ordinals.Start)
	}
	return 0
}

func getEndOrdinal(set *api.StatefulSet) int {
	r := 1
	if set.Spec.Replicas != nil {
		r = int(*set.Spec.Replicas)
	}
	return getStartOrdinal(set) + r - 1
}

func podInOrdinalRange(pod *api.Pod, set *api.StatefulSet) bool {
	o := getOrdinal(pod)
	return o >= getStartOrdinal(set) && o <= getEndOrdinal(set)
}

func getPodName(set *api.StatefulSet, ordinal int) string { return set.Name + "-" + strconv.Itoa(ordinal) }

func identityMatches(set *api.StatefulSet, pod *api.Pod) bool {
	parent, ordinal := getParentNameAndOrdinal(pod)
	return ordinal >= 0 && set.Name == parent && pod.Name == getPodName(set, ordinal) &&
		pod.Namespace == set.Namespace && pod.Labels["statefulset.kubernetes.io/pod-name"] == pod.Name
}

func storageMatches(*api.StatefulSet, *api.Pod) bool { return true }

func allowsBurst(set *api.StatefulSet) bool { return set.Spec.PodManagementPolicy == api.ParallelPodManagement }

func getPodRevision(pod *api.Pod) string { return pod.Labels["controller-revision-hash"] }

func isRunningAndReady(pod *api.Pod) bool { return pod.Status.Phase == api.PodRunning && api.IsPodReady(pod) }

func isRunningAndAvailable(pod *api.Pod, minReadySeconds int32, now time.Time) bool {
	return api.IsPodAvailable(pod, minReadySeconds, now)
}

func isCreated(pod *api.Pod) bool { return pod.Status.Phase != "" }

func isPending(pod *api.Pod) bool { return pod.Status.Phase == api.PodPending }

func isTerminalPhase(pod *api.Pod) bool {
	return pod.Status.Phase == api.PodFailed || pod.Status.Phase == api.PodSucceeded
}

func isTerminating(pod *api.Pod) bool { return pod.DeletionTimestamp != nil }

func isUnavailable(pod *api.Pod, minReadySeconds int32, now time.Time) bool {
	return !api.IsPodAvailable(pod, minReadySeconds, now) || isTerminating(pod)
}

func newVersionedStatefulSetPod(currentSet, updateSet *api.StatefulSet, currentRevision, updateRevision string, ordinal int) (*api.Pod, error) {
	set, rev := updateSet, updateRevision
	ru := currentSet.Spec.UpdateStrategy.RollingUpdate
	if currentSet.Spec.UpdateStrategy.Type == api.RollingUpdateStatefulSetStrategyType && ru == nil &&
		ordinal < getStartOrdinal(currentSet)+int(currentSet.Status.CurrentReplicas) ||
		ru != nil && ru.Partition != nil && ordinal < getStartOrdinal(currentSet)+int(*ru.Partition) {
		set, rev = currentSet, currentRevision
	}
	labels := maps.Clone(set.Spec.Template.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	name := getPodName(set, ordinal)
	labels["statefulset.kubernetes.io/pod-name"] = name
	labels["controller-revision-hash"] = rev
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: set.Namespace, Labels: labels}}, nil
}
