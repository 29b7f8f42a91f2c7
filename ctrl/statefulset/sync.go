package statefulset

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/controllerref"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/store"
)

// Sync reconciles the StatefulSet named key, "namespace/name" (upstream's
// sync and syncStatefulSet):
//
//  0. a cache (pods, claims or StatefulSets) older than the controller's
//     own last write for this set: skip, and sync again after the rate
//     limiter's backoff (the stale-controller check, KEP-5647);
//  1. gone from the cache: forget its writes and its metrics, done;
//  2. an invalid selector: logged, not retried (the set must change);
//  3. adopt the orphaned ControllerRevisions its selector matches, after
//     an uncached read of the set shows it still there and not being
//     deleted;
//  4. claim the pods of its namespace that it controls or that are
//     orphans: adopt matching orphans named <set>-<n>, release owned pods
//     that no longer match (the same uncached read first);
//  5. UpdateStatefulSet: revisions, pods and claims, status;
//  6. with minReadySeconds, while some Ready pods are not yet available,
//     ask to be synced again when the first of them becomes available
//     (at the latest after minReadySeconds).
func (c *Controller) Sync(ctx context.Context, key string) (ctrl.Result, error) {
	ns, name, ok := strings.Cut(key, "/")
	if !ok {
		c.log.Error().Str("key", key).Msg("StatefulSet key is not namespace/name; dropping it")
		return ctrl.Result{}, nil
	}
	if err := c.consistency.EnsureReady(key); err != nil {
		// Not a failure: the cache will catch up, and the write's own
		// event usually syncs the key again before the backoff ends.
		c.log.Debug().Err(err).Str("statefulset", key).Msg("cache older than this controller's last write; requeueing")
		return ctrl.Result{Requeue: true}, nil
	}
	set, err := c.setLister.StatefulSets(ns).Get(name)
	if rest.IsNotFound(err) {
		c.consistency.Clear(key, "")
		c.metrics.Forget(ns, name)
		c.log.Info().Str("statefulset", key).Msg("StatefulSet has been deleted")
		return ctrl.Result{}, nil
	}
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("reading StatefulSet %s from the cache: %w", key, err)
	}
	selector, err := podSelector(set)
	if err != nil {
		// Retrying cannot help until the object changes, which enqueues
		// it again.
		c.log.Error().Err(err).Str("statefulset", key).Msg("error converting StatefulSet selector")
		return ctrl.Result{}, nil
	}
	if err := c.adoptOrphanRevisions(ctx, set); err != nil {
		return ctrl.Result{}, err
	}
	pods, err := c.claimPods(ctx, set, selector)
	if err != nil {
		return ctrl.Result{}, err
	}
	now := c.clock.Now()
	status, err := c.control.UpdateStatefulSet(ctx, set, pods, now)
	if err != nil {
		return ctrl.Result{}, err
	}
	if d, ok := nextAvailabilityCheck(set, status, pods, now, c.clock); ok {
		return ctrl.Result{RequeueAfter: d}, nil
	}
	return ctrl.Result{}, nil
}

// ErrInvalidSelector: the StatefulSet's selector cannot be compiled, or
// is missing.
var ErrInvalidSelector = errors.New("invalid StatefulSet selector")

// podSelector compiles set's selector. A missing selector (the apiserver
// never stores one) is refused rather than read as "nothing", which
// would release every pod and create them again.
func podSelector(set *api.StatefulSet) (labels.Selector, error) {
	if set.Spec.Selector == nil {
		return labels.Selector{}, fmt.Errorf("%w: %s has none", ErrInvalidSelector, set.Key())
	}
	sel, err := labels.LabelSelectorAsSelector(set.Spec.Selector)
	if err != nil {
		return labels.Selector{}, fmt.Errorf("%w: %s: %w", ErrInvalidSelector, set.Key(), err)
	}
	return sel, nil
}

// canAdopt returns the check that runs before the first adoption of a
// sync: set read fresh from the apiserver (uncached, a quorum read) must
// still exist under its UID and not be being deleted
// (upstream's canAdoptFunc; kubernetes#42639).
func (c *Controller) canAdopt(set *api.StatefulSet) func(ctx context.Context) error {
	return controllerref.RecheckDeletionTimestamp(set.UID, func(ctx context.Context) (*api.ObjectMeta, error) {
		fresh, err := c.setClient.InNamespace(set.Namespace).Get(ctx, set.Name)
		if err != nil {
			return nil, err
		}
		return &fresh.ObjectMeta, nil
	})
}

// adoptOrphanRevisions adopts the ControllerRevisions that the set's
// selector matches and that no controller owns, once canAdopt allows it.
func (c *Controller) adoptOrphanRevisions(ctx context.Context, set *api.StatefulSet) error {
	revisions, err := c.control.ListRevisions(set)
	if err != nil {
		return fmt.Errorf("listing the ControllerRevisions of %s: %w", set.Key(), err)
	}
	var orphans []*api.ControllerRevision
	for _, r := range revisions {
		if r.ControllerRef() == nil {
			orphans = append(orphans, r)
		}
	}
	if len(orphans) == 0 {
		return nil
	}
	if err := c.canAdopt(set)(ctx); err != nil {
		return fmt.Errorf("can't adopt ControllerRevisions: %w", err)
	}
	return c.control.AdoptOrphanRevisions(ctx, set, orphans)
}

// claimPods returns the pods the set controls after claiming (upstream's
// getPodsForStatefulSet): of the namespace's pods, those the set controls
// and the orphans; an orphan is adopted when the selector matches and its
// name is <set>-<n> (isMemberOf), an owned pod that no longer matches is
// released. Pods of other controllers are not looked at.
func (c *Controller) claimPods(ctx context.Context, set *api.StatefulSet, sel labels.Selector) ([]*api.Pod, error) {
	var candidates []*api.Pod
	for _, p := range c.podLister.Pods(set.Namespace).List(labels.Everything()) {
		if ref := p.ControllerRef(); ref == nil || (ref.Kind == rest.StatefulSets.Kind && ref.UID == set.UID) {
			candidates = append(candidates, p)
		}
	}
	m := controllerref.NewManager[*api.Pod](controllerref.OwnerOf(set, "apps/v1", rest.StatefulSets.Kind), sel,
		c.podPatcher(set.Namespace), c.canAdopt(set))
	return m.Claim(ctx, candidates, func(p *api.Pod) bool { return isMemberOf(set, p) })
}

// podPatcher patches pods of namespace ns (adoption, release) and records
// each patched pod's resourceVersion for the set that controls it
// afterwards, if any (upstream's RealPodControl.PatchPod with its OnWrite
// callback): an adopted pod is a write of its new owner's; a released one
// is nobody's.
func (c *Controller) podPatcher(ns string) controllerref.Patcher {
	pods := c.podClient.InNamespace(ns)
	return func(ctx context.Context, name string, patch []byte) error {
		pod, err := pods.Patch(ctx, name, rest.StrategicMergePatch, patch, rest.PatchOptions{})
		if err != nil {
			return err
		}
		if ref := pod.ControllerRef(); ref != nil {
			c.consistency.WroteAt(store.MetaNamespaceKey(ns, ref.Name), ref.UID, podsResource, pod.ResourceVersion)
		}
		return nil
	}
}

// nextAvailabilityCheck is upstream's rule for syncing again on its own
// (the end of syncStatefulSet): with minReadySeconds, while the status
// written counts Ready pods that are not available yet, sync again
// minReadySeconds later, or sooner, when the first Ready pod reaches
// minReadySeconds (FindMinNextPodAvailabilityCheck: the earliest pod is
// chosen at now, the status' time, and its delay measured at the clock's
// present). A pod already past it asks for an immediate sync, the
// shortest delay the loop takes.
func nextAvailabilityCheck(set *api.StatefulSet, status *api.StatefulSetStatus, pods []*api.Pod, now time.Time,
	clk clock.Clock) (time.Duration, bool) {
	if set.Spec.MinReadySeconds <= 0 || status == nil || status.ReadyReplicas == status.AvailableReplicas {
		return 0, false
	}
	minReady := time.Duration(set.Spec.MinReadySeconds) * time.Second
	var first time.Time // when the earliest Ready pod becomes available
	for _, p := range pods {
		c := api.GetPodCondition(&p.Status, api.PodReady)
		if c == nil || c.Status != api.ConditionTrue || c.LastTransitionTime.IsZero() {
			continue
		}
		at := c.LastTransitionTime.Add(minReady)
		if at.After(now) && (first.IsZero() || at.Before(first)) {
			first = at
		}
	}
	if first.IsZero() {
		return minReady, true
	}
	return max(first.Sub(clk.Now()), time.Nanosecond), true
}
