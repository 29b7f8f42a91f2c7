// Package kube holds no code: it is the overview of kcm's Kubernetes
// foundation, which lives in four packages so that the import graph tells
// what depends on what. The cache (store, deltafifo, processor) imports
// the object model only and knows nothing of HTTP or kubeconfig files.
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
// Read them in this order:
//
//  1. api — the object model: TypeMeta and ObjectMeta, the Object
//     interface, the compact RawObject for any resource, the typed kinds
//     (Pod, ReplicaSet, Deployment, Lease, ...), the codecs that decode
//     them (Typed, Raw, StrippingManagedFields) and the interning that
//     keeps a large cache small.
//  2. labels — label selectors: parsing the string form, compiling an
//     API LabelSelector, matching, and the canonical String the apiserver
//     accepts.
//  3. rest — the REST client: Config, Client (transport, rate limits,
//     retries), Resources[T] (get, list, watch, create, update, patch,
//     delete), streaming list and watch decoding, typed errors, discovery
//     and merge patches.
//  4. clientcmd — finding a cluster: kubeconfig files, exec credential
//     plugins, the in-cluster service account, rotating token files.
//
// kube/internal/jsonx, shared by api and rest, holds kcm's json-iterator
// configuration and the byte scanner that finds JSON values without
// decoding them.
//
// # client-go names
//
// api ≈ k8s.io/api plus apimachinery's meta/v1 and unstructured; labels ≈
// apimachinery's labels; rest ≈ client-go's rest, the typed clientsets and
// the dynamic client; clientcmd ≈ client-go's tools/clientcmd, with
// rest.InClusterConfig and the exec credential plugin.
package kube
