// Package replicaset is the ReplicaSet controller: it keeps, for every
// ReplicaSet, spec.replicas running copies of its pod template, and
// reports in its status how many there are, how many are Ready and how
// many have been Ready long enough to count as available.
//
// # The idea
//
// A ReplicaSet does not list "its" pods by name. It owns the pods that
// carry a controller ownerReference to it (its UID), and it adopts
// matching pods that have no controller. Each sync compares the owned
// active pods with the desired count and writes the difference: create
// missing pods from the template, delete the surplus, the least valuable
// first. Because the controller reads pods from a cache that lags its own
// writes, it remembers what it has just written (expectations) and does
// not act again until the cache has caught up.
//
// # Where it sits
//
//	ReplicaSet informer ─ add/update/delete ──────────────────┐
//	Pod informer ─ add: CreationObserved(owner) ──────────────┤
//	             ─ update: owner(s); +minReadySeconds+1s when ├─ "ns/name" ─▶ ctrl.Loop ─▶ Sync
//	               a pod turns Ready                          │
//	             ─ delete: DeletionObserved(owner, pod) ──────┘
//	             ─ orphan add/relabel: every ReplicaSet whose selector matches
//
//	Sync(key):
//	  a cache older than this controller's last write for key ─▶ skip, Requeue (backoff)
//	  ReplicaSet gone            ─▶ forget its expectations and writes
//	  selector invalid           ─▶ log; wait for the object to change
//	  pods of the namespace ─ active only (not terminal, not being deleted)
//	                        ─ claim (ctrl/controllerref): adopt orphans, release non-matching
//	  expectations satisfied and not being deleted ─▶ manageReplicas
//	        too few:  POST pods in slow-start batches 1, 2, 4, … (≤ 500 per sync)
//	        too many: DELETE the first n in deletion order, all at once
//	  calculateStatus ─▶ PUT .../replicasets/<name>/status if it changed
//	  RequeueAfter: when the next Ready pod reaches minReadySeconds
//
// One concept per file: controller.go (Descriptor, New, Sync, claiming),
// handlers.go (informer handlers), manage.go (manageReplicas,
// slowStartBatch, pod writes and their events), rank.go (the deletion
// order), podtemplate.go (a pod from the template's raw JSON or protobuf
// message), status.go
// (calculateStatus, updateStatus, the availability requeue).
//
// # Guarantees
//
//   - No double creation: before writing, the controller expects exactly
//     the creations or deletions it is about to make; a sync only manages
//     replicas once every expected write was observed by the informer (or
//     ctrl.ExpectationsTimeout passed). Writes that failed or were skipped
//     are subtracted at once, since they will never be observed.
//   - Deletions are tracked by pod key, so the update that sets a pod's
//     deletionTimestamp and the final delete count once.
//   - A failing create stops the slow start at its batch: a quota or an
//     admission webhook refusing every pod costs one request, not
//     spec.replicas; the sync returns the error and the loop retries with
//     backoff.
//   - Pods are created from the template exactly as the apiserver stored
//     it: the spec is copied byte for byte from the ReplicaSet as read —
//     its raw JSON into a JSON body, or, for a ReplicaSet read as
//     protobuf, its template's PodSpec message into a protobuf Pod body
//     (newPodProto) — so fields kcm's types do not model reach the pods.
//     The metadata is kcm's (GetPodFromTemplate's copy) in either form.
//   - The status is written through the status subresource, only when it
//     changed, with observedGeneration; a failed write is retried once on
//     a fresh read.
//   - Only the claimed pods are touched: another controller's pod is never
//     deleted or counted, even if the selector matches.
//   - No sync on a cache that has not shown the controller its own last
//     write (the stale-controller check, KEP-5647): each pod created, each
//     pod adopted and each status written records its resourceVersion for
//     the ReplicaSet (ctrl.Consistency); a sync of that ReplicaSet is
//     skipped, asking the loop to retry after its backoff, while the pod
//     or ReplicaSet cache is older (Informer.LastStoreSyncResourceVersion),
//     and counted in replicaset_controller_stale_sync_skips_total{group,
//     resource}. Expectations cover creations and deletions only; this
//     also covers status updates and adoptions. Deletions record nothing
//     (a DELETE answers no resourceVersion), as in Kubernetes.
//
// # Behaviour matched with kube-controller-manager 1.37
//
//   - Events (source component "replicaset-controller") on the
//     ReplicaSet: Normal SuccessfulCreate "Created pod: <name>", Warning
//     FailedCreate "Error creating: <apiserver message>", Normal
//     SuccessfulDelete "Deleted pod: <name>", Warning FailedDelete "Error
//     deleting: <apiserver message>". No event when the namespace is being
//     terminated, nor for a pod already gone.
//   - The ReplicaFailure condition: True with reason FailedCreate or
//     FailedDelete and the error as message when manageReplicas fails and
//     the condition is absent (an existing one is left as is); removed by
//     the next successful sync. A failed delete reads "unable to delete
//     pods: <apiserver message>".
//   - Deletion order (ActivePodsWithRanks with PodDeletionCost and
//     LogarithmicScaleDown on): unscheduled < scheduled; Pending < Unknown
//     < Running; not Ready < Ready; lower pod-deletion-cost; more active
//     pods of the same owner (the Deployment's ReplicaSets) on the node;
//     Ready for less time; more container restarts (sidecars break ties);
//     newer — ages compared in log2 buckets, ties by UID.
//   - status.terminatingReplicas counts the claimed pods being deleted
//     that are not terminal yet (the DeploymentReplicaSetTerminatingReplicas
//     gate: alpha and off in 1.34, beta and on by default since 1.35);
//     such pods are counted, never adopted, and are not replicas.
//   - An invalid selector is logged and the key dropped without an event,
//     as Kubernetes does. kcm also refuses a missing selector (Kubernetes
//     would read it as "nothing" and create pods forever; the apiserver
//     never stores one).
//   - Availability: Kubernetes re-syncs minReadySeconds+1s after a pod
//     turns Ready (kcm too, in the pod handler) and, as a last resort, a
//     full minReadySeconds after a sync that found all pods Ready but not
//     all available. kcm's sync instead asks to run again exactly when the
//     next Ready pod reaches minReadySeconds, so availableReplicas moves at
//     that moment whatever the other pods do.
//
// A stale-cache skip is a Requeue, not an error: kube-controller-manager
// returns its ConsistencyError, which logs an error line ("sync ... failed
// with read version: ...") for what is normal operation; kcm logs it at
// debug level and counts it under controller_runtime_reconcile_total's
// result "requeue". The retry timing is the same: the rate limiter's
// backoff. The StaleControllerConsistencyReplicaSet gate is at its
// default, on (kcm has no --feature-gates); Config.NoStaleCheck turns it
// off.
//
// # Kubernetes counterparts
//
// pkg/controller/replicaset: ReplicaSetController (Controller),
// syncReplicaSet (Sync), manageReplicas, calculateStatus,
// updateReplicaSetStatus (updateStatus), slowStartBatch, getPodsToDelete
// (podsToDelete), getIndirectlyRelatedPods (relatedPods); from
// pkg/controller: ActivePodsWithRanks.Less (deleteBefore),
// GetPodFromTemplate (newPodJSON, newPodProto), RealPodControl's CreatePods and
// DeletePod (createPod, deletePod), FilterActivePods, BurstReplicas,
// SlowStartInitialBatchSize. Registered in kube-controller-manager as
// "replicaset-controller" (alias "replicaset") with
// --concurrent-replicaset-syncs workers, 5 by default.
package replicaset
