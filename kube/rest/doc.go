// Package rest is kcm's REST client: how to talk to one kube-apiserver
// once you know where it is (a Config, usually from clientcmd), and how
// what comes back becomes objects (through api's codecs).
//
// # Where it sits
//
//	clientcmd ─Config─▶ ┌──────────────────────── package rest ───────────────────────┐
//	                    │ Client: one transport per cluster, QPS, retries, errors     │
//	                    │ Resources[T]: get/list/watch/create/update/patch/delete     │──▶ kube-apiserver
//	                    │ DecodeList, Watcher[T]: streaming, item by item             │
//	                    └──────────────────────────────────────────────────────────────┘
//	                       ▲ reflector (list+watch)  ▲ controllers (writes)  ▲ lease
//
// # Guarantees
//
//   - One http.Transport per cluster (HTTP/2 with health pings,
//     keep-alive); clients derived with WithOptions share it and have
//     their own rate limiter and User-Agent, like kube-controller-manager's
//     per-controller clients.
//   - Reads are retried on 429, 5xx and broken connections with backoff
//     that honours Retry-After. Writes are retried only when the server
//     cannot have acted: 429 (rejected before processing) and refused or
//     timed-out dials. Only the caller's context (with Config.Timeout laid
//     over it) ending stops the retries: a dial timeout also wraps
//     context.DeadlineExceeded, but it is a transport failure.
//   - A list or watch whose connection fails mid-body (HTTP/2 connection
//     lost or GOAWAY, stream reset, chunked body cut short) fails with an
//     error wrapping ErrConnectionLost and the cause, never ErrDecode,
//     which is kept for bytes that are not the JSON expected.
//   - Server failures are *StatusError values that keep the server's
//     message and match sentinel errors: errors.Is(err, ErrNotFound),
//     IsConflict(err), IsGone(err) (410: resourceVersion expired), ...
//   - Lists can be streamed item by item (ListEach, DecodeList): memory
//     stays flat whatever the size of the list. Past its first 2048 items a
//     list is decoded on up to four cores (GOMAXPROCS) while the reader
//     goes on scanning, and fn still sees the items in order (listpar.go).
//     Watches are pull-based
//     streams over chunked HTTP or WebSocket. A list or watch that goes
//     silent ends with ErrIdleTimeout instead of hanging, and a LIST page
//     that keeps trickling bytes ends with ErrListPageTimeout once it took
//     DefaultListPageTimeout (2 min, WithListPageTimeout). Finding where
//     each object or event ends costs one pass over its bytes however the
//     reads cut it (a resumable scanner, jsonx.Scanner), and no object may
//     exceed 64 MiB (DefaultMaxObjectBytes, WithMaxObjectBytes): a hostile
//     server costs linear CPU and bounded memory. A watch event followed
//     by the newline kube-apiserver writes after each is not scanned at
//     all when the codec checks whole objects (decode.ChecksWholeObject):
//     the decode confirms where it ends (lines.go); the first hint that
//     fails turns hints off for the stream, which is then scanned.
//   - The shared transport's dial and TLS handshake bounds and its HTTP/2
//     health check (a ping after 30 s without a frame, answered within
//     15 s, as client-go) are TransportTimeouts (WithTransportTimeouts).
//   - Every read is bounded: a non-streamed body (GET, discovery, the answer
//     to a write) by DefaultMaxResponseBytes, 64 MiB (WithMaxResponseBytes),
//     failing with ErrResponseTooLarge that names the request and the
//     limit; one object or event of a stream, a WebSocket message, by the
//     same 64 MiB; an error answer's body by 1 MiB (the rest is ignored).
//   - Update keeps the fields kcm's types do not model: a typed object
//     read from the server is merged onto the JSON it was read from
//     (merge.go).
//   - Protobuf where kube-controller-manager reads it (content.go): with
//     Config.ContentType = ContentTypeProtobuf, a read asks for protobuf
//     iff the resource is a built-in kind (Resource.HasProtobuf) or the
//     read is metadata-only, and the codec reads protobuf
//     (decode.AsProto: decode.Wire(), and decode.Typed and decode.Compact
//     of the built-in kinds but StatefulSet); it asks as client-go does,
//     "application/vnd.kubernetes.protobuf, application/json", so a server
//     or proxy that answers JSON still works: every answer is decoded by
//     its Content-Type (for a WebSocket watch, whose handshake names none,
//     by each message's first byte). Protobuf lists stream item by item
//     (protowire.ReadList), protobuf watches are length-prefixed frames
//     (chunked) or one event per message (WebSocket), under the same
//     object limit, idle and page deadlines, parallel decoding and
//     no-panic guarantees as JSON; a protobuf Status failure, answered or
//     in an ERROR event, is the same *StatusError. A RawObject read as
//     protobuf is written back (Create, Update, UpdateSubresource) as its
//     enveloped message with Content-Type protobuf, so every field it
//     holds goes back; a typed object read as protobuf
//     (ObjectMeta.IsProto) as protocodec.MarshalMerge of it onto the
//     message it was read from (protowrite.go): the caller's changes,
//     every field kcm does not model kept, tested against kube-apiserver
//     for Update and UpdateStatus of pods, namespaces, service accounts,
//     nodes and services. Objects built in code, other writes, patches
//     and deletes are JSON.
//   - Retry backoff, rate limiting and idle timeouts run on kcm's clock
//     (WithClock), so tests step time instead of waiting for it.
//   - Credentials go only to the configured server: the Authorization
//     header (bearer token, basic auth, exec-plugin token) is added only
//     to requests whose scheme, host and port are those of Config.Host. A
//     redirect to another host, or from https down to http, is followed
//     anonymously; a WebSocket handshake never follows redirects.
//   - Secrets (tokens, passwords, keys) never appear in logs or errors,
//     and no rendering of a Config, TLSConfig, StaticToken or Client shows
//     them: every fmt verb, json.Marshal and zerolog print redacted views
//     (redact.go). A Client keeps its Credentials only as function values,
//     which fmt prints as addresses even when it walks unexported fields.
//
// # client-go names
//
// Config ≈ rest.Config; Client + Resources[T] ≈ rest.RESTClient plus the
// typed clientsets and the dynamic client; Resource ≈ a
// GroupVersionResource with its Kind and scope; StatusError ≈
// apierrors.StatusError; Watcher ≈ watch.Interface; DiscoverResources ≈
// the discovery client.
package rest
