// Package clientbuilder gives each controller a client that authenticates
// as its own ServiceAccount: kcm's --use-service-account-credentials.
//
// kube-controller-manager run with --use-service-account-credentials (as
// kubeadm runs it) builds every controller's client from an anonymous copy
// of its own config plus a bearer token of the ServiceAccount
// kube-system/<name>, where name is what the controller asks its client
// for ("replicaset-controller", "generic-garbage-collector",
// "node-controller", ...). Each cluster's RBAC bootstrap policy binds that
// account to the ClusterRole system:controller:<name>, so every controller
// gets exactly its own rights and the apiserver's audit log says which
// controller wrote what.
//
//	ctrl.ControllerContext.ClientFor("replicaset-controller")
//	        │
//	        ▼
//	Builder.Client ── anonymous transport (no client certificate) ──▶ kube-apiserver
//	        │ Authorization: Bearer <token>
//	        ▼
//	TokenSource("replicaset-controller") ── kcm's own client ──▶ GET / POST serviceaccounts
//	                                                       └──▶ POST serviceaccounts/<name>/token
//
// # Guarantees
//
//   - A token comes from the TokenRequest API (authentication.k8s.io/v1
//     TokenRequest on serviceaccounts/<name>/token) for one hour
//     (DefaultExpiration), with no audience, so it is valid for the
//     apiserver's own audiences, and bound to no object.
//   - It is replaced before it expires: once 80 % of its lifetime has
//     passed (kube-controller-manager keeps a leeway of 20 %), its
//     lifetime counted from the apiserver's expirationTimestamp and taken
//     as at least 10 minutes when that is sooner (clock skew), as
//     kube-controller-manager does. Time is the injected clock's.
//   - The ServiceAccount is created when it is missing (and its namespace
//     tried first if that is missing), before every TokenRequest, as
//     kube-controller-manager does; the manager's own identity needs
//     get and create on serviceaccounts and create on serviceaccounts/token
//     in kube-system for that.
//   - One token per ServiceAccount, however many clients use it (the node
//     lifecycle and taint eviction controllers share "node-controller");
//     one TokenRequest at a time per account, waiting requests giving up
//     with their context.
//   - A 401 answer drops the token: the request is sent once more with a
//     new one. A refresh that fails keeps the old token while the
//     apiserver still accepts it (until its expirationTimestamp) and logs
//     a warning; after that the request fails, and the controller retries
//     it with its own backoff.
//   - The clients share one transport of their own, which presents no
//     client certificate: the apiserver takes a certificate before any
//     token, so a controller would otherwise act as the manager.
//
// # Kubernetes counterpart
//
// k8s.io/controller-manager/pkg/clientbuilder DynamicControllerClientBuilder
// (NewDynamicClientBuilder), as kube-controller-manager's createClientBuilders
// sets it up; TokenSource is its tokenSourceImpl behind client-go's cached,
// resettable token source. kube-controller-manager retries a failed
// TokenRequest four times with a backoff inside the request; kcm fails the
// request and leaves the retry to the controller's queue.
package clientbuilder
