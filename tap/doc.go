// Package tap holds the pipeline's observation points: the places where
// the reflector, the informer, the processor, the work queue, the
// controller loop and the REST client report what passes through them, so
// that a live view (package pipeview, served at /debug/pipeline) can draw
// the pipeline as it works and follow one object through it.
//
// # Place in the pipeline
//
//	apiserver ─▶ reflector ─▶ deltafifo ─▶ store ─▶ processor ─▶ handler ─▶ queue ─▶ sync ─▶ API write ─┐
//	   ▲          Socket        FIFO        Store                 Handler    Enqueue   Sync    Write      │
//	   └──────────────────────────────────────────────────────────────────────────────────────────────────┘
//	                     the write comes back as a watch event: the controller loop closes
//
// Each layer asks its *Tap for one *Point per place (Tap.Point), once,
// when it is built; a nil Tap hands out nil Points, and every method of a
// nil Point does nothing, so a layer built without a view pays one nil
// check per event.
//
// # Cheap when nobody watches
//
// A layer reports an Event only after Point.On and then Point.Want
// returned true. On is one atomic load: the view switches it on when the
// first browser connects and off when the last one leaves (Tap.SetOn).
// While it is off no Event is built — no clock read, no key string, no
// allocation. While it is on, Want says whether the view wants this event
// in full: every event of an object someone follows and of the work that
// object causes, and a sample of the others, sized to what the page can
// show; the others are only counted, so a stage's totals and rates stay
// exact. A wanted event is built (metadata only: resource,
// namespace/name, resourceVersion, uid, timings, depths) and handed to the
// point's Recorder, which must return at once: the pipeline never waits
// for the view.
//
// Depths that the view reads rather than counts — a FIFO's length, a
// handler's buffer, a queue's ready and in-flight keys — are registered as
// gauges (Point.Gauge): functions the view calls on its own goroutine, a
// few times a second, and only while someone watches.
//
// # Following one object
//
// A sync is numbered (Tap.NextSeq) and its number travels in the context
// the sync receives (WithSync, SyncOf), so that the REST client can say
// which sync made each API write; the view then recognises the watch event
// that write causes (same resource, key and resourceVersion) and draws the
// loop closing. A handler's call is reported twice, at its start (OpBegin)
// and at its end, so that the view can tell which notification a key added
// to a controller's queue came from.
//
// # Kubernetes counterpart
//
// None: client-go's informers and kube-controller-manager expose counters
// through metrics (workqueue_*, reflector_*) and verbose logs, not a feed
// of events. The closest things are client-go's MetricsProvider hooks for
// the work queue and the trace spans of k8s.io/utils/trace. kcm trace
// (cmd/kcm) prints the first half of the same path for one informer.
package tap
