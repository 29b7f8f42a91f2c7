package tainteviction

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// What an eviction writes, as kube-controller-manager v1.37 writes it.
const (
	// EventReason is the reason of both events: "Marking for deletion
	// Pod <ns>/<name>" when an eviction runs, "Cancelling deletion of Pod
	// <ns>/<name>" when a timed one is cancelled.
	EventReason = "TaintManagerEviction"
	// ConditionReason and ConditionMessage are those of the
	// DisruptionTarget condition set before the deletion.
	ConditionReason  = "DeletionByTaintManager"
	ConditionMessage = "Taint manager: deleting due to NoExecute taint"
)

// podRef is the object of the controller's events: the pod by namespace
// and name, without uid, as upstream refers to it.
func podRef(ns, name string) api.ObjectReference {
	return api.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: ns, Name: name}
}

// syncEviction runs the pod's eviction when it is due (upstream's
// deletePodHandler, fired by its TimedWorker): the "Marking for deletion"
// event, then up to Retries attempts, RetryInterval apart, at adding the
// DisruptionTarget condition and deleting the pod. A success is counted
// in the metrics; a failure after the last attempt is a terminal error
// (logged and counted by the loop, not retried: upstream drops the work
// and waits for the next update). A key whose eviction was cancelled does
// nothing; one whose eviction is due later comes back then.
func (c *Controller) syncEviction(ctx context.Context, pod string) (ctrl.Result, error) {
	s, wait := c.evictions.take(pod, c.clock.Now())
	if wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	if s == nil {
		return ctrl.Result{}, nil
	}
	defer c.evictions.done(pod, s)
	ns, name, _ := strings.Cut(pod, "/")
	c.log.Info().Str("pod", pod).Msg("deleting pod")
	c.recorder.Eventf(podRef(ns, name), api.EventTypeNormal, EventReason, "Marking for deletion Pod %s", pod)
	var err error
	for attempt := range Retries {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return ctrl.Result{}, fmt.Errorf("deleting pod %s: %w (last attempt: %w)", pod, ctx.Err(), err)
			case <-c.clock.After(RetryInterval):
			}
		}
		if err = c.addConditionAndDeletePod(ctx, ns, name); err == nil {
			c.metrics.deleted(c.clock.Since(s.fireAt))
			return ctrl.Result{}, nil
		}
	}
	return ctrl.Result{}, ctrl.TerminalError(fmt.Errorf("deleting pod %s after %d attempts: %w", pod, Retries, err))
}

// addConditionAndDeletePod is upstream's function of that name: read the
// pod from the apiserver, add the DisruptionTarget condition (status
// True, ConditionReason, ConditionMessage, observedGeneration the pod's
// generation) by a strategic merge patch of its status with the uid as
// precondition unless the pod has it already, then delete the pod. Any
// error, NotFound included, is returned for the caller to retry.
func (c *Controller) addConditionAndDeletePod(ctx context.Context, ns, name string) error {
	pods := c.podClient.InNamespace(ns)
	pod, err := pods.Get(ctx, name)
	if err != nil {
		return fmt.Errorf("getting pod %s/%s: %w", ns, name, err)
	}
	cond, changed := disruptionTarget(pod, api.Time{Time: c.clock.Now()})
	if changed {
		patch, err := json.Marshal(map[string]any{
			"metadata": map[string]any{"uid": pod.UID},
			"status":   map[string]any{"conditions": []api.PodCondition{cond}},
		})
		if err != nil {
			return fmt.Errorf("patching pod %s/%s: %w", ns, name, err)
		}
		if _, err := pods.Patch(ctx, name, rest.StrategicMergePatch, patch, rest.PatchOptions{}, "status"); err != nil {
			return fmt.Errorf("patching status of pod %s/%s: %w", ns, name, err)
		}
	}
	if err := pods.Delete(ctx, name, rest.DeleteOptions{}); err != nil {
		return fmt.Errorf("deleting pod %s/%s: %w", ns, name, err)
	}
	return nil
}

// disruptionTarget returns the DisruptionTarget condition the pod gets and
// whether it changes the pod's status, by upstream's UpdatePodCondition:
// a new condition is dated now; an existing one keeps its
// lastTransitionTime when its status stays True, and counts as unchanged
// when status, reason, message, lastProbeTime and lastTransitionTime are
// the same (observedGeneration is not compared).
func disruptionTarget(pod *api.Pod, now api.Time) (api.PodCondition, bool) {
	cond := api.PodCondition{
		Type: api.DisruptionTarget, Status: api.ConditionTrue, ObservedGeneration: pod.Generation,
		Reason: ConditionReason, Message: ConditionMessage, LastTransitionTime: now,
	}
	for _, old := range pod.Status.Conditions {
		if old.Type != api.DisruptionTarget {
			continue
		}
		if old.Status == cond.Status {
			cond.LastTransitionTime = old.LastTransitionTime
		}
		same := old.Status == cond.Status && old.Reason == cond.Reason && old.Message == cond.Message &&
			old.LastProbeTime.Equal(cond.LastProbeTime.Time) && old.LastTransitionTime.Equal(cond.LastTransitionTime.Time)
		return cond, !same
	}
	return cond, true
}
