package garbagecollector

import "github.com/kcmlab/kcm/kube/api"

// node is one object in the dependency graph: an object an informer
// showed the collector, or a "virtual" one that some dependent names as
// its owner and that no informer has shown (yet). Edges run both ways:
// a node keeps its ownerReferences as the object listed them, and each
// owner keeps the set of nodes that name it.
//
// Only the Graph touches nodes, under its lock; workers get Item copies.
type node struct {
	identity objectRef
	// owners are the object's ownerReferences as last seen (nil for a
	// virtual node). The slice is the cached object's, never written.
	owners []api.OwnerReference
	// dependents are the nodes whose owners name this node's uid;
	// allocated on the first one, since most objects own nothing.
	dependents map[*node]struct{}
	// virtual: known only from a dependent's ownerReference.
	virtual bool
	// beingDeleted: the object has a deletionTimestamp (one way: an
	// object never stops being deleted).
	beingDeleted bool
	// deletingDependents: being deleted with the foregroundDeletion
	// finalizer, so it waits for its blocking dependents to go.
	deletingDependents bool
}

func (n *node) addDependent(d *node) {
	if n.dependents == nil {
		n.dependents = map[*node]struct{}{}
	}
	n.dependents[d] = struct{}{}
}

func (n *node) deleteDependent(d *node) {
	delete(n.dependents, d)
	if len(n.dependents) == 0 {
		n.dependents = nil // give the map back
	}
}

// blockedBy reports whether dependent d holds n's deletion: one of d's
// ownerReferences to n has blockOwnerDeletion.
func (n *node) blockedBy(d *node) bool {
	for _, o := range d.owners {
		if o.UID == n.identity.UID && blocks(o) {
			return true
		}
	}
	return false
}

// Item is what a worker knows of a node at one moment: a copy, taken
// under the graph's lock, that the graph's later changes do not touch.
// Its dependents are in identity order, so that what a worker does with
// them is the same in every run.
type Item struct {
	Identity           objectRef
	Virtual            bool
	BeingDeleted       bool
	DeletingDependents bool
	Owners             []api.OwnerReference
	// Dependents are the nodes that name this one as an owner.
	Dependents []Dependent
}

// Dependent is one dependent of an Item.
type Dependent struct {
	Identity           objectRef
	DeletingDependents bool
	// Blocking: one of its ownerReferences to the item has
	// blockOwnerDeletion, so a foreground deletion of the item waits for
	// it.
	Blocking bool
}

// item copies n.
func (n *node) item() Item {
	it := Item{Identity: n.identity, Virtual: n.virtual, BeingDeleted: n.beingDeleted,
		DeletingDependents: n.deletingDependents, Owners: n.owners}
	if len(n.dependents) > 0 {
		it.Dependents = make([]Dependent, 0, len(n.dependents))
		for _, d := range sortedDependents(n) {
			it.Dependents = append(it.Dependents, Dependent{Identity: d.identity,
				DeletingDependents: d.deletingDependents, Blocking: n.blockedBy(d)})
		}
	}
	return it
}

// blockingDependents returns the dependents whose deletion a foreground
// deletion of the item waits for (Kubernetes' blockingDependents).
func (it Item) blockingDependents() []Dependent {
	var out []Dependent
	for _, d := range it.Dependents {
		if d.Blocking {
			out = append(out, d)
		}
	}
	return out
}
