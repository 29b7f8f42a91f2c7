package garbagecollector

import (
	"context"
	"errors"
	"fmt"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// Outcomes of attemptToDeleteItem that end the item's turn without a
// retry.
var (
	// errVirtualDelete: the apiserver has no object under the node's
	// identity; a virtual delete went to the graph instead.
	errVirtualDelete = errors.New("enqueued virtual delete event")
	// ErrNamespacedOwnerOfClusterScoped: a cluster-scoped object names
	// a namespaced owner, which it can never have. Retrying cannot fix
	// it, and the object is never collected for it.
	ErrNamespacedOwnerOfClusterScoped = errors.New("cluster-scoped objects cannot refer to namespaced owners")
	// errUnresolvable: the node itself is such an owner — a namespaced
	// kind without a namespace — and cannot be looked up.
	errUnresolvable = fmt.Errorf("a namespaced owner named by a cluster-scoped object: %w", ErrNamespacedOwnerOfClusterScoped)
)

// AttemptToDelete is the sync of the attempt-to-delete queue, keyed by
// uid (Kubernetes' attemptToDeleteWorker): it decides, from the live
// object and its owners' live state, whether the node's object must go,
// and deletes it — or, for an owner deleting its dependents in the
// foreground, whether it may go now. Every decision is verified against
// the apiserver: the graph says where to look, never what to delete.
func (c *Collector) AttemptToDelete(ctx context.Context, uid string) (ctrl.Result, error) {
	it, ok := c.graph.Item(uid)
	if !ok {
		// Observed deleted, or a virtual node already resolved.
		return ctrl.Result{}, nil
	}
	err := c.attemptToDeleteItem(ctx, it)
	switch {
	case errors.Is(err, errVirtualDelete):
		return ctrl.Result{}, nil
	case errors.Is(err, errUnresolvable):
		// A virtual owner of a namespaced kind that a cluster-scoped
		// object names: it can never be looked up.
		return ctrl.Result{}, nil
	case errors.Is(err, ErrNamespacedOwnerOfClusterScoped):
		c.log.Info().Stringer("item", it.Identity).Msg("item is cluster-scoped but refers to a namespaced owner; not collecting it")
		// A virtual node still has to be seen by its informer, or its
		// object found gone, whatever its own owners are (Kubernetes
		// forgets it here, and a node whose object goes unseen stays
		// virtual, its dependents never collected).
		return ctrl.Result{Requeue: it.Virtual}, nil
	case err != nil:
		return ctrl.Result{}, err
	case it.Virtual:
		// Its object exists but no informer has shown it yet: look
		// again until one does, or a virtual node added and removed
		// during a watch gap could stay in the graph forever
		// (kubernetes#56121).
		return ctrl.Result{Requeue: true}, nil
	}
	return ctrl.Result{}, nil
}

// attemptToDeleteItem looks up the live object of the item and deletes
// it if, and only if, it still has the item's uid, it is not waiting for
// its own dependents, and every owner it lists is absent (Kubernetes'
// attemptToDeleteItem). On the way it drops references to absent owners
// when another owner remains, and propagates a foreground deletion to
// dependents that have dependents of their own.
func (c *Collector) attemptToDeleteItem(ctx context.Context, it Item) error {
	id := it.Identity
	log := c.log.With().Stringer("item", id).Bool("virtual", it.Virtual).Logger()
	log.Debug().Msg("processing item")
	if it.BeingDeleted && !it.DeletingDependents {
		// Deletion is under way; its final delete will wake the
		// dependents.
		return nil
	}
	latest, err := c.getObject(ctx, id)
	switch {
	case errors.Is(err, ErrNamespacedOwnerOfClusterScoped):
		return errUnresolvable
	case rest.IsNotFound(err):
		log.Debug().Msg("item not found; generating a virtual delete event")
		c.virtualDelete(id)
		return errVirtualDelete
	case err != nil:
		return err
	case latest.UID != id.UID:
		log.Debug().Msg("UID does not match; item not found, generating a virtual delete event")
		c.virtualDelete(id)
		return errVirtualDelete
	}
	if it.DeletingDependents {
		return c.processDeletingDependents(ctx, it)
	}
	// The owners are resolved in the object's own namespace, as the
	// apiserver reports it. A virtual node's namespace is the guess of a
	// dependent that named it — a namespaced one, for what may be a
	// cluster-scoped object — and must not decide where its owners are
	// looked for (Kubernetes uses the node's identity here).
	it.Identity.Namespace = latest.Namespace
	owners := latest.OwnerReferences
	if len(owners) == 0 {
		log.Debug().Msg("item has no owner")
		return nil
	}
	solid, dangling, waiting, err := c.classifyReferences(ctx, it, owners)
	if err != nil {
		return err
	}
	switch {
	case len(solid) > 0:
		if len(dangling) == 0 && len(waiting) == 0 {
			log.Debug().Int("owners", len(solid)).Msg("item has at least one existing owner; not collecting it")
			return nil
		}
		// An owner waiting for its dependents would wait for this one
		// forever: drop that reference too.
		uids := append(refUIDs(dangling), refUIDs(waiting)...)
		log.Debug().Strs("owners", uids).Msg("removing dangling and waiting references from item")
		return c.patch(ctx, id, deleteOwnerRefsSMP(id.UID, uids...), c.deleteOwnerRefsJMP(id, uids...))
	case len(waiting) > 0 && len(it.Dependents) > 0:
		// An owner deletes its dependents in the foreground and this
		// dependent has dependents of its own: it goes in the
		// foreground too, so its dependents go first. If one of them is
		// itself deleting its dependents, there may be a cycle: unblock
		// this item's references first, so its owner need not wait.
		//
		// A dependent counts as deleting its dependents when the graph
		// says so or when it is one of the waiting owners just read live:
		// the graph may not have seen that owner's foreground deletion
		// yet, and without the unblock both would wait for each other
		// forever (kube-controller-manager reads the graph only).
		waitingUIDs := make(map[string]bool, len(waiting))
		for _, w := range waiting {
			waitingUIDs[w.UID] = true
		}
		for _, d := range it.Dependents {
			if d.DeletingDependents || waitingUIDs[d.Identity.UID] {
				smp := unblockOwnerRefsSMP(it)
				if smp == nil {
					// An earlier attempt unblocked them already.
					break
				}
				log.Debug().Stringer("dependent", d.Identity).Msg("owner and dependent both delete their dependents; unblocking the item's references to prevent a cycle")
				if err := c.patch(ctx, id, smp, c.unblockOwnerRefsJMP(it)); err != nil {
					return err
				}
				break
			}
		}
		log.Debug().Msg("an owner is deleting its dependents and the item has dependents; deleting it in the foreground")
		return c.delete(ctx, id, latest, rest.PropagationForeground)
	default:
		// No owner is left. Honour a deletion mode already chosen for
		// the item (its finalizer), else delete in the background.
		policy := rest.PropagationBackground
		switch {
		case hasFinalizer(&latest.ObjectMeta, FinalizerOrphanDependents):
			policy = rest.PropagationOrphan
		case hasFinalizer(&latest.ObjectMeta, FinalizerDeleteDependents):
			policy = rest.PropagationForeground
		}
		log.Debug().Str("propagationPolicy", policy).Msg("deleting item")
		return c.delete(ctx, id, latest, policy)
	}
}

// delete deletes the item at the state it was read in; an object gone
// meanwhile becomes a virtual delete.
func (c *Collector) delete(ctx context.Context, id objectRef, latest *api.RawObject, policy string) error {
	err := c.deleteObject(ctx, id, latest.ResourceVersion, latest.OwnerReferences, policy)
	if rest.IsNotFound(err) {
		c.virtualDelete(id)
		return errVirtualDelete
	}
	return err
}

// processDeletingDependents handles an owner that waits for its
// dependents (foregroundDeletion): once no dependent blocks it, its
// finalizer goes and kube-apiserver deletes it; until then, the blocking
// dependents that are not themselves waiting are sent to be deleted.
func (c *Collector) processDeletingDependents(ctx context.Context, it Item) error {
	blocking := it.blockingDependents()
	if len(blocking) == 0 {
		c.log.Debug().Stringer("item", it.Identity).Msg("removing the foregroundDeletion finalizer")
		return c.removeFinalizer(ctx, it.Identity, FinalizerDeleteDependents)
	}
	for _, d := range blocking {
		if !d.DeletingDependents {
			c.deleteQ.Add(d.Identity.UID)
		}
	}
	return nil
}

// classifyReferences sorts an object's owners, each looked up live
// (Kubernetes' classifyReferences): solid (it exists and is not waiting
// for its dependents), dangling (it does not exist), and waiting (it is
// being deleted with foregroundDeletion).
func (c *Collector) classifyReferences(ctx context.Context, it Item, refs []api.OwnerReference) (solid, dangling, waiting []api.OwnerReference, err error) {
	for _, ref := range refs {
		gone, owner, err := c.isDangling(ctx, ref, it)
		if err != nil {
			return nil, nil, nil, err
		}
		switch {
		case gone:
			dangling = append(dangling, ref)
		case beingDeleted(&owner.ObjectMeta) && hasFinalizer(&owner.ObjectMeta, FinalizerDeleteDependents):
			waiting = append(waiting, ref)
		default:
			solid = append(solid, ref)
		}
	}
	return solid, dangling, waiting, nil
}

// isDangling reports whether ref names no existing object, and returns
// the owner's live state otherwise (Kubernetes' isDangling). The owner is
// looked up in the dependent's namespace when its kind is namespaced —
// an ownerReference never crosses namespaces — and found only if it has
// the referenced uid: an object recreated under the same name is another
// owner. A cluster-scoped dependent of a namespaced kind is an error no
// retry fixes.
func (c *Collector) isDangling(ctx context.Context, ref api.OwnerReference, it Item) (bool, *api.RawObject, error) {
	key := refFromOwner(ref, "")
	if c.absent.has(key) {
		return true, nil, nil
	}
	key.Namespace = it.Identity.Namespace
	if c.absent.has(key) {
		return true, nil, nil
	}
	res, err := c.mapper.resourceFor(ref.APIVersion, ref.Kind)
	if err != nil {
		return false, nil, err
	}
	if !res.Namespaced {
		key.Namespace = ""
	}
	if it.Identity.Namespace == "" && res.Namespaced {
		return false, nil, ErrNamespacedOwnerOfClusterScoped
	}
	owner, err := c.api.Get(ctx, res, namespaceFor(res, it.Identity.Namespace), ref.Name)
	switch {
	case rest.IsNotFound(err):
		c.absent.add(key)
		c.log.Debug().Stringer("item", it.Identity).Stringer("owner", key).Msg("item's owner is not found")
		return true, nil, nil
	case err != nil:
		return false, nil, err
	case owner.UID != ref.UID:
		c.absent.add(key)
		c.log.Debug().Stringer("item", it.Identity).Stringer("owner", key).Msg("item's owner is not found, UID mismatch")
		return true, nil, nil
	}
	return false, owner, nil
}

func refUIDs(refs []api.OwnerReference) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.UID
	}
	return out
}
