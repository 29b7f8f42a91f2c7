// Package pipeview is the live view of the pipeline: a web page, served
// at /debug/pipeline, that draws every informer and every controller of a
// running kcm as it works, and follows one object through it — socket,
// FIFO, store, handlers, queue, sync, the API writes the sync makes, and
// the watch events those writes cause in turn: the controller loop
// closing on itself.
//
// # Place in the pipeline
//
// The view reads, it never takes part. Each layer reports to a tap.Point
// (package tap) while a browser is connected; the Hub is the tap.Sink
// behind them all:
//
//	reflector ─▶ deltafifo ─▶ store ─▶ processor ─▶ handler ─▶ queue ─▶ sync ─▶ rest write
//	  Socket       FIFO       Store                 Handler    Enqueue   Sync     Write
//	     └───────────┴──────────┴──────────────┬───────┴──────────┴────────┴────────┘
//	                                           ▼
//	                 Hub: one point per stage (counters, a ring of recent events, gauges)
//	                                           │ every Period (500 ms), bounded
//	                                           ▼
//	               browsers: WebSocket, one update each, dropped (and counted) when behind
//
// # What a stage shows
//
// Each stage — an informer's socket, FIFO and store, a handler on an
// informer, a controller's queue and sync, a client's writes — has an
// event counter (and its rate over the last two seconds), its depths
// (gauges the Hub reads at each update: FIFO deltas, cached objects, a
// handler's buffered notifications, a queue's ready, in-flight and
// waiting keys, a controller's in-flight syncs and workers), and its
// newest events with their metadata: type, namespace/name, resource
// version, and what the stage adds (the index entries a store write moved,
// a handler call's duration, the handler call an add came from, a sync's
// result and error, the sync a write was made in, the write a watch event
// came from). The leader-election panel shows the Lease, its holder, this
// instance's last renewal and the time until the Lease expires.
//
// # Following one object
//
// The page sends a resource and a key; from then on its updates carry
// that object's trail (see trail): every stage it passed with the time and
// the latency since the step before, and the controller work it caused.
// From the moment it is followed, nothing of it is sampled away; what
// passed before is shown as far as the stages still keep it.
// Two links make the loop visible. An add to a controller's queue is
// credited to the handler call in progress for that controller when
// exactly one is (handlers add synchronously, from their call); a write's
// answer (resource, key, resourceVersion) is matched with the watch event
// that brings it back. The trail starts from the events the stages still
// keep (Options.History per stage; on a busy stage, the sample), so an
// object that passed a moment ago can still be followed.
//
// # Guarantees
//
//   - Cheap when nobody watches: the Tap is off, and every reporting site
//     costs one atomic load. The Hub's goroutine waits without a timer.
//   - Cheap when someone watches: a site builds an event only if the Hub
//     wants it (want.go) — every event of a followed object and of the work
//     it causes, every API write, and a sample of the rest, about
//     sampleTarget per stage and update period; the others are only
//     counted, so totals and rates stay exact. BenchmarkViewCost measures
//     events per second through the whole pipeline with the view closed
//     and open (the README has the numbers).
//   - The pipeline never waits for a browser: a report is O(1) work under
//     a stage's own lock; updates are built on the Hub's goroutine and
//     offered to each browser's buffer of ClientBuffer updates without
//     blocking; a full buffer drops the update and counts it (the page
//     shows the count); a browser that does not take an update within
//     WriteTimeout is disconnected.
//   - Bounded: an update's size depends on the number of stages, not of
//     objects or events (Recent events per stage, Detail for the selected
//     one, at most maxSteps trail steps: hub_test.go's
//     TestUpdatesAreBoundedHoweverMuchPasses), so the page stays
//     responsive with 50 000 objects cached and 1000 events a second
//     (browser_test.go's TestPageStaysResponsiveUnderLoad drives a real
//     Chromium at that load).
//   - Metadata only: events carry resource, namespace/name,
//     resourceVersion, uid, timings and depths — never an object's body,
//     labels aside from the index entries a write moved, or a failed
//     write's server message (only its code and reason).
//   - Served only where it is enabled: the manager mounts it on its
//     secure port (authorized through the apiserver, like /metrics) only with
//     --enable-pipeline-view; kcm dev serves it on 127.0.0.1 and refuses
//     any other Host (LoopbackOnly). The WebSocket refuses a handshake
//     from another origin.
//
// # Kubernetes counterpart
//
// None. kube-controller-manager shows its pipeline through metrics
// (workqueue_*, reflector_*), /debug/pprof and -v logs; this page is
// kcm's teaching aid, the picture a textbook cannot draw.
package pipeview
