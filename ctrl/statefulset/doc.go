// Package statefulset is the StatefulSet controller: it runs, for every
// StatefulSet, spec.replicas pods with stable identities — the pod of
// ordinal n is always named <set>-<n>, keeps its hostname and its own
// PersistentVolumeClaims across restarts, rescheduling and updates — and
// moves them from one pod template to the next in a fixed order.
//
// # The idea
//
// A ReplicaSet's pods are interchangeable; a StatefulSet's are not. Each
// ordinal in [start, start+replicas) names one pod and one claim per
// volumeClaimTemplate (<claim>-<set>-<n>), created before the pod and, by
// default, kept when the pod goes. With podManagementPolicy OrderedReady
// (the default) the controller creates pods one at a time, lowest ordinal
// first, each only once every lower one is Running and Ready, and removes
// them highest first; Parallel creates and removes them all at once. Every
// template the set has had is recorded as a ControllerRevision
// (ctrl/history): pods carry the name of theirs in their
// controller-revision-hash label, the status names the current and the
// update revision, and a RollingUpdate replaces pods whose revision is not
// the update revision from the highest ordinal down, stopping at the
// partition and keeping at most maxUnavailable pods unavailable; OnDelete
// waits for users to delete them.
//
// # Where it sits
//
//	StatefulSet informer ─ add/update/delete ─────────────────────────┐
//	Pod informer ─ add/delete: the owner (controller ref resolved) ───┤
//	             ─ update: old and new owner; +minReadySeconds when   ├─ "ns/name" ─▶ ctrl.Loop ─▶ Sync
//	               a pod turns Ready                                   │
//	             ─ orphan add/relabel: every set whose selector matches┘
//	ControllerRevision, PersistentVolumeClaim informers: read by the sync (no handler)
//
//	Sync(key):                                                 (sync.go)
//	  a cache older than this controller's last write for key ─▶ skip, Requeue (backoff)
//	  set gone            ─▶ forget its writes and its metrics series
//	  selector invalid    ─▶ log; wait for the object to change
//	  orphan ControllerRevisions matching the selector ─▶ adopt (after an uncached GET of the set)
//	  pods it controls and orphans ─ claim (ctrl/controllerref): adopt <set>-<n> orphans that match,
//	                                 release owned pods that stopped matching
//	  UpdateStatefulSet:                                       (control.go, rolling.go, revisions.go, status.go)
//	        current and update revision (create, reuse or renumber one; collisionCount)
//	        per ordinal: replace failed pods, create missing ones with their claims,
//	        fix identity, storage and claim ownerRefs; OrderedReady waits for each
//	        remove condemned pods (ordinals above the range) highest first
//	        RollingUpdate: delete the pods of other revisions, highest first, down to partition
//	        PUT .../statefulsets/<name>/status if it changed; truncate history
//	  RequeueAfter: when the first Ready pod reaches minReadySeconds
//
// One concept per file. Identity and naming: identity.go; pod states:
// podstate.go; the pod of an ordinal from its revision's template:
// newpod.go; claims and their retention policy: claims.go; pod and claim
// writes with their events: podcontrol.go, events.go; revisions (create,
// adopt, release, delete, history limit): revisions.go; the semantic
// comparison of a revision with the set's template: semantic.go; one
// pass (UpdateStatefulSet, the podControl and setMetrics interfaces):
// control.go; the ordinals, processReplica and processCondemned:
// replicas.go; the rolling update: rolling.go; the status: status.go;
// the gauges the pass sets, in Prometheus: metrics_prom.go; the controller, its
// wiring and descriptor: controller.go; informer handlers: handlers.go;
// Sync, claiming and the availability requeue: sync.go.
//
// # Guarantees
//
//   - Only the pods and revisions a set controls are touched; another
//     controller's are never adopted, counted or deleted, even if the
//     selector matches. An orphan is adopted only if its name is
//     <set>-<ordinal> (isMemberOf) and the selector matches it.
//   - A set that was deleted, or deleted and created again under its name,
//     adopts nothing: before the first adoption of a sync the set is read
//     from the apiserver uncached, and must still have its UID and no
//     deletionTimestamp.
//   - No sync on a cache that has not shown the controller its own last
//     write (the stale-controller check, KEP-5647): each pod created,
//     updated or adopted, each claim created or updated and each status
//     written records its resourceVersion for the set (ctrl.Consistency),
//     and a sync of that set is skipped, asking the loop to retry after
//     its backoff, while the pod, claim or StatefulSet cache is older;
//     counted in statefulset_controller_stale_sync_skips_total{group,
//     resource}. Deletions record nothing (a DELETE answers no
//     resourceVersion), as in Kubernetes.
//   - availableReplicas moves when a pod reaches minReadySeconds: the pod
//     handler syncs the set minReadySeconds after the pod turned Ready,
//     and a sync that leaves Ready pods not yet available asks to run
//     again when the first of them becomes available.
//   - Revision names and hash labels are kube-controller-manager's
//     (ctrl/history), so a set taken over from it rolls no pod.
//   - The same on either wire: on a protobuf client the controller reads
//     ControllerRevisions as protobuf and StatefulSets as JSON (why:
//     ctrl/history, "Encodings"), and a revision's data reads the same
//     either way; a set handed between kube-controller-manager, kcm on
//     protobuf and kcm on JSON, in any order, gets no new revision and no
//     pod replaced (TestTakeoverAcrossWires). A set read as protobuf
//     anyway makes no pod or claim (ErrTemplate wrapping
//     history.ErrProtobufSet) rather than one from kcm's typed template.
//
// # Behaviour matched with kube-controller-manager 1.37
//
//   - Feature gates at their 1.37 defaults: MaxUnavailableStatefulSet
//     (beta, on), StatefulSetStartOrdinal (GA),
//     StatefulSetAutoDeletePVC (GA), StaleControllerConsistencyStatefulSet
//     (on), StatefulSetRecreateStrategy (alpha, off: a Recreate strategy
//     is handled as with the gate off). kcm has no --feature-gates;
//     Config.NoStaleCheck turns the stale check off.
//   - Events (source component "statefulset-controller") on the
//     StatefulSet, with upstream's reasons and messages: SuccessfulCreate
//     "Create Pod web-0 in StatefulSet web successful", "Create Claim
//     data-web-0 Pod web-0 in StatefulSet web success", FailedCreate,
//     SuccessfulDelete, FailedDelete, SuccessfulUpdate, FailedUpdate.
//   - Metrics: statefulset_controller_statefulset_max_unavailable and
//     statefulset_controller_statefulset_unavailable_replicas
//     {statefulset_namespace, statefulset_name, pod_management_policy}
//     and statefulset_controller_stale_sync_skips_total{group, resource}.
//
// # Differences from kube-controller-manager
//
//   - A stale-cache skip is a Requeue, not an error: kube-controller-manager
//     returns its ConsistencyError, which logs an error line for normal
//     operation; kcm logs it at debug level. The retry timing is the same.
//   - A set whose sync finds it gone has its gauge series deleted;
//     kube-controller-manager keeps them until it restarts.
//   - A missing selector is refused like an invalid one (logged, not
//     retried); kube-controller-manager would read it as "nothing" and
//     release every pod. The apiserver never stores one.
//   - Pods are listed from the namespace's cache and filtered to the
//     set's own and the orphans, where kube-controller-manager reads an
//     index by controller ref: the same pods.
//   - A revision whose data was stored in another spelling than the
//     apiserver's JSON form (spaces, unescaped <, > or &: written by hand,
//     never by a controller) compares by that form (ctrl/history), on
//     either wire; renumbering one (a rollback to it) sends the data in
//     that form from the cached copy, which the apiserver refuses (data
//     is immutable: 422), where kube-controller-manager, comparing the
//     stored bytes, would not have matched it and would create a revision.
//
// # Kubernetes counterparts
//
// pkg/controller/statefulset: StatefulSetController (Controller), sync
// and syncStatefulSet (Sync), getPodsForStatefulSet (claimPods),
// adoptOrphanRevisions, canAdoptFunc (canAdopt), addPod, updatePod,
// deletePod, getStatefulSetsForPod (podStatefulSets),
// defaultStatefulSetControl (setControl), StatefulPodControl
// (statefulPodControl), realHistory (revisionControl); the metrics of
// pkg/controller/statefulset/metrics (Metrics);
// FindMinNextPodAvailabilityCheck from pkg/controller
// (nextAvailabilityCheck). Registered in kube-controller-manager as
// "statefulset-controller" (alias "statefulset") with
// --concurrent-statefulset-syncs workers, 5 by default, at least 1.
package statefulset
