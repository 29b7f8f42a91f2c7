// Package kube is kcm's foundation: how to reach a cluster (Config,
// kubeconfig, in-cluster), how to talk to it (Client, Resources), and what
// comes back (the object model).
//
// # Where it sits
//
//	              ┌──────────────── package kube ────────────────┐
//	kubeconfig ──▶│ Config ──▶ Client (transport, QPS, retries)   │
//	 in-cluster   │              │                                │
//	              │   Resources[T] (get/list/watch/create/update/ │──▶ kube-apiserver
//	              │                patch/delete/finalize)         │
//	              │   Codec[T]: JSON ──▶ *Pod, *RawObject, ...    │
//	              └──────────────────────────────────────────────┘
//	                 ▲ reflector (list+watch)   ▲ controllers (writes)   ▲ lease
//
// # Configuration
//
// BuildConfig finds a cluster the way kube-controller-manager does: an
// explicit --kubeconfig or --master wins, then the pod's service account
// (InClusterConfig), then $KUBECONFIG (several files merged: the first file
// that sets a value wins) and ~/.kube/config (LoadKubeconfig). Contexts,
// CA files or data, insecure-skip-tls-verify (only when set), tls-server-name,
// tokens and rotating token files, client certificates, basic auth and exec
// credential plugins are supported; a malformed file yields a
// KubeconfigError naming the file, the context and the field.
//
// # The object model
//
// Every object implements Object: access to its TypeMeta and ObjectMeta.
// Two kinds of object exist:
//
//   - typed structs (Pod, ReplicaSet, Deployment, Namespace, ServiceAccount,
//     Lease, ...), decoded with json-iterator, for the fields controllers
//     reason about;
//   - RawObject, for any resource including CRDs: the exact JSON plus parsed
//     metadata. It is what the informer cache holds by default, because one
//     byte slice and a small header is far smaller than a decoded struct
//     tree, and every field stays readable.
//
// Objects read from the server remember their raw JSON. That is how kcm
// keeps the promise that a read-modify-write never drops fields it does not
// model: Update merges the caller's typed changes onto the JSON the object
// was read from (a three-way merge, see merge.go), instead of writing the
// typed struct alone. Cached objects are shared: DeepCopy before modifying.
//
// # Guarantees
//
//   - One http.Transport per cluster (HTTP/2 with health pings, keep-alive);
//     clients derived with WithOptions share it and have their own rate
//     limiter and User-Agent, like kube-controller-manager's per-controller
//     clients.
//   - Reads are retried on 429, 5xx and broken connections with backoff that
//     honours Retry-After. Writes are retried only when the server cannot
//     have acted: 429 (rejected before processing) and refused connections.
//   - Server failures are *StatusError values that keep the server's
//     message and match sentinel errors: errors.Is(err, ErrNotFound),
//     IsConflict(err), IsGone(err) (410: resourceVersion expired), ...
//   - Lists can be streamed item by item (ListEach, DecodeList): memory stays
//     flat whatever the size of the list. Watches are pull-based streams over
//     chunked HTTP or WebSocket, with an idle timeout for silent connections.
//   - Secrets (tokens, passwords, keys) never appear in logs, errors or the
//     String/GoString of any type here.
//
// # client-go names
//
// Config ≈ rest.Config; Client + Resources[T] ≈ rest.RESTClient plus the
// typed clientsets and the dynamic client; RawObject ≈ a compact
// unstructured.Unstructured; StatusError ≈ apierrors.StatusError;
// LoadKubeconfig ≈ clientcmd; Selector ≈ labels.Selector.
package kube
