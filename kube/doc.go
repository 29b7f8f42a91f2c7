// Package kube holds no code: it is the overview of kcm's Kubernetes
// foundation, which lives in the packages listed below so that the import
// graph tells what depends on what. The cache (store, deltafifo,
// processor) imports the object model only and knows nothing of HTTP or
// kubeconfig files.
//
//	                       kube-apiserver
//	                             ▲ HTTPS: LIST, WATCH (chunked or WebSocket), writes
//	clientcmd ──Config──▶ rest: Client, Resources[T], errors, retries
//	(kubeconfig,               │ decodes with
//	 exec plugins,             ▼
//	 in-cluster)          api: Object, ObjectMeta, RawObject, Pod, ..., Codec[T] ◀── labels: Selector
//	                           ▲                                                     (compiles api.LabelSelector)
//	                           │ imports only api
//	                      store, deltafifo, processor
//
// Read them in this order (TestTableOfContents in the root package fails on
// a package under kube/ that this list leaves out, or names and is gone):
//
//  1. kube/api — the object model: TypeMeta and ObjectMeta, the Object
//     interface, the compact RawObject for any resource, the typed kinds
//     (Pod, ReplicaSet, Deployment, Lease, ...).
//     kube/api/decode — the codecs that decode them (Typed, Raw, Compact,
//     StrippingManagedFields), RawObject families and the interning that
//     keep a large cache small.
//     kube/api/resource — resource.Quantity: quantities parsed, added,
//     compared and printed in apimachinery's canonical form.
//     kube/api/protowire — Kubernetes' protobuf encoding read and written
//     without generated code: the envelope, lists, watch frames, Status,
//     and an object's metadata read by field number (RawObjects on
//     protobuf).
//     kube/api/protocodec — the typed kinds in protobuf: decoded by the
//     field numbers of k8s.io/api, written back by a three-way merge that
//     keeps every field kcm does not model.
//  2. kube/labels — label selectors: parsing the string form, compiling an
//     API LabelSelector, matching, and the canonical String the apiserver
//     accepts.
//  3. kube/rest — the REST client: Config, Client (transport, rate limits,
//     retries), Resources[T] (get, list, watch, create, update, patch,
//     delete), streaming list and watch decoding, typed errors, discovery
//     and merge patches.
//  4. kube/clientcmd — finding a cluster: kubeconfig files, exec credential
//     plugins, the in-cluster service account, rotating token files.
//
// Internal to kube/:
//
//   - kube/api/internal/objsrc — an object's source JSON: the model keeps
//     and copies it, only kube/api/decode sets it.
//   - kube/internal/jsonx — shared by api and rest: kcm's json-iterator
//     configuration and the byte scanner that finds JSON values without
//     decoding them.
//   - kube/internal/redact — the placeholder and fmt.Formatter body with
//     which rest's and clientcmd's types keep secrets out of print.
//   - kube/internal/redact/redacttest — the check their tests run: no
//     exported type prints a secret, by any fmt verb, json or zerolog.
//
// # client-go names
//
// api ≈ k8s.io/api plus apimachinery's meta/v1 and unstructured; labels ≈
// apimachinery's labels; rest ≈ client-go's rest, the typed clientsets and
// the dynamic client; clientcmd ≈ client-go's tools/clientcmd, with
// rest.InClusterConfig and the exec credential plugin.
package kube
