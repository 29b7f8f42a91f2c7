// Package reflector keeps a sink (the informer's deltafifo) in step with
// the apiserver: it lists a resource, then watches it from the list's
// resourceVersion, and recovers from every failure.
//
// # Where it sits
//
//	kube-apiserver ──LIST (pages) + WATCH──▶ [reflector] ──Add/Update/Delete/Replace──▶ deltafifo ──▶ store, processor
//
// # Two halves
//
// Machine is the logic, with no goroutines and no clock: it says what to do
// next (list, watch, wait) and is told what happened (a list finished, an
// event was accepted by the sink, a watch ended with some error, at what
// time). A test steps it through any history of failures in microseconds.
// Reflector.Run is the thin shell that performs the actions with a
// ListerWatcher, the Sink and the injected clock.
//
//	         ┌────────────── 410 Gone ──────────────┐
//	         ▼                                      │
//	┌─▶ Listing ─────ok────▶ Watching ──events──▶ Watching
//	│   WatchListing ──end bookmark──▶ ▲  │
//	│      │                           │  └── server timeout (≥ 1 s or after an event), idle: resume at lastRV
//	│    error, refusal                │
//	│      ▼                           │
//	└─ BackingOff (800 ms → 30 s, ×2, jitter; reset after 2 healthy minutes; 429 waits Retry-After)
//
// # Defaults
//
// The zero Options are the defaults, and the Factory's default options and
// `kcm trace` use them: WatchList on (DisableWatchList turns it off), 500
// items per LIST page, watch timeouts in [5, 10) minutes, a 5-minute idle
// timeout, client-go's backoff.
//
// # Guarantees
//
//   - Nothing is missed or applied twice: every watch resumes from the
//     resourceVersion of the last state the sink accepted (API rule: a
//     watch from resourceVersion N delivers exactly the changes after N).
//     The machine routes an event (Route) and commits its resourceVersion
//     only once the sink took it (Accepted).
//   - A refused event is asked for again, never skipped: when the sink
//     refuses a list item or an event (ErrRefused: a Transform's error, a
//     closed FIFO), the replace is aborted or the watch ended, and after a
//     backoff the same LIST runs again, or the watch resumes before the
//     refused event. Whatever the sink's error wraps (even io.EOF or a
//     410), a refusal is backed off, so a sink that keeps refusing costs
//     one attempt per backoff period (at most 30 s), logged as a warning,
//     and holds this reflector at that event. client-go differs: its
//     reflector logs a watch event its store refused and goes on past it
//     (the cache then lacks that change until a relist), while a refused
//     relist is retried as here.
//   - Only an expired history (410 Gone) costs a relist, at the last
//     resourceVersion ("not older than"), or at the newest state when that
//     list is itself expired. Dropped connections, server timeouts and idle
//     timeouts resume the watch: no relist storms after an apiserver restart.
//   - No hot loop on a misbehaving server or proxy: a watch that the server
//     ends normally within VeryShortWatch (1 s) of its request, with no
//     event (a bookmark counts), is an error (ErrVeryShortWatch) and is
//     backed off, as client-go's VeryShortWatchError is.
//   - A timeout is not a stop: only the caller's own context ending stops
//     Run (Stopped). A LIST or WATCH that fails with an error wrapping
//     context.DeadlineExceeded while that context is alive (the client's
//     Timeout, a dial timeout to an unreachable apiserver, an exec plugin
//     that did not answer) is backed off and logged as a warning like any
//     other failure.
//   - The cache never goes back in time: a live event older than the last
//     resourceVersion applied (a stale or out-of-order event, one older
//     than the list; API rule: a watch's events come in increasing
//     resourceVersion order) is not applied; the watch ends with
//     ErrOutOfOrder and, after a backoff, the newest state is listed, since
//     such a stream may have hidden a change. A bookmark older than it is
//     ignored. An event at the last resourceVersion (a repeat) is applied.
//     resourceVersions are compared only when both are decimal integers
//     (etcd revisions); any other value is opaque. client-go applies such
//     events as they come.
//   - "Too large resourceVersion" cannot loop: the next list reads the newest
//     state.
//   - Lists stream into the sink item by item, page by page: the reflector
//     never holds a decoded list. When a continue token expires midway (410:
//     its snapshot was compacted), the list is read again at once without
//     pagination, so a list slower than compaction still completes. With
//     WatchList (sendInitialEvents=true, the default) the initial state
//     arrives as events ending with a bookmark annotated
//     k8s.io/initial-events-end; a server that refuses it (400, 405, 422)
//     gets LIST+WATCH from then on. A 403 is about the caller's rights,
//     which an RBAC binding may fix a second later: it costs WatchList only
//     for that attempt's backoff window (a LIST now, WatchList again for a
//     relist after the window).
//   - Bookmarks are requested and advance the resourceVersion; each watch asks
//     for a random timeout in [5, 10) minutes so informers do not reconnect in
//     step; a connection silent past IdleTimeout is closed and resumed.
//
// # client-go names
//
// Reflector ≈ cache.Reflector (ListAndWatch, watchHandler); ListerWatcher ≈
// cache.ListerWatcher; Sink ≈ the reflector's Store (a DeltaFIFO);
// Backoff ≈ wait.Backoff with the reflector's defaults; ErrVeryShortWatch ≈
// VeryShortWatchError; DisableWatchList ≈ the WatchListClient feature gate
// turned off.
package reflector
