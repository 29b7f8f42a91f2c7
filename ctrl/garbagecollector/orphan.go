package garbagecollector

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/rest"
)

// AttemptToOrphan is the sync of the attempt-to-orphan queue, keyed by
// the uid of an owner deleted with the orphan finalizer (Kubernetes'
// attemptToOrphanWorker): it removes the owner's reference from every
// dependent the graph knows — a patch each, in parallel — and then the
// owner's orphan finalizer, which lets kube-apiserver delete it. The
// dependents stay, owner-less. Any failure retries the whole item; both
// steps are idempotent.
func (c *Collector) AttemptToOrphan(ctx context.Context, uid string) (ctrl.Result, error) {
	it, ok := c.graph.Item(uid)
	if !ok {
		return ctrl.Result{}, nil // gone: its finalizer was removed already
	}
	if err := c.orphanDependents(ctx, it); err != nil {
		return ctrl.Result{}, err
	}
	if err := c.removeFinalizer(ctx, it.Identity, FinalizerOrphanDependents); err != nil {
		return ctrl.Result{}, fmt.Errorf("removing the orphan finalizer of %s: %w", it.Identity, err)
	}
	return ctrl.Result{}, nil
}

// orphanDependents removes the owner's reference from each dependent, in
// parallel (Config.OrphanParallelism at a time, all by default). A
// dependent that is gone, or no longer names the owner, needs nothing
// (the strategic merge patch deleting a missing reference succeeds).
func (c *Collector) orphanDependents(ctx context.Context, owner Item) error {
	var wg sync.WaitGroup
	errs := make([]error, len(owner.Dependents))
	limit := len(owner.Dependents)
	if c.orphanParallelism > 0 {
		limit = c.orphanParallelism
	}
	slots := make(chan struct{}, max(limit, 1))
	for i, d := range owner.Dependents {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			id := d.Identity
			err := c.patch(ctx, id, deleteOwnerRefsSMP(id.UID, owner.Identity.UID), c.deleteOwnerRefsJMP(id, owner.Identity.UID))
			if err != nil && !rest.IsNotFound(err) {
				errs[i] = fmt.Errorf("orphaning %s: %w", id, err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("failed to orphan dependents of owner %s: %w", owner.Identity, err)
	}
	c.log.Debug().Stringer("owner", owner.Identity).Int("dependents", len(owner.Dependents)).Msg("dependents orphaned")
	return nil
}
