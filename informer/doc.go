// Package informer assembles the engine: an Informer keeps a local,
// indexed, always-converging copy of one resource and tells handlers what
// changed; a Factory shares one informer per resource among all the
// controllers that ask for it.
//
// # Where it sits
//
//	                   ┌────────────────────────── Informer ──────────────────────────┐
//	kube-apiserver ──▶ │ reflector ──▶ deltafifo ──Pop(batch)──▶ apply loop:          │
//	 LIST + WATCH      │                  ▲                      store.Apply          │
//	                   │     KnownObjects └──── store.View ◀──── (the only writer)    │──▶ Store(), Lister: read-only
//	                   │                                         processor ───────────│──▶ handlers ──▶ queue
//	                   └──────────────────────────────────────────────────────────────┘
//
// One goroutine applies deltas, in the order they arrived, writing the store
// and handing the matching notification to the processor under one lock, so
// that a handler added at any moment sees every change exactly once: in its
// initial snapshot or as a live notification.
//
// That goroutine is the cache's only writer, and the *store.Store never
// leaves the package: Store() hands out a store.View (reads only, and no
// way back to the writer), which the Lister, the processor's snapshot for
// late handlers and the FIFO's KnownObjects read through. A Lister finds
// objects under the key the cache stores them by, store.MetaNamespaceKey
// ("namespace/name", or "name" when cluster-scoped).
//
// # Guarantees
//
//   - Convergence: after the server stops changing, the cache holds exactly
//     the server's objects at their resourceVersions, and each handler's last
//     notification per key is the server's state (or a delete). The
//     integration tests check this against a real kube-apiserver under
//     concurrent writers, an apiserver restart and an etcd compaction that
//     forces 410 Gone.
//   - HasSynced turns true once the initial list has been applied and
//     distributed; the Factory's WaitForCacheSync waits for it.
//   - For refuses a Go type whose kind is not the resource's
//     (For[api.Pod](f, rest.Deployments) panics with ErrKindMismatch at
//     construction; CheckKind returns the error, ctrl.Watch fails its
//     controller's construction with it).
//   - The store knows the resourceVersion it is current at
//     (LastStoreSyncResourceVersion, also on Store() and Lister): the
//     list's, then each watch event's and each bookmark's, carried through
//     the FIFO in order with the objects and moved only after the writes
//     that brought the store there, so a reader never finds it ahead of
//     the objects. Controllers compare it with their own last write
//     (ctrl.Consistency, Kubernetes' KEP-5647).
//   - A relist (after 410 Gone, a failed watch, an out-of-order stream)
//     is applied as one swap of the whole content (deltafifo's
//     ReplacedAll, store.ReplaceOps): listers see the old content or the
//     new, never part of each, and every handler call the relist causes
//     finds the store already holding all of it, at the list's
//     resourceVersion: deletes (finalStateUnknown) of the vanished keys
//     first, then an update or add per listed object in list order, as
//     client-go's AtomicFIFO does. An object listed at the version the
//     store holds is kept, not its new copy, so a relist holds memory only
//     for what changed. The initial list stays streamed into the store,
//     batch by batch (nobody may trust the cache before HasSynced, and an
//     empty store cannot be half old): its peak memory is the steady
//     cache's plus one batch. client-go applies the initial list in one
//     step too, after holding it whole.
//   - Options.Transform rewrites each object on its way into the FIFO. When
//     it returns an error the object is refused, not dropped: the reflector
//     backs off and asks for it again (the LIST again, or the watch from
//     before that event), and informer_transform_errors_total{informer}
//     counts each failure. A Transform that always fails for some object
//     therefore holds its informer at that object, retrying every backoff
//     period (at most 30 s) with a warning in the log, until it succeeds;
//     one that cannot improve an object should return it unchanged.
//     (client-go logs and skips a watch event its Transform refuses.)
//   - Options.Reflector's Name, Clock, Logger and Observer are filled from
//     the informer's only when left zero; the Factory's default options
//     run the reflector's defaults, its first LIST from the watch cache
//     included (reflector/doc.go says what that may serve stale).
//   - managedFields are cut from objects before they are decoded (unless
//     FactoryOptions.KeepManagedFields), like kube-controller-manager's
//     informers, which strip them to save memory.
//   - For caches compact typed objects (decode.Compact): no JSON is kept,
//     repeated parts are shared between objects, and what the struct does
//     not model is kept as a small remainder — a pod costs at most half
//     the heap of client-go's informer with managedFields stripped
//     (TestHeapPerPod in bench/heap_test.go fails above it; the figures
//     are in bench/RESULTS.md). The objects are read-only views, as every
//     cached object is, and a read-modify-write through api.DeepCopy and
//     rest's Update still keeps every field kcm does not model (tested
//     against a real kube-apiserver). A Transform on a typed informer must
//     assign new values to fields, not change the maps and slices it
//     finds: those may be other cached objects' too. The decoder compares
//     each object with the cached version it replaces
//     (decode.CompactCached), so an update costs little more memory than
//     the fields it changed.
//   - Run stops every goroutine it started before it returns, and returns
//     the failures it met (joined, wrapped with the informer's name): the
//     processor's ErrShutdownTimeout when handlers outlived
//     Options.ShutdownTimeout, the apply loop's failed batches, a reflector
//     or resync loop that ended for another reason than the stop. The end
//     of its context is not an error. A Factory logs what Run returns.
//
// # client-go names
//
// Informer ≈ cache.SharedIndexInformer (Store() ≈ GetIndexer() without
// the writes); Factory ≈
// informers.SharedInformerFactory (For, ForRaw, ForMetadata ≈ typed,
// dynamic and metadata informers); Lister ≈ the generated listers
// (Lister.Namespace(ns).Get(name) ≈ PodLister.Pods(ns).Get(name)).
package informer
