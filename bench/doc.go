// Package bench measures kcm's cache engine side by side with client-go's,
// on identical bytes, in one process and one run.
//
// # What is measured
//
// A podgen server stands in for the apiserver. It runs in a child process
// (the test binary started again), so that the heap, the garbage
// collector's work and the CPU profile of the benchmark process belong to
// the engines under test alone; both engines read the very same bytes from
// it.
//
//	child process                       benchmark process
//	┌────────────────┐  LIST / WATCH   ┌─────────────────────────────────────────────────────────┐
//	│ podgen.Server  │───(loopback)───▶│ kcm:       reflector → deltafifo → store → processor ─┐ │
//	│ bytes encoded  │                 │ client-go: Reflector → DeltaFIFO → Indexer → listener ─┤ │
//	│ once           │                 │ floor:     read + one json-iterator scan ──────────────┤ │
//	└────────────────┘                 │                                       counting handler ◀┘ │
//	                                   └─────────────────────────────────────────────────────────┘
//
// The benchmarks, each with one sub-benchmark per engine:
//
//   - BenchmarkSync: LIST and fill the cache until HasSynced and the
//     handler has seen every object (ns/op, objects/s).
//   - BenchmarkWatch: MODIFIED events through to a counting handler
//     (events/s, measured from the first event handled to the last).
//   - BenchmarkHeap: live heap held per cached pod after sync, and the
//     peak during sync over the steady heap after it.
//   - BenchmarkStoreRead and BenchmarkStoreWriter: the store alone (kcm's
//     store.Store against client-go's cache.Indexer) under one writer and
//     GOMAXPROCS readers, and the writer's rate with and without readers.
//   - BenchmarkQueue: the work queue (kcm's queue.Queue against client-go's
//     workqueue) Add/Get/Done and AddAfter.
//
// Engines: "kcm" is informer.ForRaw (RawObject cache, managedFields cut
// from the bytes), "kcm-typed" is informer.For[api.Pod]; "client-go" is a
// SharedIndexInformer with a namespace index, "client-go-strip" the same
// with a transform that drops managedFields; "floor" reads the bytes and
// scans them once, the least any engine must pay.
//
// cmd/report runs the suite (or reads `go test -bench` output) and prints
// the comparison table recorded in RESULTS.md.
//
// # Against a real kube-apiserver
//
// cmd/apisync measures list+sync against a real cluster instead of podgen:
// a testenv etcd and kube-apiserver whose pods kube-controller-manager's
// Deployment and ReplicaSet controllers made (Populate), each sample one
// child process (RunChild, SyncOnce) running one APIVariant — client-go,
// or kcm with one way of reading the initial state — while APIRunner reads
// kube-apiserver's and etcd's CPU and memory from /proc around it;
// SummarizeAPI and APITable give the medians. Issue 34's pair runs there
// too: client-go/protobuf-strip (client-go as kube-controller-manager runs
// it: protobuf, managedFields dropped by a transform) and kcm/protobuf (the
// RawObject informer on rest.ContentTypeProtobuf, caching protobuf
// messages); every child checks that its cache holds what its variant
// says (the encoding read, managedFields dropped or kept) and fails
// otherwise (ErrVariantMismatch). Shape.Small makes minimal pods (≤ 2 KB of
// JSON) instead of realistic ones.
//
// # The protobuf prototype
//
// kube/api/protowire reads objects in kube-apiserver's protobuf encoding, the
// one kube-controller-manager uses. BenchmarkProtoDecodePod and
// BenchmarkProtoHeap decode podgen's pods (their protobuf written by
// apimachinery's serializer, proto.go) with protowire's metadata scan,
// kcm's JSON RawObject codec and client-go's protobuf and JSON decoders;
// BenchmarkProtoWireBytes gives the bytes per pod of each encoding.
// cmd/protolist lists a real cluster's pods as JSON and as protobuf
// (MeasureProtoList): wall time, bytes, kube-apiserver CPU and the client
// CPU of decoding.
//
// This module is separate from kcm's (module github.com/kcmlab/kcm/bench,
// replace => ../) so that client-go is a dependency of the benchmarks only.
// It has no client-go counterpart.
package bench
