// Package protocodec reads and writes kcm's typed objects (package api:
// Pod, ReplicaSet, Deployment, ...) in their protobuf encoding, the form
// kube-apiserver serves as application/vnd.kubernetes.protobuf, without
// generated code: the struct tags `pb:"N"` of package api name each
// modelled field's number, and this package walks the structs by
// reflection, compiled once per type and cached.
//
// # Where it sits
//
//	rest (protobuf LIST, WATCH, GET) ─ envelope, list items ─▶ message bytes
//	                                                              │
//	      Unmarshal(msg, &pod)  ◀─────────────────────────────────┘  typed decoders (decode.ProtoDecoder)
//	      MarshalMerge(msg, before, after) ─▶ message bytes ─▶ rest Update/UpdateStatus (enveloped)
//	      Marshal(&pod) ─▶ message bytes ─▶ rest Create
//
// It sees one object's message: no envelope (runtime.Unknown), no list,
// no watch frame: kube/api/protowire and kube/rest handle those. It imports
// package api and nothing of HTTP.
//
// # The tags
//
// `pb:"N"` is the field number of k8s.io/api's .proto; `pb:"1.2"` is
// field 2 of the message in field 1, for a member that upstream keeps in
// an inline-embedded message and kcm's struct holds directly (Probe's
// handler, a Volume's source, the LocalObjectReference of a
// ConfigMapKeySelector); `pb:"N,quantity"` marks a string that holds a
// resource.Quantity, whose protobuf form is a message {1: string}
// (api.ResourceList values are quantities by their type). A field
// without a tag (TypeMeta, which is not in the message) is not encoded.
// ObjectMeta and OwnerReference, declared in meta.go, get their numbers
// from this package (externalTags). TestTagsMatchUpstream checks every
// tag, field by field from each kind, against the protobuf tags of
// k8s.io/api and k8s.io/apimachinery v0.37.2 (testdata/pbtags.txt,
// printed by the throw-away module in testdata/pbgen).
//
// The special types and their messages: api.Time and api.MicroTime are
// meta/v1 Timestamp {1: seconds, 2: nanos} (Time drops the nanoseconds,
// as apimachinery does, and an empty message is the zero time);
// api.IntOrString is {1: type, 2: intVal, 3: strVal}; api.RawExtension is
// {1: raw}; maps are repeated entries {1: key, 2: value}.
//
// # Guarantees
//
//   - Unmarshal(msg) gives what kcm's JSON decoding gives for the same
//     object's JSON (reflect.DeepEqual): tested on objects of every kind
//     marshalled by k8s.io/api's generated code to both forms
//     (testdata/vectors), and on objects read back from a real
//     kube-apiserver as protobuf and as JSON (apiserver_test.go). One
//     difference is the encoding's own: TypeMeta is in no protobuf
//     message, so a StatefulSet's volumeClaimTemplates, which the
//     apiserver's JSON gives an apiVersion and kind, have none (as for
//     client-go reading protobuf).
//   - Protobuf's reading rules: unknown fields (of any wire type, groups
//     included) are skipped; the last of a repeated scalar wins; a message
//     given twice is merged; repeated fields append; repeated integers are
//     read packed or unpacked.
//   - Marshal writes as the generated code does (field order, non-pointer
//     fields always, map entries in key order): Marshal of a decoded
//     object is upstream's message less the fields kcm does not model.
//   - MarshalMerge(orig, before, before) == orig, byte for byte; every
//     field kcm does not model is kept as in orig, at every depth
//     (unknown field numbers of every wire type injected into a pod, its
//     metadata, spec, containers, probe handler, volume source, status,
//     conditions, and a Deployment's template, survive a change
//     elsewhere); unchanged elements of a repeated message keep their
//     bytes; a change gives the bytes upstream's code gives for the same
//     change (33 changes over 20 vectors); and kube-apiserver, sent
//     MarshalMerge's message as a protobuf PUT (spec and status), keeps
//     every field but the caller's changes.
//   - A repeated message whose length changed is written from after alone,
//     so the unmodelled fields of its elements go, as with kube/rest's JSON
//     merge.
//   - Hostile bytes are an error, never a panic: every read is
//     bounds-checked, lengths are checked against the bytes present before
//     anything is allocated, and groups nest at most 64 deep (fuzzed).
//     Every error about bytes wraps api.ErrDecode; a type without a
//     protobuf form gives ErrNoProtobuf. MarshalMerge checks the framing of
//     all of orig but the types only of the fields it rewrites: orig is
//     meant to be what before was decoded from.
//   - Rebuild(Marshal(Unmarshal(msg)), Remainder(msg)) == msg, byte for
//     byte, for messages as upstream's code writes them (every vector,
//     with unknown fields injected at every depth, and objects read from
//     kube-apiserver in kube/rest's tests); for others, the same object
//     with the same unknown fields.
//   - Field(msg, path...) is the payload of the sub-message at path, as
//     read (a concatenation when given several times); SetField writes
//     one there with every other field's bytes kept and the enclosing
//     lengths rewritten: on a message in field order it gives upstream's
//     Marshal of the same change (a Deployment's template replaced).
//   - Unmarshal copies what it keeps; UnmarshalAliasing points the strings
//     into msg instead (no allocation per string), for a caller that keeps
//     msg unmodified anyway.
//   - UnmarshalSharing decodes as Unmarshal does but takes from a hint (the
//     object decoded before, or the cached version) every string, map,
//     pointee and slice equal to the hint's at the same place instead of
//     allocating its own; equal memory is the test, so what it takes is
//     equal (TestUnmarshalSharing*, and FuzzUnmarshal against Unmarshal).
//   - UnmarshalRemainder also writes the remainder in the same walk, the
//     bytes AppendRemainder (Remainder into a caller's buffer) writes;
//     RemainderOptions.DropManagedFields leaves metadata.managedFields out
//     as protowire.StripManagedFields would.
//
// # Files
//
//	schema.go     the pb tags compiled: messages, fields, kinds, the tags of meta.go's structs
//	unmarshal.go  Unmarshal, UnmarshalAliasing, the decoding walk (and the remainder it writes)
//	unmarshalshare.go UnmarshalSharing: decoding with a hint, scratch memory, pooled decoders
//	specials.go   the messages of Quantity, Time, MicroTime, IntOrString, RawExtension
//	marshal.go    Marshal
//	merge.go      MarshalMerge and the comparison by encoding
//	access.go     typed access to special values and maps through their address
//	wire.go       varints, keys, lengths, skipping a field
//	remainder.go  Remainder, AppendRemainder, UnmarshalRemainder and Rebuild: what a cache keeps of a message besides the struct
//	has.go        HasProtobuf: whether a struct type has a protobuf form
//	submsg.go     Field and SetField: a sub-message by its path of field numbers, read and replaced
//
// # client-go names
//
// Unmarshal and Marshal ≈ the generated Unmarshal and Marshal methods of
// k8s.io/api's types (generated.pb.go), which drop unknown fields;
// MarshalMerge has no client-go counterpart: client-go writes the whole
// object it decoded, so fields newer than its types are lost on update,
// which kcm's read-modify-write must not do.
package protocodec
