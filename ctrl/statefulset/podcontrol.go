package statefulset

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// statefulPodControl creates, updates and deletes a StatefulSet's pods
// and their claims (Kubernetes' StatefulPodControl with its
// realStatefulPodControlObjectManager): writes go through the API, reads
// of pods and claims through the informers' listers, and every write is
// reported as an event on the set. Pods and claims are created from the
// JSON their templates were read as (newVersionedStatefulSetPod,
// getPersistentVolumeClaims), so fields kcm does not model reach them;
// updates merge onto the JSON the object was read as (rest.Update).
type statefulPodControl struct {
	pods, claims *rest.Resources[*api.RawObject] // creates and deletes
	podUpdates   *rest.Resources[*api.Pod]
	claimUpdates *rest.Resources[*api.PersistentVolumeClaim]
	podLister    informer.PodLister
	claimLister  informer.PersistentVolumeClaimLister
	recorder     ctrl.EventRecorder
	log          zerolog.Logger
	// consistency, when set, records the resourceVersion of each pod and
	// claim written for a set (kube-controller-manager's ConsistencyStore
	// WroteAt). nil records nothing.
	consistency *ctrl.Consistency
	// wait sleeps d between conflicting pod updates; tests replace it.
	wait func(ctx context.Context, d time.Duration) error
}

var _ podControl = (*statefulPodControl)(nil)

// newPodControl returns the pod control of the StatefulSet controller.
func newPodControl(client *rest.Client, pods informer.PodLister, claims informer.PersistentVolumeClaimLister,
	recorder ctrl.EventRecorder, log zerolog.Logger) *statefulPodControl {
	if recorder == nil {
		recorder = ctrl.NopRecorder{}
	}
	return &statefulPodControl{
		// Creates and deletes: of an answer only the resourceVersion is
		// read (decode.Wire: protobuf where the answer is).
		pods:         rest.NewResources(client, rest.Pods, decode.Wire()),
		claims:       rest.NewResources(client, rest.PersistentVolumeClaims, decode.Wire()),
		podUpdates:   rest.NewResources(client, rest.Pods, decode.Typed[api.Pod]()),
		claimUpdates: rest.NewResources(client, rest.PersistentVolumeClaims, decode.Typed[api.PersistentVolumeClaim]()),
		podLister:    pods,
		claimLister:  claims,
		recorder:     recorder,
		log:          log,
		wait:         sleepCtx,
	}
}

// withConsistency makes the control record its writes in cs.
func (c *statefulPodControl) withConsistency(cs *ctrl.Consistency) *statefulPodControl {
	c.consistency = cs
	return c
}

// wrote records a write made for set.
func (c *statefulPodControl) wrote(set *api.StatefulSet, res rest.Resource, rv string) {
	c.consistency.WroteAt(set.Key(), set.UID, ctrl.GroupResourceOf(res), rv)
}

// CreateStatefulPod creates pod's missing claims, then pod, then brings
// the claims' ownerReferences in line with the retention policy
// (Kubernetes' CreateStatefulPod). A pod that already exists is returned
// as the AlreadyExists error with no event, as upstream does (the sync
// fails and is retried). Otherwise one event tells how the creation went;
// an error setting the claims' owners is reported as a failed update.
func (c *statefulPodControl) CreateStatefulPod(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error {
	if err := c.createPersistentVolumeClaims(ctx, set, pod); err != nil {
		c.recordPodEvent(verbCreate, set, pod, err)
		return err
	}
	err := c.createPod(ctx, set, pod)
	if rest.IsAlreadyExists(err) {
		return err
	}
	if err := c.UpdatePodClaimForRetentionPolicy(ctx, set, pod); err != nil {
		c.recordPodEvent(verbUpdate, set, pod, err)
		return err
	}
	c.recordPodEvent(verbCreate, set, pod, err)
	return err
}

// createPod sends pod's JSON: its Original() with any change made to the
// typed pod merged in (rest.EncodeForUpdate), or the typed pod for one
// built in code.
func (c *statefulPodControl) createPod(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error {
	body, err := rest.EncodeForUpdate(decode.Typed[api.Pod](), pod)
	if err != nil {
		return fmt.Errorf("encoding pod %s: %w", pod.Name, err)
	}
	obj, err := api.DecodeRawObject(body)
	if err != nil {
		return fmt.Errorf("encoding pod %s: %w", pod.Name, err)
	}
	created, err := c.pods.InNamespace(pod.Namespace).Create(ctx, obj)
	if err != nil {
		return serverError(err)
	}
	c.wrote(set, rest.Pods, created.ResourceVersion)
	return nil
}

// The retry of a conflicting pod update: client-go's retry.DefaultBackoff
// (4 tries, 10 ms × 5ⁿ apart, 10 % jitter).
const (
	updateTries   = 4
	updateBackoff = 10 * time.Millisecond
	updateFactor  = 5
	updateJitter  = 0.1
)

// UpdateStatefulPod makes pod conform to set (Kubernetes'
// UpdateStatefulPod): its identity (name, namespace, pod-name and
// pod-index labels), its storage (claim volumes, creating missing claims)
// and its claims' ownerReferences for the retention policy. If anything
// changed, the pod is written; on a Conflict it is read again from the
// lister and the whole check retried, up to 4 times. An event tells how
// the write went (none when nothing needed writing). pod is the caller's
// copy and is changed.
func (c *statefulPodControl) UpdateStatefulPod(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error {
	attempted := false
	delay := updateBackoff
	var err error
	for try := 1; ; try++ {
		var conflict bool
		pod, conflict, err = c.updateOnce(ctx, set, pod, &attempted)
		if !conflict || try == updateTries {
			break
		}
		jittered := delay + time.Duration(rand.Float64()*updateJitter*float64(delay))
		if werr := c.wait(ctx, jittered); werr != nil {
			err = werr
			break
		}
		delay *= updateFactor
	}
	if attempted {
		c.recordPodEvent(verbUpdate, set, pod, err)
	}
	return err
}

// updateOnce is one try of UpdateStatefulPod. It returns the pod to try
// next with (the lister's, after a failed write), and whether the error
// was a Conflict.
func (c *statefulPodControl) updateOnce(ctx context.Context, set *api.StatefulSet, pod *api.Pod, attempted *bool) (*api.Pod, bool, error) {
	consistent := true
	if !identityMatches(set, pod) {
		updateIdentity(set, pod)
		consistent = false
	}
	if !storageMatches(set, pod) {
		updateStorage(set, pod)
		consistent = false
		if err := c.createPersistentVolumeClaims(ctx, set, pod); err != nil {
			c.recordPodEvent(verbUpdate, set, pod, err)
			return pod, rest.IsConflict(err), err
		}
	}
	match, err := c.ClaimsMatchRetentionPolicy(ctx, set, pod)
	if err != nil {
		c.recordPodEvent(verbUpdate, set, pod, err)
		return pod, rest.IsConflict(err), err
	}
	if !match {
		if err := c.UpdatePodClaimForRetentionPolicy(ctx, set, pod); err != nil {
			c.recordPodEvent(verbUpdate, set, pod, err)
			return pod, rest.IsConflict(err), err
		}
		consistent = false
	}
	if consistent {
		return pod, false, nil
	}
	*attempted = true
	updated, err := c.podUpdates.InNamespace(pod.Namespace).Update(ctx, pod)
	if err == nil {
		c.wrote(set, rest.Pods, updated.ResourceVersion)
		return pod, false, nil
	}
	err = serverError(err)
	if cached, gerr := c.podLister.Pods(set.Namespace).Get(pod.Name); gerr == nil {
		if cp, cerr := api.DeepCopy(cached); cerr == nil {
			pod = cp
		}
	} else {
		c.log.Error().Err(gerr).Str("pod", set.Namespace+"/"+pod.Name).Msg("error getting updated Pod from lister")
	}
	return pod, rest.IsConflict(err), err
}

// DeleteStatefulPod deletes pod. A pod already gone is deleted as far as
// the set is concerned: the event says so and no error is returned
// (Kubernetes' DeleteStatefulPod).
func (c *statefulPodControl) DeleteStatefulPod(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error {
	if err := c.pods.InNamespace(pod.Namespace).Delete(ctx, pod.Name, rest.DeleteOptions{}); err != nil && !rest.IsNotFound(err) {
		err = serverError(err)
		c.recordPodEvent(verbDelete, set, pod, err)
		return err
	}
	c.recordPodEvent(verbDelete, set, pod, nil)
	return nil
}

// ClaimsMatchRetentionPolicy reports whether every existing claim of pod
// has the ownerReferences set's retention policy wants (claims not in the
// lister yet are skipped: a later sync sees them).
func (c *statefulPodControl) ClaimsMatchRetentionPolicy(ctx context.Context, set *api.StatefulSet, pod *api.Pod) (bool, error) {
	ordinal := getOrdinal(pod)
	for i := range set.Spec.VolumeClaimTemplates {
		name := getPersistentVolumeClaimName(set, &set.Spec.VolumeClaimTemplates[i], ordinal)
		claim, err := c.claimLister.PersistentVolumeClaims(set.Namespace).Get(name)
		switch {
		case rest.IsNotFound(err):
			c.log.Debug().Str("claim", set.Namespace+"/"+name).Msg("expected claim missing, continuing to pick up in next iteration")
		case err != nil:
			return false, fmt.Errorf("Could not retrieve claim %s for %s when checking PVC deletion policy: %w", name, pod.Name, err) //nolint:staticcheck // upstream's text
		default:
			if !isClaimOwnerUpToDate(c.log, claim, set, pod) {
				return false, nil
			}
		}
	}
	return true, nil
}

// UpdatePodClaimForRetentionPolicy writes the ownerReferences set's
// retention policy wants on each existing claim of pod that lacks them,
// warning (ConflictingController) about a claim another controller owns.
func (c *statefulPodControl) UpdatePodClaimForRetentionPolicy(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error {
	ordinal := getOrdinal(pod)
	for i := range set.Spec.VolumeClaimTemplates {
		name := getPersistentVolumeClaimName(set, &set.Spec.VolumeClaimTemplates[i], ordinal)
		claim, err := c.claimLister.PersistentVolumeClaims(set.Namespace).Get(name)
		switch {
		case rest.IsNotFound(err):
			c.log.Debug().Str("claim", set.Namespace+"/"+name).Msg("expected claim missing, continuing to pick up in next iteration")
			continue
		case err != nil:
			return fmt.Errorf("Could not retrieve claim %s not found for %s when checking PVC deletion policy: %w", name, pod.Name, err) //nolint:staticcheck // upstream's text
		}
		if hasUnexpectedController(claim, set, pod) {
			c.recorder.Eventf(setRef(set), api.EventTypeWarning, ReasonConflictingController,
				"PersistentVolumeClaim %s has a conflicting OwnerReference that acts as a manging controller, the retention policy is ignored for this claim", name)
		}
		if isClaimOwnerUpToDate(c.log, claim, set, pod) {
			continue
		}
		cp, err := api.DeepCopy(claim)
		if err != nil {
			return fmt.Errorf("could not update claim %s for delete policy ownerRefs: %w", name, err)
		}
		updateClaimOwnerRefForSetAndPod(c.log, cp, set, pod)
		updated, err := c.claimUpdates.InNamespace(set.Namespace).Update(ctx, cp)
		if err != nil {
			return fmt.Errorf("could not update claim %s for delete policy ownerRefs: %w", name, serverError(err))
		}
		c.wrote(set, rest.PersistentVolumeClaims, updated.ResourceVersion)
	}
	return nil
}

// PodClaimIsStale reports whether a claim of pod refers to a pod of its
// name with another UID — a claim the garbage collector is about to
// delete with the pod it was kept for — which must block creating pod.
// Under whenScaled Retain claims are meant to be reused and never stale.
func (c *statefulPodControl) PodClaimIsStale(set *api.StatefulSet, pod *api.Pod) (bool, error) {
	if getPersistentVolumeClaimRetentionPolicy(set).WhenScaled == api.RetainPersistentVolumeClaimRetentionPolicyType {
		return false, nil
	}
	claims, err := getPersistentVolumeClaims(set, pod)
	if err != nil {
		return false, err
	}
	for _, want := range claims {
		claim, err := c.claimLister.PersistentVolumeClaims(want.Namespace).Get(want.Name)
		switch {
		case rest.IsNotFound(err):
			continue
		case err != nil:
			return false, err
		}
		if hasStaleOwnerRef(claim, &pod.ObjectMeta, podGVK) {
			return true, nil
		}
	}
	return false, nil
}

// CreateMissingPersistentVolumeClaims creates pod's missing claims and
// sets their owners for the retention policy (Kubernetes'
// createMissingPersistentVolumeClaims, used for a Pending pod whose claim
// was deleted).
func (c *statefulPodControl) CreateMissingPersistentVolumeClaims(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error {
	if err := c.createPersistentVolumeClaims(ctx, set, pod); err != nil {
		return err
	}
	if err := c.UpdatePodClaimForRetentionPolicy(ctx, set, pod); err != nil {
		c.recordPodEvent(verbUpdate, set, pod, err)
		return err
	}
	return nil
}

// createPersistentVolumeClaims creates each claim of pod the lister does
// not have (Kubernetes' createPersistentVolumeClaims). Each creation is
// an event, except one the apiserver refuses as AlreadyExists (the lister
// was behind); a claim being deleted is an error, since the pod would
// lose it. It returns the errors together, nil when all claims exist.
func (c *statefulPodControl) createPersistentVolumeClaims(ctx context.Context, set *api.StatefulSet, pod *api.Pod) error {
	claims, err := getPersistentVolumeClaims(set, pod)
	if err != nil {
		return err
	}
	var errs []error
	for _, want := range claims {
		have, err := c.claimLister.PersistentVolumeClaims(want.Namespace).Get(want.Name)
		switch {
		case rest.IsNotFound(err):
			err := c.createClaim(ctx, set, want)
			if err != nil {
				errs = append(errs, fmt.Errorf("failed to create PVC %s: %w", want.Name, err))
			}
			if err == nil || !rest.IsAlreadyExists(err) {
				c.recordClaimEvent(verbCreate, set, pod, want, err)
			}
		case err != nil:
			errs = append(errs, fmt.Errorf("failed to retrieve PVC %s: %w", want.Name, err))
			c.recordClaimEvent(verbCreate, set, pod, want, err)
		case have.DeletionTimestamp != nil:
			errs = append(errs, fmt.Errorf("pvc %s is being deleted", want.Name))
		}
	}
	return newAggregate(errs)
}

// createClaim creates claim from its JSON.
func (c *statefulPodControl) createClaim(ctx context.Context, set *api.StatefulSet, claim *api.PersistentVolumeClaim) error {
	body, err := rest.EncodeForUpdate(decode.Typed[api.PersistentVolumeClaim](), claim)
	if err != nil {
		return fmt.Errorf("encoding claim %s: %w", claim.Name, err)
	}
	obj, err := api.DecodeRawObject(body)
	if err != nil {
		return fmt.Errorf("encoding claim %s: %w", claim.Name, err)
	}
	created, err := c.claims.InNamespace(claim.Namespace).Create(ctx, obj)
	if err != nil {
		return serverError(err)
	}
	c.wrote(set, rest.PersistentVolumeClaims, created.ResourceVersion)
	return nil
}

// sleepCtx waits d, or until ctx ends (its error).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
