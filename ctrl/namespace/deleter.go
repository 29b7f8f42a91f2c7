package namespace

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// ErrUIDChanged: while a write was retried after a conflict, the
// namespace was deleted and created again under the same name. The new
// namespace is not the one being deleted; the sync stops.
var ErrUIDChanged = errors.New("namespace uid has changed across retries")

// deleteNamespace is one deletion pass over the namespace named name
// (Kubernetes' namespacedResourcesDeleter.Delete). It returns the
// estimate, in seconds, of how long the remaining content will take to
// go (0 when it is gone and the namespace was finalized), or an error.
//
//  1. Read the namespace from the apiserver, not the cache: several
//     controllers may edit it while it terminates. Gone, or not being
//     deleted: nothing to do.
//  2. Make sure its phase is Terminating.
//  3. No finalizers left in spec.finalizers: nothing to do.
//  4. Delete its content and write the conditions (deleteAllContent).
//  5. Once nothing is left, remove the "kubernetes" finalizer through
//     the finalize subresource; kube-apiserver deletes the namespace when
//     spec.finalizers and metadata.finalizers are both empty.
func (c *Controller) deleteNamespace(ctx context.Context, name string) (int64, error) {
	ns, err := c.nsClient.Get(ctx, name)
	if rest.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if ns.DeletionTimestamp == nil {
		return 0, nil
	}
	ns, err = c.retryOnConflict(ctx, ns, c.markTerminating)
	if rest.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if ns.DeletionTimestamp == nil || ns.DeletionTimestamp.IsZero() {
		return 0, nil
	}
	if len(ns.Spec.Finalizers) == 0 {
		return 0, nil
	}
	ns, estimate, err := c.deleteAllContent(ctx, ns)
	if err != nil {
		return 0, err
	}
	if estimate > 0 {
		return estimate, nil
	}
	_, err = c.retryOnConflict(ctx, ns, c.finalize)
	if err != nil && !rest.IsNotFound(err) {
		return 0, err
	}
	return 0, nil
}

// retryOnConflict applies write to ns and, while the apiserver answers
// Conflict, reads the namespace again and retries on the fresh copy — as
// long as it is the same namespace (same UID).
func (c *Controller) retryOnConflict(ctx context.Context, ns *api.Namespace,
	write func(context.Context, *api.Namespace) (*api.Namespace, error)) (*api.Namespace, error) {
	for {
		out, err := write(ctx, ns)
		if err == nil {
			return out, nil
		}
		if !rest.IsConflict(err) || ctx.Err() != nil {
			return nil, err
		}
		fresh, err := c.nsClient.Get(ctx, ns.Name)
		if err != nil {
			return nil, err
		}
		if fresh.UID != ns.UID {
			return nil, fmt.Errorf("%w: %s was %s, is %s", ErrUIDChanged, ns.Name, ns.UID, fresh.UID)
		}
		ns = fresh
	}
}

// markTerminating sets the phase to Terminating through the status
// subresource, unless it already is (kube-apiserver sets it when it marks
// the namespace deleted, so this is normally a no-op).
func (c *Controller) markTerminating(ctx context.Context, ns *api.Namespace) (*api.Namespace, error) {
	if ns.DeletionTimestamp == nil || ns.Status.Phase == api.NamespaceTerminating {
		return ns, nil
	}
	upd, err := api.DeepCopy(ns)
	if err != nil {
		return nil, err
	}
	upd.Status.Phase = api.NamespaceTerminating
	return c.nsClient.UpdateStatus(ctx, upd)
}

// finalize removes the "kubernetes" finalizer from spec.finalizers
// through PUT namespaces/<name>/finalize; the other finalizers stay, for
// their owners to remove (sorted and without duplicates, as Kubernetes
// leaves them). A namespace already gone is fine.
func (c *Controller) finalize(ctx context.Context, ns *api.Namespace) (*api.Namespace, error) {
	upd, err := api.DeepCopy(ns)
	if err != nil {
		return nil, err
	}
	var keep []string
	for _, f := range ns.Spec.Finalizers {
		if f != api.FinalizerKubernetes {
			keep = append(keep, f)
		}
	}
	slices.Sort(keep)
	upd.Spec.Finalizers = slices.Compact(keep)
	out, err := c.nsClient.UpdateSubresource(ctx, upd, "finalize")
	if rest.IsNotFound(err) {
		return ns, nil
	}
	return out, err
}

// deleteAllContent deletes everything in the namespace, in one pass
// (Kubernetes' deleteAllContent):
//
//   - discover the namespaced resource types that support delete; a
//     partial discovery failure is recorded and the pass goes on with
//     what was found;
//   - pods first: while any pod remains, nothing else is deleted, so that
//     what a terminating pod still uses (its ServiceAccount token, its
//     ConfigMaps and Secrets, its PersistentVolumeClaims) outlives it;
//   - then every other type; a failure is recorded and the pass goes on;
//   - write the conditions when they changed.
//
// It returns the namespace as last written, the longest estimate of any
// type (seconds) and the errors joined.
func (c *Controller) deleteAllContent(ctx context.Context, ns *api.Namespace) (*api.Namespace, int64, error) {
	var errs []error
	u := newConditionUpdater(c.clock.Now())
	resources, err := c.discover(ctx)
	if err != nil {
		errs = append(errs, err)
		u.discoveryFailed(err)
	}
	ts, err := targets(resources)
	if err != nil {
		errs = append(errs, err)
		u.groupVersionFailed(err)
	}
	deletedAt := ns.DeletionTimestamp.Time
	left := newRemaining()
	var estimate int64
	for i, t := range ts {
		got, err := c.deleteResource(ctx, t, ns.Name, deletedAt)
		if err != nil {
			u.contentFailed(err)
			if isPods(t.res) {
				err = fmt.Errorf("failed to delete pods for namespace: %s, err: %w", ns.Name, err)
			}
			errs = append(errs, err)
		}
		estimate = max(estimate, got.estimate)
		left.add(t.res, got)
		if i == 0 && isPods(t.res) && got.count > 0 {
			// Pods remain: the other types wait. Kubernetes v1.37 writes
			// the conditions here without the content totals, so
			// NamespaceContentRemaining reads False while pods are still
			// terminating; kcm writes what Kubernetes writes.
			c.log.Debug().Str("namespace", ns.Name).Int("pods", got.count).Msg("pods remain; deleting the rest later")
			return c.writeConditions(ctx, ns, u), estimate, errors.Join(errs...)
		}
	}
	u.contentTotals(left)
	ns = c.writeConditions(ctx, ns, u)
	err = errors.Join(errs...)
	c.log.Debug().Str("namespace", ns.Name).Int64("estimate", estimate).Err(err).Msg("content deletion pass")
	return ns, estimate, err
}

// writeConditions applies the pass's conditions to ns and, if they
// changed, writes the status. A failed write is logged, not returned: the
// next pass writes them again. It returns the namespace as written, or ns
// when nothing was written.
func (c *Controller) writeConditions(ctx context.Context, ns *api.Namespace, u *conditionUpdater) *api.Namespace {
	if !u.apply(&ns.Status) {
		return ns
	}
	out, err := c.nsClient.UpdateStatus(ctx, ns)
	if err != nil {
		c.log.Error().Err(err).Str("namespace", ns.Name).Msg("couldn't update status conditions of namespace")
		return ns
	}
	return out
}
