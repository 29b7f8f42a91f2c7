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
// event arrived, a watch ended with some error). A test steps it through any
// history of failures in microseconds. Reflector.Run is the thin shell that
// performs the actions with a kube client and the injected clock.
//
//	         ┌────────────── 410 Gone ──────────────┐
//	         ▼                                      │
//	┌─▶ Listing ─────ok────▶ Watching ──events──▶ Watching
//	│   WatchListing ──end bookmark──▶ ▲  │
//	│      │                           │  └── server timeout, idle, dropped: resume at lastRV
//	│    error                         │
//	│      ▼                           │
//	└─ BackingOff (800 ms → 30 s, ×2, jitter; reset after 2 healthy minutes; 429 waits Retry-After)
//
// # Guarantees
//
//   - Nothing is missed or applied twice: every watch resumes from the
//     resourceVersion of the last state handed to the sink (API rule: a watch
//     from resourceVersion N delivers exactly the changes after N).
//   - Only an expired history (410 Gone) costs a relist, at the last
//     resourceVersion ("not older than"), or at the newest state when that
//     list is itself expired. Dropped connections, server timeouts and idle
//     timeouts resume the watch: no relist storms after an apiserver restart.
//   - "Too large resourceVersion" cannot loop: the next list reads the newest
//     state.
//   - Lists stream into the sink item by item, page by page: the reflector
//     never holds a decoded list. When a continue token expires midway (410:
//     its snapshot was compacted), the list is read again at once without
//     pagination, so a list slower than compaction still completes. With WatchList (sendInitialEvents=true, the
//     default when the server accepts it) the initial state arrives as events
//     ending with a bookmark annotated k8s.io/initial-events-end; a server
//     that refuses it gets LIST+WATCH from then on.
//   - Bookmarks are requested and advance the resourceVersion; each watch asks
//     for a random timeout in [5, 10) minutes so informers do not reconnect in
//     step; a connection silent past IdleTimeout is closed and resumed.
//
// # client-go names
//
// Reflector ≈ cache.Reflector (ListAndWatch, watchHandler); ListerWatcher ≈
// cache.ListerWatcher; Sink ≈ the reflector's Store (a DeltaFIFO);
// Backoff ≈ wait.Backoff with the reflector's defaults.
package reflector
