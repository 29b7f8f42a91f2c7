// Package protowire is kcm's protobuf wire layer: it reads and writes
// Kubernetes objects in their protobuf encoding,
// application/vnd.kubernetes.protobuf, without generated code — a
// bounds-checked wire reader, the k8s envelope (Unwrap, and Wrap for
// writes), lists (whole, or streamed item by item by ReadList), watch
// frames, metav1.Status failures, and a scanner that reads an object's
// ObjectMeta and keeps the rest of the object as its protobuf bytes.
//
// # Place in the pipeline
//
//	kube-apiserver ──protobuf bytes──▶ kube/rest (negotiation, streams, errors)
//	                                      │ protowire: envelope, ReadList, FrameReader,
//	                                      │            DecodeEvent, DecodeStatus
//	                                      ▼
//	                              decode.ProtoDecoder[T] (decode.Wire: RawObject
//	                              holding its message, metadata by Keep)
//
// kube/rest asks for protobuf where rest.Config.ContentType says so and
// the resource has a protobuf form (rest.Resource.HasProtobuf), reads
// every answer by its Content-Type, and turns a protobuf Status into the
// same *rest.StatusError a JSON one gives. decode.Wire keeps a RawObject's
// protobuf message (Keep, with managedFields dropped for caches), and a
// write of such an object sends it back enveloped (Wrap). bench/ measures
// this package beside kcm's JSON and client-go (bench/protolist.go,
// bench/proto_test.go, bench/proto_integration_test.go).
//
// # Why protobuf
//
// kube-controller-manager does not read JSON for built-in kinds: its
// --kube-api-content-type defaults to application/vnd.kubernetes.protobuf
// (client-go's generated clientsets for built-in types ask for it; custom
// resources have no protobuf form and stay JSON). The protobuf form of a
// pod is smaller than its JSON, as served and with managedFields dropped
// from both (bench/'s BenchmarkProtoWireBytes measures both), cheaper for
// kube-apiserver to write, and — what this package
// exploits — cheap to step over: every
// message is a run of fields that announce their length, so a reader that
// wants only the metadata skips a pod's spec and status in one step
// each, where a JSON reader must look at every byte to find where they
// end.
//
// # The encoding, from the outside in
//
//   - Envelope (envelope.go): every object or list body starts with the
//     magic bytes "k8s\x00" followed by a runtime.Unknown message whose
//     typeMeta says apiVersion and kind and whose raw holds the object's
//     own message. A client needs the envelope because protobuf messages
//     do not name their type.
//   - List (list.go): a ...List message is ListMeta (field 1:
//     resourceVersion, continue, remainingItemCount) and repeated items
//     (field 2), each an object message without an envelope. SplitList
//     cuts the items out without copying them.
//   - Watch (watch.go): a watch stream is length-prefixed frames (4-byte
//     big-endian length); each frame is a metav1.WatchEvent {type,
//     object.raw} written without the envelope, and object.raw is an
//     enveloped object.
//   - Object (meta.go, object.go): field 1 of every object message is
//     its ObjectMeta, whose field numbers are stable API. DecodeMessage
//     reads it into kcm's api.ObjectMeta — the metadata kcm's RawObject
//     exposes — and keeps one copy of the message, made to size, minus
//     metadata.managedFields when asked (as kcm's JSON caches strip it).
//     The metadata's strings point into that copy, so they cost nothing;
//     siblings' equal labels, annotations and owner references share one
//     decoded map or slice (share.go).
//   - Families (family.go, delta.go, Options.FamilyDelta): an object with
//     a controller can be kept as a delta against a sibling's message, as
//     kcm's JSON cache keeps RawObjects; Message rebuilds it. KeepFamily
//     gives the same to a caller that holds the metadata itself: the
//     protobuf RawObjects of a cache decoded by decode.WireFamilies keep
//     a Member and rebuild their message from it.
//
// # Measured (bench/, issue 13)
//
// The figures are in bench/RESULTS.md, section "Protobuf (prototype:
// kube/api/protowire)", not here: the bytes per pod on the wire
// (BenchmarkProtoWireBytes), the CPU and allocations of decoding one pod
// for a cache against kcm's JSON RawObject codec and client-go's
// generated Unmarshal (BenchmarkProtoDecodePod), the heap per cached pod
// with the scan alone and with family deltas (BenchmarkProtoHeap), all in
// bench/proto_test.go, and a LIST of many pods from a real kube-apiserver
// (TestProtoAgainstKubeAPIServer in bench/proto_integration_test.go and
// bench/cmd/protolist). In short: the scan decodes a pod with fewer
// allocations and less CPU than either JSON path, and a protobuf LIST is
// smaller and faster than a JSON one.
//
// All field numbers are those of the .proto files of k8s.io/api and
// k8s.io/apimachinery (v0.34, and v0.37.2 for Status): meta/v1 ObjectMeta, ListMeta,
// OwnerReference, Time, WatchEvent, Status, StatusDetails, StatusCause; runtime Unknown, TypeMeta,
// RawExtension; core/v1 Pod and PodList. Protobuf field numbers are never
// reused or renumbered, which is what lets a reader without generated
// code be correct across releases: a field it does not know is skipped
// by its wire type.
//
// # Guarantees
//
//   - Bad input is an error, never a panic: every read is bounds-checked,
//     and every malformed input gives an error wrapping ErrMalformed and
//     a precise sentinel (ErrTruncated, ErrOverflow, ErrWireType,
//     ErrFieldNumber, ErrDepth, ErrFieldType, ErrMagic, ErrFrameSize,
//     ErrItemSize, ErrTwoLists).
//     The fuzz test holds every entry point to this.
//   - Allocation is bounded by the input: a length is checked against the
//     bytes present before anything is made, and a watch frame's buffer
//     grows with the bytes that arrive, up to a limit (16 MiB, client-go's,
//     unless the caller sets another: kube/rest uses its object limit),
//     not with the length the frame announces. ReadList holds one item
//     at a time under the same rules, and reads every byte once.
//   - Protobuf's rules are kept: unknown fields and groups are skipped; a
//     scalar seen twice takes the last value; an embedded message seen
//     twice is merged (maps add entries, repeated fields append).
//   - Times read as apimachinery reads them: seconds only (nanos are
//     dropped, matching the JSON form), an empty message is the zero time.
//   - Decoded objects are immutable; they share memory with their kept
//     message.
//
// # What it is not
//
// It decodes no spec or status: a typed view (api.Pod from protobuf)
// needs a decoder per kube type, field number by field number
// (kube/api/protocodec). Custom resources have no protobuf form and stay
// JSON; their metadata-only form is protobuf like every resource's.
//
// The client-go/KCM names: k8s.io/apimachinery/pkg/runtime/serializer/
// protobuf (Serializer, RawSerializer, LengthDelimitedFramer) and the
// generated Unmarshal methods of k8s.io/api.
package protowire
