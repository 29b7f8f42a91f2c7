// Package fakeapi is an in-process fake kube-apiserver for tests: an
// httptest server that serves GET, LIST and WATCH for a few namespaced
// resources out of an in-memory store, and misbehaves on purpose when a
// seeded fault Injector tells it to.
//
// It stands where the real apiserver stands in kcm's data path, so that the
// whole informer pipeline can be exercised quickly and without a cluster:
//
//	test ──Create/Update/Delete (Go API)──▶ fakeapi store ── history (compacted)
//	                                          │
//	                      LIST / WATCH (HTTP, WebSocket)  ◀── Injector (seeded faults)
//	                                          ▼
//	reflector ──▶ deltafifo ──▶ store ──▶ processor ──▶ handler ──▶ queue ──▶ workers ──▶ ctrl
//
// # What it models
//
//   - A resourceVersion counter shared by all resources (etcd's revision):
//     every write takes the next value; the object carries it, and a
//     DELETED event carries the revision of the delete.
//   - A history of changes with compaction: a watch from a resourceVersion
//     older than the compacted floor is answered with an ERROR event
//     (410 Expired), as is a watcher that falls behind a compaction; an
//     exact LIST at such a resourceVersion, or a continue token pointing
//     there, is answered 410.
//   - LIST with resourceVersion ""/"0"/"N", resourceVersionMatch
//     (NotOlderThan, Exact), limit and continue. All pages of a paginated
//     LIST come from the snapshot of the first page, rebuilt from the
//     history.
//   - WATCH with resourceVersion, allowWatchBookmarks (a bookmark every
//     BookmarkInterval), timeoutSeconds (capped by MaxWatch so tests need
//     not wait seconds), and sendInitialEvents=true (WatchList): the current
//     state as ADDED events, then a BOOKMARK annotated
//     k8s.io/initial-events-end: "true", then the live stream.
//   - Framing as kube-apiserver does it: chunked HTTP with JSON objects back
//     to back, flushed when the pending events are written; or, for a
//     request that asks for a WebSocket upgrade and sends an Origin header
//     (without one the handshake is refused with 403, as kube-apiserver
//     1.34 does), one event per text message.
//   - Protobuf (proto.go), for a request whose Accept names
//     application/vnd.kubernetes.protobuf first and a kind package api
//     models with a protobuf form: objects and paged LISTs in the k8s
//     envelope, watches as length-prefixed metav1.WatchEvent frames on
//     chunked HTTP (Content-Type ...;stream=watch) or one WatchEvent per
//     binary WebSocket message, and Status failures (ERROR events
//     included) in protobuf. The store keeps each object's JSON and the
//     protobuf message of the typed struct it decodes into
//     (protocodec.Marshal), so the two forms agree on every field kcm
//     models. Stats.Protobuf counts the answers in protobuf.
//
// Writes go through the Go API (Server.Create, Update, Delete, Compact),
// never over HTTP: the code under test only reads.
//
// # Faults
//
// An Injector, seeded, decides for each request, each LIST body and each
// watch frame whether to misbehave: 500/503/429 (Retry-After: 1) answers,
// 410 for LISTs and continue tokens, 504 "too large resource version",
// slow starts, watches that never get their response headers, truncated
// and malformed LIST bodies, LISTs at resourceVersion "0" answered from an
// older snapshot (a lagging watch cache), dropped connections, frames cut in the
// middle, garbage bytes between frames, ERROR 410 events, stalls (the
// stream goes silent, bookmarks included, until the client gives up) and
// slow frames. The faults real clusters and hostile servers show come in
// families, each in its own file:
//
//   - TLS with HTTP/2 (Options.TLS, tls.go): a GOAWAY slipped between two
//     frames, a GOAWAY followed by a cut connection, a connection that
//     goes silent (lost pings) and a TLS handshake never answered.
//   - Credentials and routing (auth.go): bearer tokens (Options.Tokens)
//     revoked with a 401 so the client must refresh, 403 on watches only,
//     and a 307 to another host (Options.Redirects) that counts any
//     credentials reaching it.
//   - A slow-loris LIST body, a byte at a time (list.go).
//   - Bad watch content (content.go): duplicate, out-of-order and stale
//     events, a lower bookmark, DELETED for an unknown key, ADDED for an
//     existing one, ERROR events other than 410.
//   - Bad protobuf (protofaults.go), on protobuf answers only: a frame
//     whose length prefix lies (a few bytes, or near 4 GiB), a message
//     that ends inside a varint, a Status where a pod belongs, unknown
//     fields and groups at every level of an event or a LIST (to be read
//     through), an event or list item over the client's object bound
//     (Options.MaxObject), an event as JSON on the protobuf stream; and
//     the Garbage and ListGarbage faults in protobuf form.
//
// # The resume check
//
// When a fault keeps a live change from the client (the connection cut
// or stalled before it, its frame cut or replaced by bytes the client
// cannot read), the client's next watch of that scope must resume before
// that change, or the client must list again: Server.ResumeViolations
// lists the watches that resumed after it, which a client that skips a
// bad frame and reads on does (resume.go). Convergence alone would not
// tell: a later relist repairs the loss.
//
// The decisions come from one seeded *rand.Rand, but the
// order in which concurrent requests draw from it depends on scheduling:
// a seed reproduces the kind and rate of faults, not an exact interleaving.
//
// There is no client-go counterpart; it plays the part client-go's tests
// give to a real apiserver or to fake ListerWatchers.
package fakeapi
