package replicaset

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
)

// BurstReplicas bounds how many pods one sync creates or deletes
// (Kubernetes' BurstReplicas): a ReplicaSet scaled by 10000 gets there in
// steps of 500, each step waiting for the informer to see the last.
const BurstReplicas = 500

// SlowStartInitialBatchSize is the first batch of creations; each batch
// that succeeds doubles the next (Kubernetes' SlowStartInitialBatchSize).
const SlowStartInitialBatchSize = 1

// manageReplicas creates or deletes pods so that active (the claimed
// active pods of rs) reaches rs's desired count, at most burstReplicas
// at a time (Kubernetes' manageReplicas). It sets the expectations before
// writing and lowers them for writes that failed or never happened, so
// that the next sync waits for exactly the writes that did happen. It
// returns the first error; that error's text becomes the ReplicaFailure
// condition's message.
func (c *Controller) manageReplicas(ctx context.Context, key string, active []*api.Pod, rs *api.ReplicaSet) error {
	diff := len(active) - int(desiredReplicas(rs))
	switch {
	case diff < 0:
		return c.createPods(ctx, key, rs, min(-diff, c.burstReplicas))
	case diff > 0:
		return c.deletePods(ctx, key, rs, active, min(diff, c.burstReplicas))
	}
	return nil
}

// createPods creates n pods for rs in slow-start batches.
func (c *Controller) createPods(ctx context.Context, key string, rs *api.ReplicaSet, n int) error {
	c.expectations.ExpectCreations(key, n)
	c.log.Debug().Str("replicaset", key).Int32("need", desiredReplicas(rs)).Int("creating", n).Msg("too few replicas")
	body, err := newPodBody(rs)
	created := 0
	if err == nil {
		created, err = slowStartBatch(n, SlowStartInitialBatchSize, func() error { return c.createPod(ctx, rs, body) })
	}
	// Pods never attempted, or refused, will never be observed.
	if skipped := n - created; skipped > 0 {
		c.log.Debug().Str("replicaset", key).Int("skipped", skipped).Msg("slow-start failure; lowering expectations")
		c.expectations.LowerExpectations(key, skipped, 0)
	}
	return err
}

// createPod creates one pod from body and records the event. A namespace
// being deleted is not an error: nothing can be created there any more
// (and the ReplicaSet will soon be gone).
func (c *Controller) createPod(ctx context.Context, rs *api.ReplicaSet, body func() (*api.RawObject, error)) error {
	pod, err := body()
	if err != nil {
		return err
	}
	created, err := c.podClient.InNamespace(rs.Namespace).Create(ctx, pod)
	if err != nil {
		if rest.IsNamespaceTerminating(err) {
			return nil
		}
		c.recorder.Eventf(c.ref(rs), api.EventTypeWarning, ctrl.ReasonFailedCreate, "Error creating: %s", apiMessage(err))
		return &manageError{msg: apiMessage(err), err: fmt.Errorf("creating a pod for ReplicaSet %s: %w", rs.Key(), err)}
	}
	c.consistency.WroteAt(rs.Key(), rs.UID, podsResource, created.ResourceVersion)
	c.log.Debug().Str("replicaset", rs.Key()).Str("pod", created.Name).Msg("created pod")
	c.recorder.Eventf(c.ref(rs), api.EventTypeNormal, ctrl.ReasonSuccessfulCreate, "Created pod: %s", created.Name)
	return nil
}

// deletePods deletes the n pods of active that Kubernetes' ranking puts
// first, all at once, expecting exactly those deletions.
func (c *Controller) deletePods(ctx context.Context, key string, rs *api.ReplicaSet, active []*api.Pod, n int) error {
	c.log.Debug().Str("replicaset", key).Int32("need", desiredReplicas(rs)).Int("deleting", n).Msg("too many replicas")
	victims := podsToDelete(active, c.relatedPods(rs), n, c.clock.Now())
	podKeys := make([]string, len(victims))
	for i, p := range victims {
		podKeys[i] = p.Key()
	}
	c.expectations.ExpectDeletions(key, podKeys)
	errs := make([]error, len(victims))
	var wg sync.WaitGroup
	for i, p := range victims {
		wg.Go(func() {
			if err := c.deletePod(ctx, rs, p.Name); err != nil {
				// Never observed: a deletion that failed, or of a pod
				// that is already gone.
				c.expectations.DeletionObserved(key, podKeys[i])
				if !rest.IsNotFound(err) {
					errs[i] = err
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err // they are likely all alike: report the first
		}
	}
	return nil
}

// deletePod deletes one pod and records the event; NotFound is returned
// without an event.
func (c *Controller) deletePod(ctx context.Context, rs *api.ReplicaSet, name string) error {
	err := c.podClient.InNamespace(rs.Namespace).Delete(ctx, name, rest.DeleteOptions{})
	if err == nil {
		c.recorder.Eventf(c.ref(rs), api.EventTypeNormal, ctrl.ReasonSuccessfulDelete, "Deleted pod: %s", name)
		return nil
	}
	if rest.IsNotFound(err) {
		return err
	}
	c.recorder.Eventf(c.ref(rs), api.EventTypeWarning, ctrl.ReasonFailedDelete, "Error deleting: %s", apiMessage(err))
	return &manageError{msg: "unable to delete pods: " + apiMessage(err),
		err: fmt.Errorf("deleting pod %s/%s of ReplicaSet %s: %w", rs.Namespace, name, rs.Key(), err)}
}

// relatedPods returns the pods of every ReplicaSet that has the same
// controller as rs (its Deployment's other revisions, usually), each pod
// once (Kubernetes' getIndirectlyRelatedPods). A ReplicaSet without a
// controller has none, so pods are then not ranked by colocation.
func (c *Controller) relatedPods(rs *api.ReplicaSet) []*api.Pod {
	owner := rs.ControllerRef()
	if owner == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []*api.Pod
	for _, other := range c.rsLister.ReplicaSets(rs.Namespace).List(labels.Everything()) {
		if ref := other.ControllerRef(); ref == nil || ref.UID != owner.UID {
			continue
		}
		sel, err := labels.LabelSelectorAsSelector(other.Spec.Selector)
		if err != nil {
			continue // an invalid selector matches nothing
		}
		for _, p := range c.podLister.Pods(rs.Namespace).List(sel) {
			if !seen[p.UID] {
				seen[p.UID] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// slowStartBatch calls fn count times in batches of initial, 2×initial,
// 4×initial, … calls running concurrently within a batch; after a batch
// with a failure it stops and returns the successes so far and one of the
// batch's errors (Kubernetes' slowStartBatch). A quota or admission
// failure thus costs one request, not count.
func slowStartBatch(count, initial int, fn func() error) (int, error) {
	successes := 0
	for batch := min(count, initial); batch > 0; batch = min(2*batch, count-successes) {
		errs := make(chan error, batch)
		var wg sync.WaitGroup
		for range batch {
			wg.Go(func() {
				if err := fn(); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		successes += batch - len(errs)
		if len(errs) > 0 {
			return successes, <-errs
		}
	}
	return successes, nil
}

// manageError is the error of a failed pod write: its text is the
// message Kubernetes shows in the ReplicaFailure condition (the
// apiserver's own message), and it wraps the full error for logs and
// errors.Is.
type manageError struct {
	msg string
	err error
}

func (e *manageError) Error() string { return e.msg }
func (e *manageError) Unwrap() error { return e.err }

// apiMessage is the apiserver's message for err, the text Kubernetes'
// events carry; err's own text for any other error.
func apiMessage(err error) string {
	var se *rest.StatusError
	if errors.As(err, &se) && se.Status.Message != "" {
		return se.Status.Message
	}
	return err.Error()
}
