// Package controllerref decides which objects a controller owns: the
// chapter on ownerReferences with controller=true ("controller refs") and
// how a controller adopts and releases its dependents.
//
// # Where it sits
//
// A ReplicaSet's sync lists the pods of its namespace from the cache and
// asks a Manager which of them are its own:
//
//	pods from the lister ──▶ Manager.Claim ──▶ owned pods ──▶ sync counts and scales them
//	                              │
//	                              ├─ orphan matching the selector ──▶ adopt (patch: add controller ref)
//	                              └─ own pod no longer matching   ──▶ release (patch: remove the ref)
//
// The Deployment controller claims ReplicaSets the same way.
//
// # Rules (Kubernetes' pkg/controller ControllerRefManager.ClaimObject)
//
//   - An object whose controller ref names another UID belongs to someone
//     else and is never touched, even if the selector matches.
//   - An object this controller owns stays owned while the selector
//     matches; when it stops matching it is released, unless the
//     controller is being deleted (then the garbage collector decides).
//   - An orphan is adopted only if it matches, is not being deleted, lives
//     in the controller's namespace, and the controller is not being
//     deleted. Before the first adoption the controller is read fresh from
//     the apiserver, uncached: if it is gone, has another UID or is being
//     deleted, nothing is adopted (a stale cache must never make a deleted
//     controller grab pods).
//   - Adoption and release are strategic-merge patches that carry the
//     dependent's UID as a precondition, so that a dependent deleted and
//     recreated under the same name is never patched by mistake. A
//     dependent that is gone (404) or no longer carries the ref (422) is
//     simply not claimed.
//
// # Kubernetes counterparts
//
// Manager is pkg/controller's BaseControllerRefManager with
// PodControllerRefManager and ReplicaSetControllerRefManager folded into
// one generic type; RecheckDeletionTimestamp is the same-named function;
// NewControllerRef is metav1.NewControllerRef.
package controllerref
