// Package objsrc is what an object read from the server remembers of
// where it came from: the one thing the object model (package api) and
// its decoders (package api/decode) share below their exported APIs.
//
// An api.ObjectMeta holds a Source, so that a read-modify-write can give
// back the fields kcm's structs do not model. The model reads it (Raw,
// Original) and copies it (DeepCopy) without knowing how it was made; the
// decoders make it. A Source has one of four forms:
//
//   - none (the zero Source): an object built in code;
//   - JSON: the object's exact JSON, kept as bytes (RawObjects, and typed
//     objects decoded by decode.Typed);
//   - rebuilt: a pointer and the Rebuilder that turns it back into the
//     JSON, for objects of a cache that do not keep their JSON — a typed
//     object decoded by decode.Compact (the pointer is the object as
//     decoded, its Rebuilder its remainder's) or a RawObject kept as a
//     delta against its family's base (the pointer is that delta);
//   - protobuf: the object's protobuf message (no envelope) kept as
//     bytes, for a RawObject read as application/vnd.kubernetes.protobuf
//     (decode.Wire), or rebuilt — a pointer and a Rebuilder of the
//     message (ProtoRebuilt) — for a cached one kept as a delta against
//     its family's base message. It has no JSON: JSON returns nil, Proto
//     the message.
//
// A Source takes three words, the size of the []byte it replaced, so
// that no object grows: a cache holds millions of them. It is immutable:
// what it points to is never modified.
//
// # Why a package of its own
//
// The decoders set the Source of the objects they decode, which is an
// unexported field of api.ObjectMeta. Exporting a setter from package api
// would offer it to every user of kcm; instead package api hands its
// decoders the field through Of, which this internal package (visible to
// kube/api and the packages below it only) declares and package api sets
// when it is initialised. The decoders import package api, so Of is set
// before any of them runs.
package objsrc
