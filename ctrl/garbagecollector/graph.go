package garbagecollector

import (
	"slices"
	"sync"

	"github.com/kcmlab/kcm/kube/api"
)

// ChangeType says what happened to an object.
type ChangeType uint8

// The three kinds of change (Kubernetes' addEvent, updateEvent,
// deleteEvent).
const (
	Added ChangeType = iota
	Updated
	Deleted
)

func (t ChangeType) String() string {
	switch t {
	case Added:
		return "add"
	case Updated:
		return "update"
	case Deleted:
		return "delete"
	}
	return "unknown"
}

// Change is one input of the graph: an informer's notification, or a
// "virtual" delete a worker makes when the apiserver says that a node's
// object does not exist.
type Change struct {
	Type ChangeType
	// Virtual: made by a worker, not seen by an informer.
	Virtual bool
	// APIVersion and Kind are the resource's (for an informer's change)
	// or the node's (for a virtual delete): objects from a list or a
	// watch do not carry them.
	APIVersion, Kind string
	// Object is the object's metadata: its state after the change, or
	// its last known state for a delete.
	Object *api.ObjectMeta
	// Old is the state before an update; nil otherwise.
	Old *api.ObjectMeta
}

// identity is the node identity the change shows (Kubernetes'
// identityFromEvent).
func (c Change) identity() objectRef {
	return objectRef{APIVersion: c.APIVersion, Kind: c.Kind, Namespace: c.Object.Namespace, Name: c.Object.Name, UID: c.Object.UID}
}

// InvalidOwnerRef is an ownerReference that names an owner the collector
// has seen in another namespace than the dependent's, or a namespaced
// owner of a cluster-scoped dependent: the OwnerRefInvalidNamespace
// warning event is recorded on Dependent.
type InvalidOwnerRef struct {
	Dependent objectRef
	// Owner is the reference as the dependent wrote it, in the
	// dependent's namespace, where it does not exist.
	Owner objectRef
}

// Effects are what the graph asks of the workers after a change: the
// nodes (by uid) to put on the attempt-to-delete and attempt-to-orphan
// queues, the owner identities now known to be absent, and the events to
// record. The shell applies them in this order.
type Effects struct {
	// AttemptToDelete: nodes whose deletion (or whose dependents'
	// deletion) may be due.
	AttemptToDelete []string
	// AttemptToDeleteLater: the same, after the queue's backoff.
	AttemptToDeleteLater []string
	// AttemptToOrphan: owners deleted with the orphan finalizer.
	AttemptToOrphan []string
	// Absent: identities verified not to exist.
	Absent []objectRef
	// Invalid: OwnerRefInvalidNamespace events to record.
	Invalid []InvalidOwnerRef
}

func (e *Effects) delete(n *node) { e.AttemptToDelete = append(e.AttemptToDelete, n.identity.UID) }

// Empty reports whether the change asked for nothing.
func (e Effects) Empty() bool {
	return len(e.AttemptToDelete)+len(e.AttemptToDeleteLater)+len(e.AttemptToOrphan)+len(e.Absent)+len(e.Invalid) == 0
}

// Graph is the dependency graph of ownerReferences (Kubernetes'
// GraphBuilder.uidToNode and processGraphChanges): a pure state machine
// that turns each Change into node updates and the Effects the workers
// act on. It does no I/O. Its lock makes Apply and the readers safe to
// call from any goroutine; changes must arrive in the order each
// informer delivers them.
type Graph struct {
	mu    sync.RWMutex
	nodes map[string]*node // by uid
}

// NewGraph returns an empty graph.
func NewGraph() *Graph { return &Graph{nodes: map[string]*node{}} }

// Len returns the number of nodes, virtual ones included.
func (g *Graph) Len() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return len(g.nodes)
}

// Item returns a copy of the node with this uid.
func (g *Graph) Item(uid string) (Item, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	n, ok := g.nodes[uid]
	if !ok {
		return Item{}, false
	}
	return n.item(), true
}

// Apply updates the graph with one change and returns what the workers
// should do about it.
func (g *Graph) Apply(c Change) Effects {
	g.mu.Lock()
	defer g.mu.Unlock()
	var e Effects
	if c.Object == nil || c.Object.UID == "" {
		return e // nothing to key a node by; informers never send one
	}
	existing, found := g.nodes[c.Object.UID]
	if found && !c.Virtual && existing.virtual {
		g.observe(existing, c.identity(), &e)
	}
	switch {
	case c.Type != Deleted && !found:
		n := &node{
			identity:           c.identity(),
			owners:             c.Object.OwnerReferences,
			beingDeleted:       beingDeleted(c.Object),
			deletingDependents: beingDeleted(c.Object) && hasFinalizer(c.Object, FinalizerDeleteDependents),
		}
		g.nodes[n.identity.UID] = n
		g.addDependentToOwners(n, n.owners, &e)
		// An informer may fold a creation and the start of a deletion
		// into one notification.
		g.transitions(c.Old, c.Object, n, &e)
	case c.Type != Deleted:
		if !c.Virtual && (existing.identity.APIVersion != c.APIVersion || existing.identity.Kind != c.Kind) {
			existing.identity.APIVersion, existing.identity.Kind = c.APIVersion, c.Kind
		}
		added, removed, changed := referencesDiff(existing.owners, c.Object.OwnerReferences)
		if len(added)+len(removed)+len(changed) > 0 {
			g.unblockedOwners(removed, changed, &e)
			existing.owners = c.Object.OwnerReferences
			g.addDependentToOwners(existing, added, &e)
			g.removeDependentFromOwners(existing, removed)
			if len(removed) > 0 && len(existing.owners) > 0 && !existing.beingDeleted {
				// The reference that went may have been what kept the
				// object (an owner that exists, or one a cluster-scoped
				// object cannot have): the others decide now.
				e.delete(existing)
			}
		}
		if beingDeleted(c.Object) {
			existing.beingDeleted = true
		}
		g.transitions(c.Old, c.Object, existing, &e)
	case found:
		g.deleted(existing, c, &e)
	}
	return e
}

// observe turns a virtual node into an observed one. When the object's
// real identity differs from the one its dependents guessed, the
// dependents that named it otherwise are checked by the workers (their
// reference may be wrong: another kind, another name, or a namespaced
// owner in another namespace, which is also reported).
func (g *Graph) observe(n *node, seen objectRef, e *Effects) {
	if seen != n.identity {
		_, mismatched := partitionDependents(n, seen)
		for _, d := range mismatched {
			if seen.Namespace != "" && d.identity.Namespace != seen.Namespace {
				g.reportInvalid(d, seen.UID, e)
			}
			e.delete(d)
		}
		n.identity = seen
	}
	n.virtual = false
}

// addDependentToOwners records n as a dependent of each owner, making a
// virtual node for an owner not in the graph and asking a worker to
// verify it against the apiserver. A reference that disagrees with an
// owner already in the graph — another namespace, other coordinates, or
// a namespaced dependent of what may be a namespaced owner guessed
// cluster-scoped — puts n itself on the queue, where the apiserver
// decides.
func (g *Graph) addDependentToOwners(n *node, owners []api.OwnerReference, e *Effects) {
	suspect := false
	for _, o := range owners {
		owner, ok := g.nodes[o.UID]
		if !ok {
			owner = &node{identity: refFromOwner(o, n.identity.Namespace), virtual: true}
			g.nodes[o.UID] = owner
		}
		owner.addDependent(n)
		switch {
		case !ok:
			e.delete(owner)
		case suspect:
		case owner.identity.Namespace != "" && owner.identity.Namespace != n.identity.Namespace:
			// A namespaced owner is only ever looked up in the
			// dependent's namespace.
			if !owner.virtual {
				g.reportInvalid(n, o.UID, e)
			}
			suspect = true
		case !owner.identity.matches(o):
			suspect = true
		case owner.identity.Namespace == "" && n.identity.Namespace != "" && owner.virtual:
			// A cluster-scoped dependent guessed this owner
			// cluster-scoped; it may be a namespaced object that a
			// cluster-scoped dependent cannot own.
			suspect = true
		}
	}
	if suspect {
		e.delete(n)
	}
}

// reportInvalid asks for the OwnerRefInvalidNamespace event on n for its
// reference to ownerUID (Kubernetes' reportInvalidNamespaceOwnerRef).
func (g *Graph) reportInvalid(n *node, ownerUID string, e *Effects) {
	i := slices.IndexFunc(n.owners, func(o api.OwnerReference) bool { return o.UID == ownerUID })
	if i < 0 {
		return
	}
	e.Invalid = append(e.Invalid, InvalidOwnerRef{Dependent: n.identity, Owner: refFromOwner(n.owners[i], n.identity.Namespace)})
}

// removeDependentFromOwners forgets n as a dependent of owners.
func (g *Graph) removeDependentFromOwners(n *node, owners []api.OwnerReference) {
	for _, o := range owners {
		if owner, ok := g.nodes[o.UID]; ok {
			owner.deleteDependent(n)
		}
	}
}

// unblockedOwners wakes the owners that a dependent stopped blocking:
// its blocking reference was removed, or lost blockOwnerDeletion. An
// owner waiting for its dependents may now be free to go.
func (g *Graph) unblockedOwners(removed []api.OwnerReference, changed []refPair, e *Effects) {
	wake := func(uid string) {
		if owner, ok := g.nodes[uid]; ok {
			e.delete(owner)
		}
	}
	for _, r := range removed {
		if blocks(r) {
			wake(r.UID)
		}
	}
	for _, c := range changed {
		if blocks(c.old) && !blocks(c.cur) {
			wake(c.cur.UID)
		}
	}
}

// transitions acts on the start of a deletion (Kubernetes'
// processTransitions): with the orphan finalizer, the owner goes on the
// orphan queue; with foregroundDeletion, it is marked as deleting its
// dependents, and it and every dependent go on the delete queue.
func (g *Graph) transitions(old, cur *api.ObjectMeta, n *node, e *Effects) {
	if deletionStartsWith(old, cur, FinalizerOrphanDependents) {
		e.AttemptToOrphan = append(e.AttemptToOrphan, n.identity.UID)
		return
	}
	if deletionStartsWith(old, cur, FinalizerDeleteDependents) {
		n.deletingDependents = true // a node made virtual never had it set
		for _, d := range sortedDependents(n) {
			e.delete(d)
		}
		e.delete(n)
	}
}

// deleted handles a delete. An informer's delete removes the node. A
// virtual delete (the apiserver has no object under the identity a
// worker tried) is more careful: it never removes a node whose
// dependents, or whose observed identity, say the object may exist
// under other coordinates; then only the dependents that named the
// absent identity are woken, and a virtual node moves on to the next
// identity its dependents use.
func (g *Graph) deleted(n *node, c Change, e *Effects) {
	if c.Virtual {
		gone := c.identity()
		if n.virtual {
			matching, mismatched := partitionDependents(n, gone)
			if len(mismatched) > 0 {
				g.absentDependents(gone, matching, e)
				if n.identity == gone {
					if alt, ok := alternateIdentity(mismatched, gone); ok {
						n.identity = alt
						e.AttemptToDeleteLater = append(e.AttemptToDeleteLater, n.identity.UID)
					}
				}
				return
			}
		} else if n.identity != gone {
			matching, _ := partitionDependents(n, gone)
			g.absentDependents(gone, matching, e)
			return
		}
	}
	delete(g.nodes, n.identity.UID)
	g.removeDependentFromOwners(n, n.owners)
	if len(n.dependents) > 0 {
		e.Absent = append(e.Absent, c.identity())
	}
	for _, d := range sortedDependents(n) {
		e.delete(d)
	}
	for _, o := range n.owners {
		if owner, ok := g.nodes[o.UID]; ok && owner.deletingDependents {
			// It may have been waiting for this dependent only.
			e.delete(owner)
		}
	}
}

// absentDependents records gone as absent and wakes the dependents that
// named it, when there are any.
func (g *Graph) absentDependents(gone objectRef, matching []*node, e *Effects) {
	if len(matching) == 0 {
		return
	}
	e.Absent = append(e.Absent, gone)
	for _, d := range matching {
		e.delete(d)
	}
}

// partitionDependents splits n's dependents into those whose reference
// to n's uid matches identity — coordinates equal, and the namespace too
// when identity is namespaced — and those with a reference to that uid
// that does not. A dependent with two references to the uid can be in
// both (Kubernetes' partitionDependents).
func partitionDependents(n *node, identity objectRef) (matching, mismatched []*node) {
	namespaced := identity.Namespace != ""
	for _, d := range sortedDependents(n) {
		match, mismatch := false, false
		if namespaced && identity.Namespace != d.identity.Namespace {
			mismatch = true
		} else {
			for _, o := range d.owners {
				if o.UID != identity.UID {
					continue
				}
				if identity.matches(o) {
					match = true
				} else {
					mismatch = true
				}
			}
		}
		if match {
			matching = append(matching, d)
		}
		if mismatch {
			mismatched = append(mismatched, d)
		}
	}
	return matching, mismatched
}

// sortedDependents returns n's dependents in identity order, so that
// effects come out in the same order every time.
func sortedDependents(n *node) []*node {
	out := make([]*node, 0, len(n.dependents))
	for d := range n.dependents {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b *node) int {
		switch {
		case a.identity.less(b.identity):
			return -1
		case b.identity.less(a.identity):
			return 1
		}
		return 0
	})
	return out
}

// alternateIdentity finds another identity the dependents use for the
// uid of gone, which was verified absent: the first after gone in
// identity order, else the first overall (Kubernetes'
// getAlternateOwnerIdentity). Dependents' references to a cluster-scoped
// kind are read without namespace.
func alternateIdentity(deps []*node, gone objectRef) (objectRef, bool) {
	clusterScoped := gone.Namespace == ""
	seen := map[objectRef]bool{gone: true}
	var first, following *objectRef
	for _, d := range deps {
		for _, o := range d.owners {
			if o.UID != gone.UID {
				continue
			}
			if gone.matches(o) && (clusterScoped || gone.Namespace == d.identity.Namespace) {
				continue
			}
			ref := refFromOwner(o, d.identity.Namespace)
			if clusterScoped && ref.APIVersion == gone.APIVersion && ref.Kind == gone.Kind {
				ref.Namespace = ""
			}
			if seen[ref] {
				continue
			}
			seen[ref] = true
			if first == nil || ref.less(*first) {
				r := ref
				first = &r
			}
			if gone.less(ref) && (following == nil || ref.less(*following)) {
				r := ref
				following = &r
			}
		}
	}
	switch {
	case following != nil:
		return *following, true
	case first != nil:
		return *first, true
	}
	return objectRef{}, false
}
