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
// `kcm trace` use them: the first LIST at resourceVersion "0"
// (ListFromCache, client-go's first list), 500 items per LIST page, watch
// timeouts in [5, 10) minutes, a 5-minute idle timeout, client-go's
// backoff. The first-list default was chosen on the measurements in
// bench/RESULTS.md, section "list+sync against the real kube-apiserver"
// (the figures are there, not here): every LIST form cost kcm the same
// CPU, well under client-go's, and the apiserver's answer at "0" is one
// response from its watch cache, with no wait for etcd, still paged from
// etcd for a resource without a watch cache; WatchList cost the client
// more CPU than a LIST, cost the apiserver the most, and was the slowest.
// The paging forms (consistent, and pages of every size measured) were
// not measurably slower than one response on that machine (shared,
// loaded cores), but each page is a round trip that an idle many-core
// machine would wait for.
//
// # What the first list may serve stale
//
// InitialList chooses how the state a reflector starts from is read; the
// choices differ in what the apiserver may answer.
//
//   - ListFromCache (the default; resourceVersion "0", "any" in the API
//     conventions): the apiserver answers from its watch cache as it
//     stands, without asking etcd where the newest state is. The cache
//     follows etcd through a watch and may lag behind it: by milliseconds
//     normally, by seconds on an overloaded apiserver, by as long as it
//     stays cut off from etcd. (An apiserver whose cache is not filled yet,
//     just restarted, answers such a LIST from etcd, newest, in pages
//     since Kubernetes 1.31; one with a label or field selector gets 429
//     with Retry-After, which the reflector waits out.) In a control plane
//     of several apiservers,
//     each has its own cache, so a process that restarts, or a new leader
//     after a failover, may be answered by one further behind than the one
//     its predecessor read: the state may be older than what was already
//     seen (kubernetes/kubernetes#59848). The informer reports synced on
//     that state and its handlers see it. The watch from its
//     resourceVersion then delivers every later change (or, when that
//     resourceVersion has left the watch cache's window, a 410 brings a
//     relist not older than it), so the cache converges; until it does, a
//     controller may act on the older state. An update built from a stale
//     object fails with 409 Conflict (its resourceVersion is the
//     precondition); a create, or a patch without a resourceVersion, is not
//     protected. kube-controller-manager's informers have exactly this
//     exposure: client-go's first list is the same request. A resource the
//     apiserver keeps no watch cache for is answered from etcd, newest,
//     500 per page: not stale.
//   - ListConsistent (resourceVersion ""): the newest state, as a quorum
//     read of etcd would see it, never stale. Since Kubernetes 1.31
//     (ConsistentListFromCache, locked on in 1.34) the apiserver asks etcd
//     for its current revision and answers from its watch cache once the
//     cache has reached it (from etcd after 3 s if it has not). Pages after
//     the first read the first page's snapshot; a continue token older than
//     the compaction is answered 410 and the list is read again whole.
//   - ListStream (WatchList, sendInitialEvents=true at resourceVersion ""):
//     consistent as ListConsistent; the state arrives as watch events on
//     the stream that then goes on as the watch.
//
// Whatever the choice, the reflector never goes back in time on its own
// account: after a watch's 410 it relists not older than the last
// resourceVersion it applied (never at "0"), and at the newest state when
// that one is itself expired; a watch resumes exactly after the last
// accepted event. A list that fails midway has handed its first items to
// the sink already (the list streams; a failed replace undoes nothing), so
// the next list reads not older than the newest of them, even when it
// would otherwise ask for "0" (Machine.Listed; client-go, which applies
// nothing of a failed list, needs no such rule).
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
//     state. Neither can an expired first list at "0": it is read again at
//     once at the newest state, as client-go's is.
//   - Lists stream into the sink item by item, page by page: the reflector
//     never holds a decoded list. When a continue token expires midway (410:
//     its snapshot was compacted), the list is read again at once without
//     pagination, so a list slower than compaction still completes. With
//     WatchList (ListStream: sendInitialEvents=true) the initial state
//     arrives as events ending with a bookmark annotated
//     k8s.io/initial-events-end; a server that refuses it (400, 405, 422)
//     gets LIST+WATCH from then on. A 403 is about the caller's rights,
//     which an RBAC binding may fix a second later: it costs WatchList only
//     for that attempt's backoff window (a LIST now, WatchList again for a
//     relist after the window).
//   - Bookmarks are requested and advance the resourceVersion, and the sink
//     is told of each one past the initial events that does not go back
//     (Sink.Bookmark), in order with the events; each watch asks
//     for a random timeout in [5, 10) minutes so informers do not reconnect in
//     step; a connection silent past IdleTimeout is closed and resumed.
//
// # client-go names
//
// Reflector ≈ cache.Reflector (ListAndWatch, watchHandler); ListerWatcher ≈
// cache.ListerWatcher; Sink ≈ the reflector's Store (a DeltaFIFO);
// Backoff ≈ wait.Backoff with the reflector's defaults; ErrVeryShortWatch ≈
// VeryShortWatchError; ListFromCache ≈ relistResourceVersion's "0" before the
// first sync; ListStream ≈ the WatchListClient feature gate turned on;
// DisableWatchList ≈ that gate turned off.
package reflector
