// Package namespace is the namespace controller: it empties namespaces
// that are being deleted and then lets kube-apiserver remove them.
//
// Deleting a namespace does not delete it at once. kube-apiserver sets its
// deletionTimestamp and phase Terminating, refuses new objects in it, and
// keeps it while spec.finalizers is not empty — and every namespace is
// created with spec.finalizers ["kubernetes"]. Removing that finalizer is
// this controller's job, once the namespace's content is gone. Without the
// controller a deleted namespace stays Terminating forever, with all its
// objects.
//
//	Namespace added/updated/resynced, being deleted ──(after 5 s)──▶ queue ──▶ Sync(name)
//	                                                                          │
//	GET namespace (fresh, not the cache) ── gone, not deleted, finalized ──▶ done
//	phase ≠ Terminating ──▶ PUT namespaces/<name>/status
//	discovery: every namespaced type that supports delete
//	pods first: estimate the grace periods still owed, deletecollection,
//	            list what is left ── pods left ──▶ write conditions, come back later
//	every other type: deletecollection (or list + delete each), list what is left
//	PUT namespaces/<name>/status: the five conditions, if they changed
//	content left ──▶ come back after estimate/2 + 1 s
//	nothing left ──▶ PUT namespaces/<name>/finalize without "kubernetes"
//	                 (kube-apiserver then deletes the namespace)
//
// One concept per file: controller.go (descriptor, flags, handlers,
// Sync), deleter.go (the pass over one namespace: phase, content,
// finalize, conflicts), content.go (one resource type: estimate, delete,
// check), resources.go (which types discovery offers for deletion) and
// conditions.go (the status conditions, a pure function of what the pass
// saw).
//
// # Guarantees
//
//   - Nothing is finalized while anything is left: the finalize request is
//     sent only after a pass in which every type was deleted and listed
//     empty (or cannot be listed), with no error.
//   - Pods go first; nothing else is deleted while a pod remains, so what
//     a terminating pod uses outlives it.
//   - Only the "kubernetes" finalizer is removed; other spec.finalizers
//     are left to their owners. A write that conflicts is retried on a
//     fresh read of the same namespace (same UID); a namespace deleted and
//     created again under the same name is never finalized by mistake.
//   - Every delete asks for propagationPolicy Background: the controller
//     deletes all content itself, so no orphan finalizer may hold it.
//   - Content still terminating is not an error: the namespace comes back
//     after half the estimate plus a second — the longest grace period of
//     a running pod that has not elapsed since the deletion, or 15 s
//     (FinalizerEstimate) for objects held by finalizers. A failure (a
//     403, a discovery error) is an error: retried with backoff, at least
//     once a minute (RateLimiter), and shown in the conditions.
//   - The controller needs object bodies of no type: it lists and deletes
//     metadata only (PartialObjectMetadata), and reads pods in full only to
//     estimate their grace periods.
//
// # Conditions
//
// Each pass that reaches the content writes all five conditions, in this
// order, True with a failure reason or False with a success reason, with
// Kubernetes v1.37's reasons and messages word for word:
//
//	NamespaceDeletionDiscoveryFailure            DiscoveryFailed / ResourcesDiscovered
//	NamespaceDeletionGroupVersionParsingFailure  GroupVersionParsingFailed / ParsedGroupVersions
//	NamespaceDeletionContentFailure              ContentDeletionFailed / ContentDeleted
//	NamespaceContentRemaining                    SomeResourcesRemain / ContentRemoved
//	NamespaceFinalizersRemaining                 SomeFinalizersRemain / ContentHasNoFinalizers
//
// An error's text in a condition is the apiserver's message (`configmaps
// is forbidden: User "..." cannot deletecollection resource ...`), as
// client-go prints a refusal. While pods remain, Kubernetes writes the
// conditions without the content totals, so NamespaceContentRemaining
// reads False then; kcm writes what Kubernetes writes.
//
// # Kubernetes counterpart
//
// kubernetes/pkg/controller/namespace NamespaceController and its
// deletion.namespacedResourcesDeleter (namespaced_resources_deleter.go,
// status_condition_utils.go), registered in kube-controller-manager as
// "namespace-controller" with the alias "namespace",
// --concurrent-namespace-syncs (10) workers and --namespace-sync-period
// (5m) as the resync period of its handler; its client has 20 times
// --kube-api-qps and 100 times --kube-api-burst. Deliberate differences:
//
//   - Kubernetes reads the verbs of each type once, at start-up (its
//     operation cache, exiting when discovery finds nothing), and learns
//     of types added later only from 405 answers; kcm uses the verbs of
//     each pass's discovery, so a type added later is handled from its
//     first pass and start-up does not depend on discovery.
//   - Discovery is kcm's (rest.Client.ServerPreferredResources: the
//     preferred version of each group, read group by group); Kubernetes'
//     also keeps a resource found only in a group's non-preferred version,
//     and reads aggregated discovery, whose failure for a group says
//     "stale GroupVersion discovery" where kcm shows the group's own
//     error.
//   - After writing the conditions, kcm finalizes with the namespace the
//     status write returned; Kubernetes finalizes with the copy it read
//     before, gets a Conflict and reads again. Same result, one round trip
//     fewer.
//   - A pass that leaves content resets the namespace's retry backoff
//     (ctrl.Result.RequeueAfter); Kubernetes' queue keeps counting. The
//     next error's backoff starts at 5 ms instead of where it was.
//
// Kubernetes v1.37 deletes no namespace itself (its deleteNamespaceWhenDone
// mode, with a UID precondition, is gone): kube-apiserver removes the
// namespace when the finalize leaves nothing, and neither controller sends
// a delete with a UID precondition.
package namespace
