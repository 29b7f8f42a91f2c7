package resourcequota

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/resourcequota/quota"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/resource"
	"github.com/kcmlab/kcm/kube/rest"
)

// ErrBadKey: a queue key is not "namespace/name".
var ErrBadKey = errors.New("resourcequota: malformed quota key")

// syncLocked is Sync under the worker lock's read side: it waits while a
// discovery resync changes the monitors.
func (c *Controller) syncLocked(ctx context.Context, key string) (ctrl.Result, error) {
	c.workerLock.RLock()
	defer c.workerLock.RUnlock()
	return c.Sync(ctx, key)
}

// Sync recalculates the quota named key, "namespace/name" (Kubernetes'
// syncResourceQuotaFromKey): nothing when the quota is gone from the
// cache.
func (c *Controller) Sync(ctx context.Context, key string) (ctrl.Result, error) {
	ns, name, ok := strings.Cut(key, "/")
	if !ok {
		return ctrl.Result{}, ctrl.TerminalError(fmt.Errorf("%w: %q", ErrBadKey, key))
	}
	rq, err := c.quotas.Namespace(ns).Get(name)
	if rest.IsNotFound(err) {
		c.log.Info().Str("key", key).Msg("resource quota has been deleted")
		return ctrl.Result{}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, c.syncQuota(ctx, rq)
}

// syncQuota is Kubernetes' syncResourceQuota: status.hard becomes
// spec.hard; status.used keeps what it had for the hard names no
// evaluator computes, takes what CalculateUsage returns for the others,
// and drops every name that is not hard. One UpdateStatus, and only when
// status.hard differed from spec.hard, either status list was absent, or
// the usage changed. A usage that could not be computed in full is still
// written with what was computed, and the error returned (retried).
func (c *Controller) syncQuota(ctx context.Context, rq *api.ResourceQuota) error {
	hard, err := resource.ParseList(rq.Spec.Hard)
	if err != nil {
		return ctrl.TerminalError(fmt.Errorf("resource quota %s: spec.hard: %w", rq.Key(), err))
	}
	statusHard, errHard := resource.ParseList(rq.Status.Hard)
	statusUsed, errUsed := resource.ParseList(rq.Status.Used)
	if errHard != nil || errUsed != nil { // not from this controller: write a fresh status
		statusHard, statusUsed = nil, nil
	}
	dirty := errHard != nil || errUsed != nil || !quota.Equals(hard, statusHard) ||
		rq.Status.Hard == nil || rq.Status.Used == nil

	used := resource.List{}
	maps.Copy(used, statusUsed)
	var errs []error
	newUsage, err := quota.CalculateUsage(rq.Namespace, scopeNames(rq.Spec.Scopes), hard, c.registry, rq.Spec.ScopeSelector)
	if err != nil {
		errs = append(errs, fmt.Errorf("resource quota %s: %w", rq.Key(), err))
	}
	maps.Copy(used, newUsage)
	used = quota.Mask(used, quota.ResourceNames(hard))
	dirty = dirty || !quota.Equals(used, statusUsed)
	if dirty {
		up, err := api.DeepCopy(rq)
		if err != nil {
			return errors.Join(append(errs, err)...)
		}
		up.Status = api.ResourceQuotaStatus{Hard: hard.Strings(), Used: used.Strings()}
		if _, err := c.statusClient(rq.Namespace).UpdateStatus(ctx, up); err != nil {
			errs = append(errs, fmt.Errorf("updating the status of resource quota %s: %w", rq.Key(), err))
		}
	}
	return errors.Join(errs...)
}

// scopeNames are a quota's spec.scopes as CalculateUsage takes them.
func scopeNames(scopes []api.ResourceQuotaScope) []string {
	if scopes == nil {
		return nil
	}
	out := make([]string, len(scopes))
	for i, s := range scopes {
		out[i] = string(s)
	}
	return out
}

// sameList reports whether two wire lists hold the same quantities
// (Kubernetes compares them with apiequality.Semantic, by Quantity.Cmp);
// a list that does not parse equals nothing.
func sameList(a, b api.ResourceList) bool {
	pa, errA := resource.ParseList(a)
	pb, errB := resource.ParseList(b)
	return errA == nil && errB == nil && quota.Equals(pa, pb)
}
