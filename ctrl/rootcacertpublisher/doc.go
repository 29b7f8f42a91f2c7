// Package rootcacertpublisher is root-ca-cert-publisher: it keeps a
// ConfigMap named "kube-root-ca.crt" in every namespace whose "ca.crt" key
// holds the CA bundle that verifies the kube-apiserver. Every pod's
// projected service-account volume mounts that ConfigMap, so without it
// no pod in a new namespace can start on a real kubelet.
//
//	Namespace added / updated to Active ──────────┐
//	ConfigMap kube-root-ca.crt updated or deleted ┴──namespace name──▶ queue ──▶ Sync(ns)
//	                                                                                 │
//	   not in the cache  ──▶ POST configmaps kube-root-ca.crt {ca.crt, description annotation}
//	                          (namespace gone or terminating: done, no retry)
//	   data == {ca.crt: CA} and a description annotation ──▶ nothing
//	   otherwise         ──▶ PUT: data replaced by {ca.crt: CA}, the annotation set
//
// The CA is --root-ca-file when given, else the CA the manager's own client
// trusts for the apiserver (ctrl.ControllerContext.RootCA); it is read
// once, when the controller is built.
//
// # Guarantees
//
//   - An edit of kube-root-ca.crt that changes its data (another key, a
//     different ca.crt) or drops the "kubernetes.io/description"
//     annotation is reverted by the next sync; a deleted one is created
//     again. Labels, other annotations and binaryData are left as they are,
//     as kube-controller-manager leaves them.
//   - A namespace that is terminating or gone is not retried: the
//     apiserver's NamespaceTerminating or NotFound answer to the create
//     ends the sync. A conflict or any other failure is retried with the
//     loop's backoff.
//   - Each sync is counted in root_ca_cert_publisher_sync_total and timed
//     in root_ca_cert_publisher_sync_duration_seconds by HTTP code ("200"
//     for a success, the apiserver's code for its error, "500" otherwise),
//     kube-controller-manager's series.
//
// # Kubernetes counterpart
//
// kubernetes/pkg/controller/certificates/rootcacertpublisher Publisher
// (publisher.go, metrics.go), started by kube-controller-manager as
// "root-ca-certificate-publisher-controller" (alias
// "root-ca-cert-publisher") with one worker
// (cmd/kube-controller-manager/app/certificates.go).
package rootcacertpublisher
