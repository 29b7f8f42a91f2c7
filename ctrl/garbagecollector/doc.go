// Package garbagecollector is the garbage collector: it deletes objects
// whose owners are gone, and carries out the two deletion modes that wait
// for dependents — foreground (the owner goes last) and orphan (the
// dependents stay, owner-less).
//
// # The idea
//
// An object names its owners in metadata.ownerReferences (apiVersion,
// kind, name, uid). kube-apiserver itself only records how a deletion
// should propagate: a DELETE with propagationPolicy Background removes
// the object at once; Foreground puts the foregroundDeletion finalizer on
// it and Orphan the orphan finalizer, so it stays (with a
// deletionTimestamp) until someone removes the finalizer. That someone,
// and the one who deletes dependents left behind, is this controller.
//
// To know who depends on whom without listing the world on every change,
// the collector keeps a graph of ownerReferences across every resource
// the server can list, watch and delete. Each object is a node; an owner
// nobody has shown the collector yet is a "virtual" node, made from the
// reference, which a worker verifies against the apiserver. The graph
// only says where to look: every deletion is decided on live reads (GET)
// of the object and of each owner, and sent with the object's uid and
// resourceVersion as preconditions, so that a stale cache, an owner
// recreated under the same name (another uid) or an adoption in between
// never deletes the wrong object.
//
// # Where it sits
//
//	discovery every 30 s ─▶ deletable resources (list+watch+delete, less Events)
//	     │                        │
//	     │ kind → resource        ▼
//	     │               one monitor per resource (monitors.go): the shared factory's
//	     │               informer where a controller reads it, else metadata-only
//	     │                        │ add/update/delete
//	     ▼                        ▼
//	  mapper             Graph.Apply(Change) ─▶ Effects (graph.go, a pure state machine)
//	                              │   nodes, virtual owners, transitions, events
//	          ┌───────────────────┴──────────────────────┐
//	          ▼ uid                                      ▼ uid
//	 attempt-to-delete loop (ctrl.Loop)         attempt-to-orphan loop (ctrl.Loop)
//	 AttemptToDelete (attempt_delete.go)        AttemptToOrphan (orphan.go)
//	  GET item; gone/other uid ─▶ virtual delete  patch each dependent: drop the
//	  deleting its dependents ─▶ wait/unfinalize  owner's reference ($patch: delete)
//	  classify owners by live GET:                then remove the orphan finalizer
//	    solid     ─▶ keep (drop dangling refs)
//	    waiting + item has dependents ─▶ DELETE Foreground (propagates down)
//	    none left ─▶ DELETE (Background, or the item's own finalizer's mode)
//
// One concept per file: identity.go (identities, finalizers, reference
// diffs), node.go (nodes and the Item copies workers read), graph.go (the
// state machine), dot.go (the DOT dump), absent.go (the absent-owner
// cache), discovery.go (deletable resources, ignored resources, the kind
// mapper), codec.go (the cached metadata), monitors.go (the informers: a
// ctrl/internal/monitorset set, one per exact resource),
// collector.go (Collector: graph, effects, handlers), attempt_delete.go and
// orphan.go (the two syncs), operations.go (reads, deletes, patches),
// controller.go (GarbageCollector: Run, discovery resync, the debug
// handler; the descriptor and flags).
//
// # Guarantees
//
//   - Nothing is deleted on the graph's word: the item is read live and
//     must have the node's uid; each owner is read live in the dependent's
//     namespace (for a namespaced kind) and counts as absent only when the
//     apiserver answers 404 or the object it has under that name has
//     another uid. The DELETE carries the uid and the resourceVersion read;
//     a conflict is retried at the new resourceVersion only if the
//     ownerReferences did not change meanwhile.
//   - Foreground deletion: an owner with foregroundDeletion loses the
//     finalizer only when no dependent with blockOwnerDeletion remains in
//     the graph; a dependent that has dependents of its own is deleted in
//     the foreground too, so a Deployment goes after its ReplicaSet, which
//     goes after its pods. A cycle of blocking references does not hang:
//     the item between two owners that both wait has its references
//     unblocked first.
//   - Orphaning removes the owner's reference from every dependent with a
//     patch (strategic merge with a "$patch: delete" directive; a JSON
//     merge patch at the read resourceVersion for custom resources, which
//     refuse strategic merge) before the orphan finalizer goes. The
//     collector never updates (PUT) an object.
//   - Scope, as Kubernetes applies it: a namespaced dependent's owner is
//     looked up in the dependent's namespace, or cluster-wide for a
//     cluster-scoped kind; an owner that exists only in another namespace
//     is absent for it. A cluster-scoped dependent of a namespaced kind is
//     never collected for that reference. When the collector has seen the
//     owner on the other side of such a reference, it records the Warning
//     event OwnerRefInvalidNamespace on the dependent.
//   - Resources come and go with discovery: a CRD installed later gets a
//     monitor within a resync period; one removed has its monitor
//     stopped. A partial discovery failure keeps the synced monitors of
//     the groups that failed. A monitor counts as synced once the graph's
//     handler has taken its initial list (its registration's HasSynced),
//     not as soon as its informer has listed (Kubernetes asks the
//     informer).
//   - Memory: the cache keeps only the metadata the graph reads (see
//     codec.go), the informers keep no indexes, and a node allocates its
//     set of dependents only when it has one. TestMemoryPerObject
//     (memory_test.go) holds the collector, for 10 000 realistic pods and
//     their 2 500 ReplicaSets, to under 1 KB per cached object in all —
//     its cached metadata and its graph node together — and fails above
//     it; it logs the split between the two.
//
// # Kubernetes counterparts
//
// kube-controller-manager's garbagecollector
// (pkg/controller/garbagecollector): Graph is GraphBuilder's uidToNode and
// processGraphChanges, Collector.AttemptToDelete is attemptToDeleteWorker
// and attemptToDeleteItem, AttemptToOrphan is attemptToOrphanWorker,
// GarbageCollector.Run and resync are Run and Sync, monitors are its
// monitors, the absent-owner cache is its ReferenceCache, and
// WriteDOT is its debug handler's output. The controller is named
// garbage-collector-controller (alias garbagecollector), runs
// --concurrent-gc-syncs workers per queue (20) and is off with
// --enable-garbage-collector=false. Its client is
// "generic-garbage-collector" with twice the configured QPS.
//
// Deliberate differences, of mechanism: informer notifications are
// applied to the graph directly, under its lock, instead of through a
// graph-changes queue (so there is no garbage_collector_graph_changes
// queue); the queues are keyed by uid rather than by node pointer; kinds
// are mapped to resources by group and kind (the group's preferred
// version) rather than by exact version; a resource no other controller
// reads is monitored by a metadata-only informer of the collector's own,
// not one the collector adds to the shared factory, so that a removed
// resource's informer really stops (the resources the factory already
// runs, pods and ReplicaSets among them, are shared, as in Kubernetes). Of behaviour, three corners the chaos
// suite (chaos_test.go) found where Kubernetes' collector can leave
// garbage or misjudge, each a table case: a virtual node's owners are
// resolved in its object's namespace as the apiserver reports it, not in
// the namespace a dependent guessed for it; a virtual node whose object
// has an owner it cannot have is still requeued until its informer shows
// it; and a dependent that loses one of several ownerReferences is checked
// again, since the reference that went may have been what kept it. A
// fourth came from the real apiserver under load: an item whose waiting
// owner is also its own dependent has its references unblocked even when
// the graph has not yet seen that owner's foreground deletion (the live
// read shows it), or the two would wait for each other forever.
package garbagecollector
