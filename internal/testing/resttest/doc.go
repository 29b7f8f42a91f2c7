// Package resttest is the recording fake apiserver of kcm's controller
// unit tests: an object tracker served over HTTP to a real rest.Client,
// the actions it received in one vocabulary, faults chosen per verb,
// resource and count, and listers loaded from objects without a watch.
//
// # Where it sits
//
//	test ──Add / Lister──▶ listers ──▶ controller.Sync ──rest.Client──▶ Server ──▶ tracker
//	  ▲                                                                   │ records
//	  └──────── Expect(actions) / Get / List / ListerFrom ◀───────────────┘ Actions
//
// A controller's sync reads its listers (Lister: a store with the
// informers' indexes, loaded from objects) and writes through the
// server's Client. The test then checks the writes (Expect, Select),
// reads what the server now holds (Get, List), or reloads the listers
// from it (ListerFrom: an informer that caught up) and syncs again.
//
// # What the tracker does, as kube-apiserver does
//
//   - get, list (labelSelector; fieldSelector on metadata.name and
//     metadata.namespace; PartialObjectMetadata when the Accept header
//     asks for it), create, update, patch, delete and deletecollection
//     on any resource, namespaced or not, with Kubernetes' messages,
//     reasons and codes (404 NotFound, 409 AlreadyExists and Conflict,
//     422 Invalid, 415, 400).
//   - One resourceVersion counter for every resource (etcd's revision).
//     An update whose resourceVersion is not the stored one is a 409
//     Conflict, and so is one whose uid is not the stored object's; an
//     update that changes nothing keeps the resourceVersion.
//   - create assigns uid, creationTimestamp (Options.Clock),
//     resourceVersion, generation 1 for an object with a spec, a name
//     from generateName (the prefix and a counter: web-1, web-2: unlike
//     kube-apiserver's five random characters, so that tests read
//     names), and resets status (a namespace starts Active, a pod
//     Pending); a resourceVersion in the body is refused with 500, as
//     etcd's storage does.
//   - update and patch follow the update strategies: the object keeps
//     its status, the status subresource keeps the spec, namespaces'
//     finalize changes only spec.finalizers; metadata.generation is
//     bumped on a spec change (on an annotation change too, for
//     Deployments). A patch may not change uid (422) and may set
//     resourceVersion only to the stored one (409).
//   - Patches: JSON merge patches, and strategic merge patches for the
//     lists kcm patches (ownerReferences by uid, conditions by type,
//     finalizers as a set, $patch and $deleteFromPrimitiveList
//     directives); custom resources refuse strategic merge with 415,
//     and JSON and apply patches, which kcm does not send, are refused
//     with 415 too. Unknown subresources (scale, eviction) answer 404.
//   - Add stores objects as given (a missing uid or resourceVersion is
//     filled in) without reading the clock or recording an action;
//     Remove takes one away as if whatever held it had let go.
//   - delete checks the uid and resourceVersion preconditions (409);
//     propagationPolicy Orphan and Foreground add the garbage
//     collector's finalizers ("orphan", "foregroundDeletion"), Background
//     removes them; an object with finalizers (a namespace: also
//     spec.finalizers, with phase Terminating) stays with a
//     deletionTimestamp until an update or patch removes the last one; a
//     pod on a node that has not finished stays for its grace period
//     (the option's, else terminationGracePeriodSeconds, else 30 s).
//   - Watches are not served (405): tests load listers instead.
//
// It does not run admission, defaulting or validation beyond these rules,
// keeps no history and serves no discovery documents. Empty maps and
// lists compare equal to absent ones when it decides whether a write
// changed anything.
//
// # Actions
//
// Every request is recorded as an Action {Verb, Resource, Subresource,
// Namespace, Name, Body, ...} in Kubernetes' verbs, with a one-line form
// (Action.String):
//
//	get namespaces team-a
//	create pods ns/web-*
//	update replicasets/status ns/web
//	patch pods ns/p1 strategic {"metadata":{...}}
//	delete replicasets ns/web-1 uid=rs1 rv=20 policy=Background
//
// Expect compares a list of actions with such lines, each naming the first
// words of its action, and prints a diff (-want +got) when they differ.
//
// # Faults
//
// Intercept and Fail are controller-runtime's interceptor
// (pkg/client/interceptor) chosen by a Match: a verb and resource
// (On("create", "pods")), an object (Named), and a count (Nth, From,
// Times): "fail the 2nd create of pods with a 500". An interceptor may also
// change the tracker's objects (a namespace re-created under its name)
// or answer NoOp (the server says yes and does nothing).
//
// # Events
//
// Events is the recorder to give a controller: it keeps each core/v1
// Event recorded (object, type, reason, message) for the test to check,
// as "Type Reason Message" lines.
//
// # Client-go names
//
// Server ≈ client-go's fake clientset with its testing.ObjectTracker and
// recorded testing.Action values, served over HTTP because kcm's
// controllers take a rest.Client; Intercept/Fail ≈ PrependReactor, or
// controller-runtime's interceptor.Funcs; Lister ≈ an informer's indexer
// filled with Add in sample-controller's tests; Events ≈ record.FakeRecorder.
package resttest
