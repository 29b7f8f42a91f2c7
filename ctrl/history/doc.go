// Package history is the chapter on ControllerRevisions: how a controller
// that rolls pods from one template to the next (the StatefulSet
// controller; upstream also the DaemonSet controller) records every
// template it has had, names and numbers each record, and recognises a
// template it has seen before.
//
// # Concept
//
// A ControllerRevision is an immutable snapshot (Data) of a parent's
// template with a revision number. A StatefulSet's snapshot is a
// strategic-merge patch that puts its pod template back (StatefulSetPatch):
//
//	{"spec":{"template":{"$patch":"replace","metadata":{...},"spec":{...}}}}
//
// The revision is named <parent>-<hash> (RevisionName), the hash taken
// over the patch's bytes and the parent's status.collisionCount (Hash),
// and carries the hash in its controller.kubernetes.io/hash label. Each
// pod records the name of the revision it was made from in its
// controller-revision-hash label, and status.currentRevision and
// updateRevision name revisions too. Two revisions are the same revision
// when their data are the same bytes (EqualRevision): so the patch must be
// byte for byte what kube-controller-manager writes, or a controller
// taking a StatefulSet over from it would see a new template, create a
// revision and roll every pod. That is the rule this package exists for.
//
// A controller proposes each revision with the collision count it read
// from its parent's status, nil read as 0 (so even a first revision's
// hash covers the digit "0"). When the name is taken by other data,
// Kubernetes bumps the count and renames the revision
// RevisionName(parent, Hash(data, count)), but keeps the hash label of the
// first try: a revision's label is not always the hash in its name.
//
// The bytes are reproduced from the StatefulSet's own JSON as the
// apiserver sent it, not from kcm's typed PodTemplateSpec, which models
// part of a pod: see statefulset.go for the argument and steps. The pin
// test (pin_integration_test.go) checks names, labels and data against
// revisions kube-controller-manager 1.37.2 wrote on a real cluster, for
// templates with empty objects, fields kcm does not model, escaped HTML
// characters and a name collision.
//
// # Encodings: revisions on protobuf, StatefulSets on JSON
//
// A ControllerRevision may be read as JSON or as protobuf (kcm's clients
// read it as protobuf by default). Its data is a RawExtension: JSON bytes,
// which the protobuf message carries as they were stored and the
// apiserver's JSON writes through encoding/json's Encoder (compacted, <, >
// and & escaped). kcm's protobuf decoding gives Data.Raw in that JSON form
// (package protocodec), so Data.Raw — and with it Hash, EqualRevision and
// FindEqualRevisions — is the same whichever wire a revision came by. For
// the revisions controllers write (json.Marshal's output, already in that
// form: kube-controller-manager's getPatch and StatefulSetPatch alike)
// these are the stored bytes themselves; the pin test reads every
// revision it checks through both wires.
//
// A StatefulSet is read as JSON whatever the client's ContentType
// (package decode keeps it off protobuf), and this is why. Upstream's
// getPatch encodes the apps/v1 StatefulSet with a JSON codec
// (runtime.Encode(patchCodec, set), patchCodec being the scheme's
// LegacyCodec), so the revision holds the JSON of its Go struct: every
// field of the template, whichever wire kube-controller-manager read the
// set by; newRevision stores those bytes as the data, and ApplyRevision
// strategic-merges the data onto the same JSON encoding of the set and
// decodes the result into the struct. kcm's PodTemplateSpec models part of
// a pod, so it takes that JSON from the apiserver's JSON of the set, which
// the apiserver writes from the same struct (above). A protobuf message
// does not give it: a field kcm does not model has a number and a wire
// type there, but no JSON name, and not even its JSON type (a
// length-delimited field may be a string, bytes, a message or a packed
// list; an IntOrString or a Quantity is a message), nor the struct's
// omitempty rules. A set read as protobuf would give another patch, so
// another revision, and roll every pod; StatefulSetPatch and ApplyRevision
// refuse one (ErrProtobufSet) rather than encode its typed fields.
//
// # Place
//
//	StatefulSet (cached, with its JSON) ──▶ StatefulSetPatch ──▶ NewStatefulSetRevision ──▶ Hash, RevisionName
//	ControllerRevisions (cached) ──▶ SortControllerRevisions ──▶ NextRevision
//	                                └─▶ FindEqualRevisions(proposed): reuse, roll back, or create
//	a revision to restore ──▶ ApplyRevision ──▶ the set at that revision (its pods' template)
//
// The StatefulSet controller (a later package) lists its revisions, claims
// them, proposes NewStatefulSetRevision(set, NextRevision(...),
// collisionCount) and reuses an equal one or creates it, bumping
// collisionCount on a name taken by other data. This package makes no API
// call: creating, adopting, releasing and deleting revisions are the
// controller's, through kube/rest.
//
// One concept per file: hash.go (Hash, HashControllerRevision,
// RevisionName, HashLabel), revision.go (NewControllerRevision,
// EqualRevision, FindEqualRevisions, SortControllerRevisions,
// NextRevision), statefulset.go (StatefulSetPatch,
// NewStatefulSetRevision, RevisionTemplate, ApplyRevision).
//
// # Guarantees
//
//   - StatefulSetPatch of a StatefulSet read from the apiserver (through
//     any of kcm's decoders, cached or not) is the patch
//     kube-controller-manager at the reference release builds for it, byte
//     for byte; Hash and RevisionName give the names it gives. Pinned
//     against the reference binary.
//   - Hash follows HashControllerRevision exactly: FNV-1 (not FNV-1a) over
//     the data, then the collision count's decimal digits when it is set
//     (0 included), written in SafeEncodeString's alphabet.
//   - StatefulSetPatch(ApplyRevision(set, rev)) is rev's data for every
//     revision kube-controller-manager wrote: restoring a revision and
//     recording it again finds the same revision.
//   - Nothing here modifies its arguments; returned revisions share no
//     map with them.
//   - A revision's Data.Raw, hash and equality are the same read as JSON
//     or as protobuf (checked on a real cluster for
//     kube-controller-manager's revisions and kcm's); a StatefulSet read
//     as protobuf is an error, never a wrong patch.
//
// # Differences from Kubernetes
//
//   - A StatefulSet built in code (no JSON) is encoded from kcm's typed
//     fields; its patch is kube-controller-manager's only if kcm models
//     every field of its template.
//   - ApplyRevision applies only StatefulSet patches (spec.template
//     replaced whole); any other strategic-merge patch is ErrPatch.
//   - EqualRevision compares data bytes only: kcm's revisions have no
//     decoded Data.Object.
//   - Data.Raw read as protobuf is in the apiserver's JSON form, not the
//     bytes as stored. For a revision whose data was written with other
//     spacing or unescaped <, > or & (by hand; controllers never write
//     one), kube-controller-manager reading protobuf compares the stored
//     bytes and kcm their JSON form, as it does reading JSON.
//   - The statefulset controller's semantic comparison with the latest
//     revision (setMatchesLatestExistingRevision, feature gate
//     StatefulSetSemanticRevisionComparison, on by default since it
//     mitigates the 1.34 creationTimestamp serialisation change), which
//     re-encodes the latest revision after defaulting, is the
//     controller's and not yet built.
//
// # Kubernetes counterparts
//
// pkg/controller/history: HashControllerRevision (Hash,
// HashControllerRevision), ControllerRevisionName (RevisionName),
// ControllerRevisionHashLabel (HashLabel), NewControllerRevision,
// EqualRevision, FindEqualRevisions, SortControllerRevisions.
// pkg/controller/statefulset/stateful_set_utils.go: getPatch
// (StatefulSetPatch), newRevision (NewStatefulSetRevision), ApplyRevision,
// nextRevision (NextRevision). The API calls of history.Interface
// (Create/Update/Adopt/Release/DeleteControllerRevision) belong to the
// controller.
package history
