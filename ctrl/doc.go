// Package ctrl is kcm's controller framework: what every controller of the
// controller-manager shares, so that a controller is only its sync
// function, its event handlers and its listers.
//
// # Where it sits
//
//	CreateControllerContext ──▶ ControllerContext: one informer.Factory (shared caches),
//	                            a client per controller (shared transport, own QPS/burst,
//	                            User-Agent "kcm/<version> (<controller>)"), clock, logger, metrics
//	                                   │
//	Descriptors ──Enabled(--controllers)──▶ ControllerConstructor(ctx, cc, name)
//	                                   │    w := cc.Wire(name, …); listers := Watch(w, resource, handlers) …;
//	                                   │    w.Build(sync): handlers registered, the loop waits on them
//	                                   ▼
//	informer handler ──key──▶ Loop.Queue() ──▶ workers ──▶ SyncFunc(ctx, key) ──▶ listers, client
//	                              ▲                              │
//	                              └── backoff / RequeueAfter ────┤
//	                                                             └──▶ Recorder ──▶ Broadcaster ──▶ Events
//
// One concept per file:
//
//   - descriptor.go: ControllerDescriptor (name, aliases, on by default,
//     --concurrent-<x>-syncs flag, duration flags such as
//     --namespace-sync-period, constructor) and Descriptors, the one
//     table that --controllers, --help and start-up read.
//   - enabled.go: the --controllers rule, kube-controller-manager's: "*"
//     is every on-by-default controller, "foo" turns foo on, "-foo" off,
//     the first entry naming a controller wins; unknown names are
//     rejected with the list of known ones.
//   - flags.go: --controllers, --concurrent-<x>-syncs and the duration
//     flags on a FlagSet; flags_float.go: the float32 flags
//     (--node-eviction-rate); flags_string.go: the string flags
//     (--root-ca-file) and the rule for a flag several descriptors
//     declare (registered once, declared alike).
//   - context.go: ControllerContext, with the CA the manager's client
//     trusts (APIServerCAData).
//   - rootca.go: --root-ca-file (RootCAFile, ControllerContext.RootCA),
//     read by root-ca-cert-publisher and serviceaccount-token-controller:
//     the file, bounded and checked as kube-controller-manager's readCA,
//     else the client's CA.
//   - wire.go: Wiring, how a constructor wires its controller in a few
//     typed lines: Watch takes a shared typed informer, returns its
//     lister and registers the controller's handler on it; Build makes
//     the loop wait for those registrations and refuses a Go type whose
//     kind is not the resource's.
//   - loop.go, outcome.go: the work loop (Loop) and its retry policy;
//     terminal.go: TerminalError, a failure the loop does not retry;
//     abort.go: WithAbort, which makes a stopping loop cancel its syncs in
//     flight at once instead of draining them (a lost lease).
//   - owner.go: Owners, the owner a controller reference names, found in
//     the owners' cache (and its key enqueued).
//   - metrics.go: controller-runtime's reconcile series and client-go's
//     workqueue series, on a caller's prometheus.Registerer.
//   - expectations.go: ControllerExpectations and
//     UIDTrackingControllerExpectations.
//   - consistency.go: Consistency, the stale-controller check (KEP-5647):
//     a controller records the resourceVersion of its writes per owner and
//     skips a sync of that owner while a cache is older
//     (api.CompareResourceVersion against the informer's
//     LastStoreSyncResourceVersion), counted in
//     <subsystem>_stale_sync_skips_total (Metrics.StaleSyncSkips).
//   - event.go, event_correlator.go, event_broadcaster.go, event_sink.go,
//     lru.go: core/v1 Event recording as client-go's recorder does it;
//     EventRecorder is what controllers record with, NopRecorder the one
//     that drops.
//
// # Guarantees
//
//   - A key is never synced by two workers at once, and a key added while
//     it is being synced is synced again afterwards (the queue's
//     guarantees, which the loop keeps).
//   - A failed sync is retried after the rate limiter's backoff; a
//     successful one resets it; a panic is recovered, logged with its
//     stack, counted, and retried like an error; the worker survives. A
//     TerminalError is logged and counted
//     (controller_runtime_terminal_reconcile_errors_total) but not
//     retried.
//   - A wired loop (Wiring) starts no worker before each of its handlers
//     has synced: its informer listed and the handler returned from every
//     object of that list (processor.Registration.HasSynced). A Go type
//     watched with a resource of another kind fails the constructor.
//   - Loop.Run stops taking keys when its context ends, lets syncs in flight
//     finish on a context of their own, and returns within the drain
//     timeout, cancelling the syncs that outlive it — or at once, when the
//     abort context of WithAbort ends.
//   - Recording an event never blocks: a full queue drops the event and
//     counts it. Events are correlated exactly as client-go's
//     EventCorrelator does: repeats patch one Event's count, ten similar
//     events within ten minutes are combined, 25 events per source and
//     object then one per five minutes.
//   - Nothing is registered with Prometheus at import time.
//
// # Kubernetes counterparts
//
// ControllerDescriptor, ControllerContext, CreateControllerContext,
// KnownControllers, ControllersDisabledByDefault and ControllerAliases
// are kube-controller-manager's (cmd/kube-controller-manager/app);
// IsControllerEnabled is k8s.io/controller-manager/app's. Loop is
// controller-runtime's reconcile handler (and every client-go controller's
// processNextWorkItem); Result is reconcile.Result and TerminalError
// reconcile.TerminalError. Wiring does what controller-runtime's builder
// and kube-rs's Controller::new(..).owns(..) do, without reflection: typed
// calls in the constructor. Owners is the resolveControllerRef of
// kube-controller-manager's controllers. ControllerExpectations
// are pkg/controller's; Consistency is pkg/controller/util/consistency's
// ConsistencyStore (StaleError its ConsistencyError). Recorder,
// Broadcaster and the correlator are
// client-go's tools/record EventRecorder, EventBroadcaster and
// EventCorrelator; EventSink is its EventSink.
package ctrl
