// Package api is kcm's object model: what a Kubernetes object is once it
// has been read. It knows nothing of HTTP, and nothing of how JSON
// becomes an object: the codecs that decode the apiserver's bytes, and
// keep a large cache small, are package decode
// (kube/api/decode), which imports this package and not the other way
// round. The cache (store, deltafifo, processor) imports this package and
// no other part of kcm's Kubernetes code.
//
// # Where it sits
//
//	rest (LIST, WATCH, writes) ──bytes──▶ decode.Codec[T] ──T──▶ reflector ─▶ deltafifo ─▶ store ─▶ processor
//	                                                        │
//	                         T is *Pod, *ReplicaSet, ... or *RawObject: this package
//
// # The object model
//
// Every object implements Object: access to its TypeMeta and ObjectMeta.
// Two kinds of object exist:
//
//   - typed structs (Pod, ReplicaSet, Deployment, Namespace, ServiceAccount,
//     ConfigMap, Node, Lease, ResourceQuota, ...), with the JSON tags of k8s.io/api, for
//     the fields controllers reason about, with the helpers they use
//     (IsPodReady, GetPodCondition, IntOrString.ScaledValue, ...);
//   - RawObject, for any resource including CRDs: the exact JSON plus
//     parsed metadata. It is what the informer cache holds by default,
//     because one byte slice and a small header is far smaller than a
//     decoded struct tree, and every field stays readable.
//
// Objects read from the server remember their raw JSON (ObjectMeta.Raw).
// That is how kcm keeps the promise that a read-modify-write never drops
// fields it does not model: rest's Update merges the caller's typed changes
// onto the JSON the object was read from, instead of writing the typed
// struct alone. Cached objects are shared: DeepCopy before modifying.
//
// An object that does not keep its JSON — one of a cache, decoded by
// decode.Compact or kept as a delta against a sibling's — rebuilds it in
// Raw and Original: the ObjectMeta holds what the decoder left it
// (kube/api/internal/objsrc), and this package only reads and copies it.
//
// An object read as protobuf (ObjectMeta.IsProto: a RawObject, or a
// typed object of a built-in kind read by a protobuf client) has no
// JSON: Raw and Original are nil, and OriginalProto gives the message it
// was read from (rebuilt, for a cache's), onto which rest's writes merge
// the caller's changes.
//
// # Guarantees
//
//   - Raw and Original give the JSON the object was read from (what that
//     means for each decoder: package decode), or nil for an object built
//     in code or read as protobuf; OriginalProto the protobuf message;
//     DeepCopy's copy still gives them, however the copy changes.
//   - A RawObject is immutable once decoded (decoded RawObjects share
//     maps and strings: package decode); Edit returns a new one.
//   - Numbers survive RawObject.Edit exactly, int64 beyond 2^53 included.
//   - Every error about bytes that cannot be decoded wraps ErrDecode.
//   - KindOf names the kind of every typed struct; CompareResourceVersion
//     orders resourceVersions as apimachinery does.
//
// # Files
//
//	meta.go                TypeMeta, ObjectMeta, OwnerReference, Object, TypedPtr, Time, MicroTime
//	object.go              RawObject: any resource, its JSON and parsed metadata; ErrDecode
//	deepcopy.go            DeepCopy
//	kinds.go               KindOf
//	resourceversion.go     CompareResourceVersion
//	types_common.go        the value types kinds share (IntOrString, LabelSelector, Container, Volume, ...)
//	types_core.go          Pod, Namespace, ServiceAccount, ConfigMap, Node, CoreEvent
//	types_core_affinity.go a pod's inter-pod affinity (the CrossNamespacePodAffinity quota scope)
//	types_core_service.go  Service, Endpoints
//	types_core_pvc.go      PersistentVolumeClaim
//	types_core_quota.go    ResourceQuota, ScopeSelector
//	types_core_secret.go   Secret, the service-account token Secret's type, annotations and keys
//	types_discovery.go     EndpointSlice (discovery.k8s.io/v1)
//	types_apps.go          ReplicaSet, Deployment
//	types_apps_statefulset.go  StatefulSet, ControllerRevision, RawExtension
//	types_coordination.go  Lease
//	types_resource_dra.go  ResourceClaim, DeviceClass (resource.k8s.io/v1, what quota reads)
//	taints.go              taint effects, well-known node taint keys, toleration matching (ToleratesTaint, MatchTaint)
//	internal/objsrc        the Source an ObjectMeta keeps, shared with package decode
//
// # client-go names
//
// ObjectMeta, TypeMeta, OwnerReference, Time, MicroTime, LabelSelector ≈
// apimachinery's meta/v1; Pod, ReplicaSet, Deployment, Lease, ... ≈
// k8s.io/api's core/v1, apps/v1 and coordination/v1; RawObject ≈ a compact
// unstructured.Unstructured; DeepCopy ≈ the generated DeepCopy methods.
// The codecs' names are in package decode.
package api
