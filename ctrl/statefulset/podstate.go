package statefulset

import (
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// The states of a pod the StatefulSet controller tells apart
// (Kubernetes' stateful_set_utils.go). A pod the controller has only
// made in memory has no phase: the apiserver sets Pending on creation.

// isRunningAndReady reports whether the pod is Running with its Ready
// condition True.
func isRunningAndReady(pod *api.Pod) bool {
	return pod.Status.Phase == api.PodRunning && api.IsPodReady(pod)
}

// isRunningAndAvailable reports whether the pod has been Ready for
// minReadySeconds at now, by its Ready condition's lastTransitionTime
// (Kubernetes' podutil.IsPodAvailable; despite the name, the phase is
// not looked at).
func isRunningAndAvailable(pod *api.Pod, minReadySeconds int32, now time.Time) bool {
	return api.IsPodAvailable(pod, minReadySeconds, now)
}

// isCreated reports whether the apiserver holds the pod: it has a phase.
func isCreated(pod *api.Pod) bool { return pod.Status.Phase != "" }

// isPending reports whether the pod's phase is Pending.
func isPending(pod *api.Pod) bool { return pod.Status.Phase == api.PodPending }

// isTerminalPhase reports whether the pod has finished: Failed or
// Succeeded. The controller deletes such a pod and makes it again.
func isTerminalPhase(pod *api.Pod) bool {
	return pod.Status.Phase == api.PodFailed || pod.Status.Phase == api.PodSucceeded
}

// isTerminating reports whether the pod is being deleted.
func isTerminating(pod *api.Pod) bool { return pod.DeletionTimestamp != nil }

// isUnavailable reports whether the pod counts against maxUnavailable:
// not available (minReadySeconds) or being deleted.
func isUnavailable(pod *api.Pod, minReadySeconds int32, now time.Time) bool {
	return !api.IsPodAvailable(pod, minReadySeconds, now) || isTerminating(pod)
}
