// Package kcm is a Kubernetes informer/cache engine and controller-manager
// written from scratch, without client-go. This package holds no code: it is
// the table of contents. Read the chapters in this order; each opens with a
// doc.go that names the concept, draws its place in the pipeline, states
// its guarantees and gives the client-go name it corresponds to.
//
// # Reading order
//
// Every package of the module is named below, one line each
// (TestTableOfContents fails on a package left out or one that is gone):
//
//		kube-apiserver ─LIST+WATCH─▶ reflector ─▶ deltafifo ─▶ store ─▶ processor ─▶ handler ─▶ queue ─▶ workers
//		                             └──────────── informer (one per resource, shared by a Factory) ──────────┘
//		lease: only the leader runs controllers
//
//	 1. kube                  — overview of kcm's Kubernetes foundation; its packages, read in this order:
//	    kube/api              — the object model: ObjectMeta, Object, RawObject, typed kinds
//	    kube/api/decode       — the codecs: JSON to objects, Compact, RawObject families, interning
//	    kube/api/resource     — resource.Quantity: parse, add, compare, the canonical strings
//	    kube/api/protowire    — Kubernetes' protobuf encoding without generated code: envelope, lists, watch frames, metadata
//	    kube/api/protocodec   — the typed kinds in protobuf: decode by field number, write back keeping every field
//	    kube/labels           — label selectors: parse, compile, match
//	    kube/rest             — the REST client: Client, Resources, list/watch, errors, retries
//	    kube/clientcmd        — kubeconfig, exec plugins, in-cluster: a rest.Config
//	 2. testenv               — the real etcd + kube-apiserver (and kwok nodes) the tests and `make dev` run
//	 3. clock                 — the injectable clock, so tests step time
//	 4. reflector             — LIST + WATCH as an explicit state machine
//	 5. deltafifo             — the arrival-ordered queue of changes
//	 6. store                 — the lock-free-read cache with copy-on-write B-tree indexes
//	 7. processor             — fan-out to event handlers, one buffer each
//	 8. informer              — the pieces assembled; the shared Factory; listers
//	 9. queue                 — the work queue: dedup, processing set, rate-limited retries
//	10. lease                 — leader election on a coordination.k8s.io Lease
//	11. ctrl                  — the controller framework: registry, context, wiring, work loop, expectations, events
//	    ctrl/controllerref    — which objects a controller owns: adopt, release
//	    ctrl/history          — ControllerRevisions: a StatefulSet's template patch, hashes and names as Kubernetes makes them
//	    ctrl/clientbuilder    — --use-service-account-credentials: each controller's client as its ServiceAccount, TokenRequest tokens
//	    ctrl/internal — the shelf of pieces several controllers share
//	    ctrl/internal/podaddr — which pods are endpoints, named ports, hostnames, IP families
//	    ctrl/internal/podservices — which Services a pod, or a pod update, concerns
//	    ctrl/internal/endpointsubsets — an Endpoints' subsets repacked in Kubernetes' canonical layout
//	    ctrl/internal/hashorder — Kubernetes' hash order: dump.ForHash texts and the FNV-128a sort
//	    ctrl/internal/endpointset — an endpoint's and a port set's identity, the desired endpoints
//	    ctrl/internal/slicetrack — the EndpointSlices a controller wrote: echoes and a stale cache
//	    ctrl/internal/endpointlabels — the labels and annotations the endpoint controllers share
//	    ctrl/internal/triggertime — the last-change-trigger-time of a Service's endpoints
//	    ctrl/internal/monitorset — the resource quota's and garbage collector's monitors: one metadata informer per discovered resource
//	    ctrl/serviceaccount   — the smallest controller: a "default" ServiceAccount in every namespace
//	    ctrl/replicaset       — pods to match replicas: expectations, slow start, deletion ranking, status
//	    ctrl/deployment       — ReplicaSets per template: rolling update, Recreate, scaling, rollback, progress
//	    ctrl/statefulset      — ordered, sticky pods <set>-<n> with their claims; revisions, rolling update, status
//	    ctrl/namespace        — a deleted namespace emptied through discovery, then finalized
//	    ctrl/endpoint         — the Endpoints of each Service with a selector: pods' addresses, repacked subsets
//	    ctrl/endpointslice    — the EndpointSlices of each Service with a selector: which event syncs which Service
//	    ctrl/endpointslice/topology — EndpointSlice hints: trafficDistribution and the topology-mode: Auto cache
//	    ctrl/endpointslice/reconciler — a Service's pods packed into its EndpointSlices: the fewest writes, the tracker
//	    ctrl/endpointslicemirroring — the Endpoints users write for selector-less Services, mirrored into EndpointSlices
//	    ctrl/podgc            — the pod garbage collector: terminated beyond a threshold, orphaned, out-of-service
//	    ctrl/resourcequota    — each quota's status.hard and status.used: two queues, replenishment, discovery
//	    ctrl/garbagecollector — the ownerReference graph: background, foreground and orphan deletion
//	    ctrl/nodelifecycle    — dead nodes: Unknown conditions, NotReady pods, taints at a rate per zone
//	    ctrl/nodelifecycle/scheduler — the zone's rate-limited timed queue of nodes to taint
//	    ctrl/tainteviction    — pods on NoExecute-tainted nodes deleted now or after their tolerationSeconds
//	    ctrl/resourcequota/quota — quota usage as Kubernetes' evaluators compute it: pods, Services, claims, counts
//	    ctrl/serviceaccounttoken — legacy token Secrets filled with a signed JWT, ca.crt and namespace; orphans deleted
//	    ctrl/legacysatokencleaner — unused auto-generated legacy tokens marked invalid, then deleted
//	    ctrl/rootcacertpublisher — kube-root-ca.crt in every namespace, put back when edited or deleted
//	12. tap                   — the observation points every layer reports to while someone watches
//	    pipeview              — the live view behind /debug/pipeline, drawn from tap's points
//	13. authdelegate          — the secure port's guard: TokenReview, client certificates, SubjectAccessReview
//	    manager               — the controller manager: flags, endpoints, leader election, start-up
//	14. cmd/kcm               — the binary: kcm [flags] (the manager), kcm dev, kcm trace, kcm version
//	15. docs/tour             — the guided tour: kube-controller-manager's start-up and one object's trip, in kcm's code
//
// # Internals
//
//	internal/ring             — the growable FIFO buffer under deltafifo, processor and queue
//	internal/promreg          — Prometheus register-or-reuse, shared by every component's metrics
//	kube/internal/jsonx       — kcm's JSON bytes: the json-iterator configuration and a value scanner
//	kube/internal/redact      — how kube/rest's and kube/clientcmd's types keep secrets out of print
//	kube/api/internal/objsrc  — an object's source JSON, which the model keeps and only the decoders set
//
// # Test and verification support
//
// Under internal/testing/: imported only by _test.go files, by each other
// and by the harness binaries (TestLayering).
//
//	internal/testing/resttest     — the recording fake apiserver every controller's unit tests use
//	internal/testing/ctrltest     — one controller started against a real apiserver as the manager wires it
//	internal/testing/fakeapi      — an in-process apiserver with seeded faults, for the chaos suite
//	internal/testing/fakelw       — a scripted ListerWatcher: a reflector in lockstep with its test
//	internal/testing/podgen       — realistic pods, lists and watch streams for benchmarks and tests
//	internal/testing/syncbuf      — a log buffer goroutines write while a test reads it
//	internal/testing/browser      — a small Chrome DevTools Protocol client for the view's browser tests
//	internal/testing/difftest     — differential tests: a scenario under kcm and under kube-controller-manager
//	internal/testing/compat       — kcm's real-apiserver tests against every supported release
//	internal/testing/managerbench — kcm and kube-controller-manager measured as separate processes
//	internal/testing/e2e          — upstream's e2e specs of kcm's controllers, under both managers
//	kube/internal/redact/redacttest — the check that no exported type prints a secret
//	cmd/kcm-compat                — make compat
//	cmd/kcm-bench                 — make bench-manager
//	cmd/kcm-e2e                   — make e2e
//
// Benchmarks against client-go live in the separate module bench/, which
// may use k8s.io modules; this module may not.
//
// # Layers
//
// An import never runs up. A non-test file imports only packages of lower
// layers, or of its own "dir/..." unit; the packages of one layer are
// independent of each other. testenv and internal/testing/... are imported
// only by _test.go files, the verification packages and the harness
// binaries — and testenv also by cmd/kcm, because `kcm dev` (a local
// cluster with the manager on it) is a product feature. The table is data
// in layers_test.go (TestLayering checks every file against it,
// TestLayersAreDocumented this copy), lowest first:
//
//  0. contents: ., kube, docs/tour — chapters without code: the table of contents,
//     the kube overview and the guided tour import nothing
//  1. base: clock, internal/ring, internal/promreg, kube/internal/jsonx, kube/internal/redact —
//     leaves every layer may use: the injectable clock, the FIFO buffer under deltafifo,
//     processor and queue, the Prometheus register-or-reuse helper, kcm's JSON bytes,
//     secret redaction; they import no kcm package
//  2. model: kube/api/..., tap — what every layer passes and reports: the object model
//     (the cache imports nothing more) and the observation points
//  3. client: kube/labels, kube/rest — talking to the apiserver about
//     objects: selectors, the REST client
//  4. stages: reflector, deltafifo, store, processor, queue, lease, kube/clientcmd, testenv —
//     the pipeline's stages and the ways to reach a cluster: none imports another, so each
//     is tested alone
//  5. assembly: informer, pipeview, authdelegate — informer assembles reflector, deltafifo,
//     store and processor; pipeview draws what tap reports and the lease; authdelegate guards
//     the secure port with the apiserver's TokenReview and SubjectAccessReview
//  6. framework: ctrl, ctrl/controllerref, ctrl/history, ctrl/internal/... — what every
//     controller shares: registry, context, wiring, work loop, expectations, events;
//     ownership; revision history; the parts the endpoint controllers share (pod rules, Services of a pod, repacked subsets,
//     hash order, endpoint sets, the slice tracker, well-known labels) and the metadata monitors the resource quota
//     controller and the garbage collector keep
//  7. controllers: ctrl/*, ctrl/endpointslice/..., ctrl/nodelifecycle/..., ctrl/resourcequota/... — one package per
//     controller; a controller never imports another (the EndpointSlice, node lifecycle and resource quota
//     controllers' own packages import each other)
//  8. manager: manager — the controller manager: flags, endpoints, leader election,
//     start-up of every controller
//  9. binary: cmd/kcm — the kcm binary; it links testenv for `kcm dev`, a product feature
//  10. verification: internal/testing/..., kube/internal/redact/redacttest — test and
//     verification support (fakes, fixtures, differential and benchmark harnesses): it may
//     import any layer, and only tests and the harness binaries import it (restricted)
//  11. harness: cmd/kcm-bench, cmd/kcm-compat, cmd/kcm-e2e — the binaries behind make
//     bench-manager, make compat and make e2e
//
// A doc.go that lists its package's files does so in one paragraph or list
// opened by "One concept per file:"; TestDocFileLists checks that every file
// it names exists and that it names every non-test file but doc.go.
package kcm
