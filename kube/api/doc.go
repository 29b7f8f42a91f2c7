// Package api is kcm's object model: what a Kubernetes object is once it
// has been read, how its JSON becomes one, and how a cache of a hundred
// thousand of them stays small. It knows nothing of HTTP: the cache
// (store, deltafifo, processor) imports this package and no other part of
// kcm's Kubernetes code.
//
// # Where it sits
//
//	rest (LIST, WATCH, writes) ──bytes──▶ Codec[T] ──T──▶ reflector ─▶ deltafifo ─▶ store ─▶ processor
//	                                         │
//	           Typed[Pod]()   → *Pod, *ReplicaSet, ... (json-iterator, every modelled field)
//	           Compact[Pod]() → the same, for caches: shared parts, a remainder instead of the JSON
//	           Raw()          → *RawObject (any resource: exact JSON + parsed metadata)
//	           StrippingManagedFields(c): managedFields cut from the bytes first
//
// # The object model
//
// Every object implements Object: access to its TypeMeta and ObjectMeta.
// Two kinds of object exist:
//
//   - typed structs (Pod, ReplicaSet, Deployment, Namespace, ServiceAccount,
//     ConfigMap, Node, Lease, ...), decoded with json-iterator, for the
//     fields controllers reason about, with the helpers they use
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
// # Typed objects in a cache: Compact
//
// A typed informer caches what Compact decodes, and a pod cached that way
// holds a third of the memory of one decoded by Typed (which keeps the
// struct and the whole JSON), and about 0.4× client-go's with its
// managedFields stripped (bench/RESULTS.md):
//
//   - no JSON is kept. The remainder (remainder.go) — the members of the
//     JSON the struct does not model, plus the few places where the
//     marshalled struct would read differently — is kept instead, and is
//     usually a few bytes shared by every replica of a workload. Raw
//     rebuilds the JSON as read from the struct and the remainder (keys
//     sorted), so Update after DeepCopy still writes every field back.
//   - parts are shared (share.go): a string, slice, map or pointed-to
//     value equal to the one at the same place in the object decoded
//     before, or to one in small tables of recent values, is that one.
//     Strings and values of fields that never repeat (names, uids, IPs,
//     a pod's conditions) skip the tables. CompactCached, what informers
//     use, compares with the cached version of the same object instead
//     (found by the name the managedFields cut reads): a watch event's
//     object then shares every part it did not change, its own ones too.
//   - the decoder allocates only what is new: an array, or a pointed-to
//     integer or bool, is decoded into scratch memory and copied out
//     only when it differs from the hint's.
//   - one pass over the bytes decodes, shares and writes the remainder
//     (fastdecode.go); json-iterator decodes what that pass declines
//     (duplicate keys, escaped keys, numbers spelt oddly, []byte fields),
//     so errors stay json-iterator's. A typed sync costs less CPU than
//     with Typed, the remainder and sharing included.
//
// Compact objects are read-only in a stronger sense than other cached
// objects: their maps and slices may be another object's too.
//
// # RawObjects in a cache: families
//
// The pods of one ReplicaSet are the same JSON but for a few dozen short
// values (name, uid, resourceVersion, timestamps, IPs, container IDs).
// A RawObject decoded for a cache (managedFields stripped, as informers
// decode) whose metadata names a controller keeps its JSON as a delta
// (delta.go) against its family's base — the JSON of the first member
// decoded, kept whole by that member (family.go). A pod's delta is about a
// tenth of its JSON; Raw rebuilds the exact bytes on each call. A member
// too unlike the base (a new template, a family moved on by updates)
// becomes the new base. Bases are found through a table that holds them
// weakly, so a base lives exactly as long as an object written against
// it. Objects without a controller, or decoded without stripping (a GET,
// a write's answer), keep their JSON whole. Label and annotation maps
// shared between RawObjects are held weakly too (intern.go), so updates
// that relabel every pod leave no dead maps behind.
//
// # Codecs
//
// A Codec[T] turns the JSON of one object into a T; clients, watch
// decoders and informers take one, so the same code serves every kind.
// The RawObject codec parses only apiVersion, kind and metadata: kcm's
// byte scanner steps over spec and status without tokenising them.
// StrippingManagedFields cuts metadata.managedFields (often half an
// object's bytes) before decoding.
//
// List and watch decoders hand a codec slices of their read buffers. They
// call DecodeBorrowed, which copies the bytes unless the codec implements
// the optional BorrowingDecoder interface — as io.Copy uses io.WriterTo —
// and then decodes without the copy: the stripping codecs copy only the
// bytes they keep. A codec that wraps another keeps that fast path by
// implementing DecodeBorrowed with DecodeBorrowed(inner, data).
//
// # Guarantees
//
//   - A Compact object's Raw is the JSON it was decoded from, as parsed
//     JSON: every member, numbers as written (fuzzed against the input;
//     what the remainder cannot describe exactly — a modelled key given
//     twice, an escaped key, invalid UTF-8 — keeps the whole JSON).
//   - A RawObject's Raw and Original are the JSON it was decoded from
//     (managedFields cut when stripped), byte for byte, in the family form
//     too (property-tested over podgen pods at several versions, fuzzed,
//     and checked against the real kube-apiserver in informer's tests).
//   - A RawObject is immutable once decoded: RawObjects decoded from the
//     same labels or annotations bytes share one map, and the strings of
//     every object's metadata that repeat across a cache (namespaces,
//     label keys and values, owner references) are interned, so the cache
//     pays for each distinct string once.
//   - Decoding is case-sensitive, like kube-apiserver's: "Metadata" is not
//     "metadata".
//   - Every error about bytes that cannot be decoded wraps ErrDecode.
//   - Numbers survive RawObject.Edit exactly, int64 beyond 2^53 included.
//
// # client-go names
//
// ObjectMeta, TypeMeta, OwnerReference, Time, MicroTime, LabelSelector ≈
// apimachinery's meta/v1; Pod, ReplicaSet, Deployment, Lease, ... ≈
// k8s.io/api's core/v1, apps/v1 and coordination/v1; RawObject ≈ a compact
// unstructured.Unstructured; Codec ≈ a runtime.Decoder for one type;
// Compact ≈ what client-go has no equivalent of (its caches hold the
// decoded structs, and a Transform can only drop fields);
// DeepCopy ≈ the generated DeepCopy methods.
package api
