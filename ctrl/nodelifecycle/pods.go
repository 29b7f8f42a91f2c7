package nodelifecycle

import (
	"context"
	"errors"
	"fmt"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// markReadyFalse is MarkPodsNotReady's edit of one pod, a pure function:
// the pod's Ready condition becomes False, its lastTransitionTime now when
// the status changes (UpdatePodCondition). It reports false, and leaves
// the pod alone, when the pod has no Ready condition or it is False
// already.
func markReadyFalse(pod *api.Pod, now api.Time) bool {
	for i := range pod.Status.Conditions {
		c := &pod.Status.Conditions[i]
		if c.Type != api.PodReady {
			continue
		}
		if c.Status == api.ConditionFalse {
			return false
		}
		c.Status = api.ConditionFalse
		c.LastTransitionTime = now
		return true
	}
	return false
}

// markPodsNotReady is MarkPodsNotReady: each pod of pods bound to node
// whose Ready condition is not False gets Ready=False through its status
// subresource, and a Warning NodeNotReady "Node is not ready" event. A
// pod gone meanwhile is skipped; other failures are joined into the
// returned error (the caller retries the node next pass).
func (c *Controller) markPodsNotReady(ctx context.Context, pods []*api.Pod, node string) error {
	var errs []error
	now := api.NewTime(c.clock.Now())
	for _, p := range pods {
		if p.Spec.NodeName != node {
			continue
		}
		pod, err := api.DeepCopy(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !markReadyFalse(pod, now) {
			continue
		}
		c.log.Debug().Str("pod", pod.Namespace+"/"+pod.Name).Msg("updating ready status of pod to false")
		if _, err := c.pods.InNamespace(pod.Namespace).UpdateStatus(ctx, pod); err != nil {
			if rest.IsNotFound(err) {
				continue
			}
			c.log.Info().Err(err).Str("pod", pod.Namespace+"/"+pod.Name).Msg("failed to update status for pod")
			errs = append(errs, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err))
		}
		c.recorder.Eventf(ctrl.Ref(rest.Pods, p), api.EventTypeWarning, "NodeNotReady", "Node is not ready")
	}
	return errors.Join(errs...)
}

func nodeRef(n *api.Node) api.ObjectReference {
	return api.ObjectReference{APIVersion: "v1", Kind: "Node", Name: n.Name, UID: n.UID}
}
