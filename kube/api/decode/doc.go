// Package decode turns the JSON the apiserver sends into kcm's objects
// (package api), and keeps a large cache of them small.
// It is the engine under the object model: a reader of package api needs
// none of it, a client, a watch decoder or an informer picks one of its
// codecs.
//
// # Where it sits
//
//	rest (LIST, WATCH, writes) ──bytes──▶ Codec[T] ──T──▶ reflector ─▶ deltafifo ─▶ store ─▶ processor
//	                                         │
//	           Typed[api.Pod]()   → *api.Pod, ... (json-iterator, every modelled field)
//	           Compact[api.Pod]() → the same, for caches: shared parts, a remainder instead of the JSON
//	           Raw()              → *api.RawObject (any resource: exact JSON + parsed metadata)
//	           StrippingManagedFields(c): managedFields cut from the bytes first
//
// It imports package api and nothing of HTTP; the cache (store,
// deltafifo, processor) imports neither. Package api does not import it:
// an object remembers where its JSON came from (ObjectMeta.Raw) through
// a small value the decoders set and the model only reads
// (kube/api/internal/objsrc, see "The boundary" below).
//
// # Codecs
//
// A Codec[T] turns the JSON of one object into a T; clients, watch
// decoders and informers take one, so the same code serves every kind.
// The RawObject codec parses only apiVersion, kind and metadata: kcm's
// byte scanner steps over spec and status without tokenising them.
// StrippingManagedFields cuts metadata.managedFields (a large part of an
// object's bytes: see podgen's TestSizes) before decoding.
//
// List and watch decoders hand a codec slices of their read buffers. They
// call Borrowed, which copies the bytes unless the codec implements
// the optional BorrowingDecoder interface — as io.Copy uses io.WriterTo —
// and then decodes without the copy: the stripping codecs copy only the
// bytes they keep. A codec that wraps another keeps that fast path by
// implementing DecodeBorrowed with Borrowed(inner, data).
//
// # Typed objects in a cache: Compact
//
// A typed informer caches what Compact decodes, and a pod cached that way
// holds much less memory than one decoded by Typed (which keeps the
// struct and the whole JSON), and at most half of client-go's with its
// managedFields stripped (TestHeapPerPod in bench/heap_test.go fails
// above it; the figures are in bench/RESULTS.md):
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
// # Typed objects from protobuf
//
// On a client whose ContentType is protobuf, Typed and Compact read a
// built-in kind's message by field number (package protocodec) into the
// same struct their JSON decode gives (typedproto.go; they implement
// ProtoDecoder, and AsProto is true for them). The object's source is
// protobuf (ObjectMeta.IsProto; Raw and Original are nil, OriginalProto
// is the message): Typed keeps the message, its strings pointing into
// it; Compact keeps the message's remainder instead — the fields the
// struct does not model (protocodec.Remainder), none for most objects
// and shared between equal ones, managedFields cut under
// StrippingManagedFields — and rebuilds the message from the struct and
// the remainder (protocodec.Rebuild: the server's message byte for byte,
// checked against kube-apiserver). Compact decodes with a hint — the
// cached version of the object, found by the namespace and name read
// from the message, else the object decoded before — and
// protocodec.UnmarshalRemainder takes the hint's strings, maps, pointees
// and slices wherever they are equal instead of allocating them, and
// writes the remainder in the same walk into a pooled buffer, copied
// only when no equal remainder was seen recently. On the manager
// benchmark's pods as kube-apiserver wrote them (BenchmarkKCMPods, this
// 2-core VM) a LIST item costs 12 µs, 977 B and 4 allocations (the
// struct and its own strings), a watch event of a cached pod 12 µs, 928
// B, 2 allocations; the cached pod keeps about 1010 B of heap. A
// protobuf pod costs about what a JSON one does (BenchmarkCacheDecodePod:
// 15-18 µs against 13-19 as a watch event). kube/rest writes such an
// object back as protocodec.MarshalMerge onto that message, so fields
// kcm does not model are kept.
//
// StatefulSets stay JSON on the typed path (AsProto false, so kube/rest
// asks for JSON), for good: their revisions hold the JSON of the set's
// pod template as kube-controller-manager encodes its Go struct, which
// kcm has only as the apiserver's JSON of the set and cannot write from a
// protobuf message for the fields it does not model (see typedproto.go).
// Deployments and ReplicaSets are read as protobuf: ctrl/deployment and
// ctrl/replicaset compare, hash and copy a template read so as its
// PodTemplateSpec message. A ControllerRevision reads protobuf: its data
// decodes to the bytes the apiserver's JSON gives, so revisions compare
// and hash the same from either wire.
// A typed struct without pb tags (a custom resource's) has no protobuf
// form and reads JSON only.
//
// # RawObjects in a cache: families
//
// The pods of one ReplicaSet are the same JSON but for short values
// (name, uid, resourceVersion, timestamps, IPs, container IDs).
// A RawObject decoded for a cache (managedFields stripped, as informers
// decode) whose metadata names a controller keeps its JSON as a delta
// (delta.go) against its family's base — the JSON of the first member
// decoded, kept whole by that member (family.go). A pod's delta holds
// only the values that differ from the base; Raw rebuilds the exact bytes
// on each call. A member
// too unlike the base (a new template, a family moved on by updates)
// becomes the new base. Bases are found through a table that holds them
// weakly, so a base lives exactly as long as an object written against
// it. Objects without a controller, or decoded without stripping (a GET,
// a write's answer), keep their JSON whole. Label and annotation maps
// shared between RawObjects are held weakly too (intern.go), so updates
// that relabel every pod leave no dead maps behind.
//
// # The boundary
//
// An api.ObjectMeta holds an objsrc.Source: the object's JSON as bytes,
// or a pointer and the Rebuilder that turns it back into the JSON — the
// object as decoded and its remainder's Rebuilder for Compact, a delta
// and the family Rebuilder for a RawObject in a cache. Package api calls
// it in Raw and Original and copies it in DeepCopy; this package makes
// it and sets it through objsrc.Of, which package api provides. The
// field stays unexported, no setter is exported to users of kcm, and the
// Source keeps the three words of the []byte it replaced, so no cached
// object grows. Beyond that this package uses package api's exported API
// and reflection: the typed structs are walked by their layout (schema.go,
// share.go, compiled once per type), unexported fields included — the
// string of an IntOrString is shared like any other, the Source is left
// alone.
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
//   - RawObjects decoded from the same labels or annotations bytes share
//     one map, and the strings of every object's metadata that repeat
//     across a cache (namespaces, label keys and values, owner
//     references) are interned, so the cache pays for each distinct
//     string once; this is why a RawObject is immutable once decoded.
//   - The fast paths decide nothing: what they decline goes to
//     json-iterator, whose results and errors are the codec's (fuzzed:
//     fast path against slow path).
//   - Decoding is case-sensitive, like kube-apiserver's: "Metadata" is not
//     "metadata".
//   - Every error about bytes that cannot be decoded wraps api.ErrDecode.
//
// # Files
//
//	codec.go       Codec, Typed, Raw, StrippingManagedFields, Borrowed, ChecksWholeObject
//	strip.go       StripManagedFields: the cut on the bytes
//	rawdecode.go   the RawObject codec: metadata only, one scan
//	family.go      RawObjects of one controller as deltas against a base
//	delta.go       the delta encoding
//	intern.go      interned metadata strings, shared label and annotation maps
//	compact.go     the Compact codec: fast path, slow path, shared remainders
//	fastdecode.go  the one-pass decoder: objects and keys
//	fastvalues.go  its strings, integers, times, pointers and maps
//	fastarrays.go  its slices
//	schema.go      a Go type as the JSON configuration sees it
//	canonical.go   how the marshaller spells values
//	remainder.go   the remainder: what the struct does not hold
//	remops.go      the remainder's operations, and the rebuild
//	share.go       sharing equal parts between typed objects
//	sharetable.go  the tables of recent values sharing looks parts up in
//	wire.go        ProtoDecoder, AsProto, Wire: the RawObject codec of both encodings
//	typedproto.go  Typed and Compact on protobuf, the protobuf remainders of a cache
//
// # client-go names
//
// Codec ≈ a runtime.Decoder for one type; Raw ≈ decoding into a compact
// unstructured.Unstructured; Compact ≈ what client-go has no equivalent
// of (its caches hold the decoded structs, and a Transform can only drop
// fields); StrippingManagedFields ≈ a Transform that clears
// managedFields, applied to the bytes.
package decode
