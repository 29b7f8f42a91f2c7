package podgc

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// The DisruptionTarget condition the orphan rule sets (gcOrphaned's
// condition, reason and message as kube-controller-manager writes them).
const (
	// ReasonDeletionByPodGC is the condition's reason.
	ReasonDeletionByPodGC = "DeletionByPodGC"
	// MessageNodeGone is the condition's message.
	MessageNodeGone = "PodGC: node no longer exists"
)

// nodeGoneCondition is the DisruptionTarget condition of a pod whose node
// no longer exists; its observedGeneration is the pod's generation
// (CalculatePodConditionObservedGeneration with PodObservedGenerationTracking,
// GA and locked on in 1.37).
func nodeGoneCondition(p *api.Pod) *api.PodCondition {
	return &api.PodCondition{
		Type: api.DisruptionTarget, ObservedGeneration: p.Generation, Status: api.ConditionTrue,
		Reason: ReasonDeletionByPodGC, Message: MessageNodeGone,
	}
}

// statusPatch is the strategic merge patch that moves a pod that has not
// finished to phase Failed, with cond (if any) merged into its conditions
// by type, before the controller deletes it
// (markFailedAndDeletePodWithCondition, through pkg/util/pod's
// PatchPodStatus): without it an orphaned pod would stay Running forever
// in the eyes of whoever watched it go, since no kubelet is left to
// finish it. metadata.uid makes the patch a precondition: a pod recreated
// under the same name is not touched. status.observedGeneration becomes
// the pod's generation (CalculatePodStatusObservedGeneration). The
// condition's lastTransitionTime is now, unless the pod already has a
// DisruptionTarget condition with the same status, whose time stays
// (podutil.UpdatePodCondition). nil for a pod that is Succeeded or Failed
// already: it is deleted as it is.
func statusPatch(p *api.Pod, cond *api.PodCondition, now time.Time) ([]byte, error) {
	if isTerminalPhase(p) {
		return nil, nil
	}
	status := map[string]any{"phase": api.PodFailed}
	if p.Status.ObservedGeneration != p.Generation {
		status["observedGeneration"] = p.Generation
	}
	if cond != nil {
		c := *cond
		c.LastTransitionTime = api.NewTime(now)
		if old := api.GetPodCondition(&p.Status, c.Type); old != nil && old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		status["conditions"] = []api.PodCondition{c}
	}
	b, err := json.Marshal(map[string]any{"metadata": map[string]any{"uid": p.UID}, "status": status})
	if err != nil {
		return nil, fmt.Errorf("podgc: status patch of %s/%s: %w", p.Namespace, p.Name, err)
	}
	return b, nil
}

// forceDelete marks p Failed (with cond) when it has not finished, then
// deletes it with a grace period of 0: the apiserver removes it at once,
// without waiting for a kubelet (markFailedAndDeletePodWithCondition). A
// failed patch skips the delete; the pod is looked at again next pass.
func (c *Controller) forceDelete(ctx context.Context, p *api.Pod, cond *api.PodCondition) error {
	c.log.Info().Str("pod", p.Namespace+"/"+p.Name).Msg("PodGC is force deleting Pod")
	patch, err := statusPatch(p, cond, c.clock.Now())
	if err != nil {
		return err
	}
	pods := c.podClient.InNamespace(p.Namespace)
	if patch != nil {
		if _, err := pods.Patch(ctx, p.Name, rest.StrategicMergePatch, patch, rest.PatchOptions{}, "status"); err != nil {
			return fmt.Errorf("failed to patch status %s for pod %s/%s: %w", patch, p.Namespace, p.Name, err)
		}
	}
	zero := int64(0)
	if err := pods.Delete(ctx, p.Name, rest.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		return fmt.Errorf("deleting pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	return nil
}
