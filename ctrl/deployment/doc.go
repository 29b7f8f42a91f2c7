// Package deployment is the Deployment controller: it turns a
// Deployment's pod template and replica count into ReplicaSets, one per
// template, and moves replicas from the old ones to the new one as the
// Deployment's strategy says.
//
// # Concept
//
// A Deployment never makes pods. Each distinct template it has had lives
// on as a ReplicaSet named <deployment>-<pod-template-hash>, whose labels,
// selector and template carry the label pod-template-hash=<hash> so that
// sibling ReplicaSets never select each other's pods. The ReplicaSet
// controller makes the pods; this controller only sizes ReplicaSets and
// reads their status back.
//
// The "new" ReplicaSet is the one whose template equals the Deployment's
// with the hash label ignored (EqualIgnoreHash), compared as the apiserver
// sent it — its JSON, or, when the controller reads protobuf (the
// manager's default), its PodTemplateSpec message (EqualIgnoreHashProto:
// the bytes less the hash label) — not the one whose name carries
// today's hash. So a
// rollback (the user restoring an old template) reuses the old
// ReplicaSet, and kcm taking over ReplicaSets that kube-controller-manager
// created (whose hash kcm computes differently, see ComputeHash) starts no
// rollout. Two templates are equal as Kubernetes' semantic equality holds
// their Go values equal: null and [] are nothing, but an empty object is
// a value ("securityContext": {} is not "no securityContext"). A new
// ReplicaSet gets the Deployment's template as the apiserver sent it,
// member for member (JSON) or byte for byte (protobuf, the hash label
// added as upstream's Marshal adds it), and a rollback gives the
// Deployment the ReplicaSet's the same way, so the two compare equal in
// kube-controller-manager and kubectl too (hash.go, hashproto.go). A
// template read as JSON and one read as protobuf are never compared
// (ErrMixedEncodings: one client reads both kinds); one built in code
// compares with either.
//
// # Place
//
//	Deployment add/update/delete ─┐
//	ReplicaSet add/update/delete ─┼─key─▶ queue ──▶ Sync(key)
//	Pod delete (Recreate)        ─┘                  │
//	   claim ReplicaSets (adopt/release, ctrl/controllerref)
//	   ├─ being deleted      ──▶ status only
//	   ├─ paused             ──▶ scale (sync), no rollout
//	   ├─ rollback requested ──▶ copy the old template back
//	   ├─ scaling event      ──▶ scale: proportional across active ReplicaSets
//	   └─ rollout            ──▶ Recreate: old to 0, wait for old pods, new up
//	                             RollingUpdate: new up to maxSurge, old down to maxUnavailable
//	   then status: counters, Available, Progressing (progress deadline → requeue)
//
// One concept per file: template.go (a template as read, in its
// encoding), hash.go (template JSON, EqualIgnoreHash, ComputeHash),
// hashproto.go (template message, EqualIgnoreHashProto,
// ComputeHashProto), fenceposts.go (maxSurge/maxUnavailable, NewRSNewReplicas),
// replicasets.go (new and old, counts, orders, revisions), annotations.go,
// newrs.go (finding and creating the new ReplicaSet), scale.go, rolling.go,
// recreate.go, cleanup.go (revisionHistoryLimit), progress.go
// (Progressing), status.go (counters, Available), rollback.go,
// handlers.go, controller.go (Descriptor, Sync), names.go (the labels and
// annotations kube-controller-manager writes, which kcm writes too).
//
// # Guarantees
//
//   - A rolling update never has more than spec.replicas+maxSurge replicas
//     in its ReplicaSets' specs, and never scales old ReplicaSets below
//     what keeps spec.replicas-maxUnavailable available, counting only
//     replicas the ReplicaSets report available.
//   - Recreate creates or scales up the new ReplicaSet only once no old
//     ReplicaSet reports replicas and no pod of an old one is running.
//   - Writes never drop fields kcm does not model: ReplicaSets are created
//     from the Deployment's template JSON or message, rollbacks write the
//     ReplicaSet's template JSON or message into the Deployment's, and
//     updates go through rest.Resources.Update's three-way merge onto the
//     cached JSON or message.
//   - A failing sync is retried with backoff, at most MaxRetries times
//     until the Deployment's next event; a namespace being deleted is not
//     an error.
//
// # Differences from kube-controller-manager
//
//   - The pod-template-hash values differ (see ComputeHash), and depend on
//     the encoding kcm reads (ComputeHashProto); matching is by template,
//     so both controllers, and kcm on either encoding, agree on which
//     ReplicaSet is new.
//   - The pod-delete handler reads ReplicaSets from the cache instead of
//     listing them from the apiserver.
//   - A progress deadline less than a second away is re-checked after one
//     second rather than through the rate limiter.
//   - Within one sync, a status write carries the returned
//     resourceVersion into the next write instead of conflicting with it.
//
// # Kubernetes counterparts
//
// pkg/controller/deployment: DeploymentController (Controller and
// handlers), syncDeployment (Sync), rolloutRolling, rolloutRecreate,
// sync and scale, getAllReplicaSetsAndSyncRevision, getNewReplicaSet,
// syncRolloutStatus, syncDeploymentStatus, calculateStatus,
// cleanupDeployment, rollback; pkg/controller/deployment/util:
// ResolveFenceposts, MaxSurge, MaxUnavailable, NewRSNewReplicas,
// IsSaturated, EqualIgnoreHash, GetReplicaSetProportion. Registered in
// kube-controller-manager as "deployment-controller" (alias "deployment")
// with --concurrent-deployment-syncs=5.
package deployment
