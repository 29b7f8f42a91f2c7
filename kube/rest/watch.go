package rest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// EventType is the type of a watch event.
type EventType string

// Watch event types (meta/v1 WatchEvent).
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
	Bookmark EventType = "BOOKMARK"
	Error    EventType = "ERROR"
)

// InitialEventsEndAnnotation marks the bookmark that ends the initial
// events of a WatchList (sendInitialEvents=true).
const InitialEventsEndAnnotation = "k8s.io/initial-events-end"

// ErrIdleTimeout ends a watch that received nothing for its IdleTimeout.
var ErrIdleTimeout = errors.New("watch idle timeout: no bytes received")

// WatchEvent is one decoded watch event.
type WatchEvent[T api.Object] struct {
	Type EventType
	// Object is set for ADDED, MODIFIED, DELETED and BOOKMARK (a bookmark's
	// object carries only metadata: resourceVersion and annotations).
	Object T
	// Err is set for ERROR events: the Status the server sent, as an error
	// with the usual predicates (IsGone for 410 Expired, ...).
	Err *StatusError
	// Size is the number of bytes of the event on the wire.
	Size int
}

// IsInitialEventsEnd reports the bookmark that closes a WatchList's
// initial events.
func (e *WatchEvent[T]) IsInitialEventsEnd() bool {
	return e.Type == Bookmark && e.Object.GetObjectMeta().Annotations[InitialEventsEndAnnotation] == "true"
}

// frameSource yields the bytes of one watch event at a time: JSON, or a
// protobuf WatchEvent message when protobuf, asked after next, reports it
// (see chunkedSource, protoChunkedSource and wsSource for how each knows).
type frameSource interface {
	next() ([]byte, error) // io.EOF when the server ended the watch cleanly
	close() error
	protobuf() bool // the encoding of the frame next returned last
}

// Watcher is an open watch: a pull-based stream of events. It is not safe
// for concurrent Next calls; Close may be called from any goroutine.
type Watcher[T api.Object] struct {
	src    frameSource
	codec  decode.Codec[T]
	pd     decode.ProtoDecoder[T] // codec's, for a protobuf stream
	path   string
	kinds  expectedKinds
	cancel context.CancelFunc
	once   sync.Once
}

// Next blocks for the next event. It returns io.EOF when the server closed
// the watch normally (timeoutSeconds reached), ErrIdleTimeout (wrapped) when
// the connection went silent, an error wrapping ErrDecode for malformed
// bytes — an object of another kind than the watch's included (see
// expectedKinds) — and the context's error after cancellation. Any error
// ends the watch: open a new one to continue.
func (w *Watcher[T]) Next() (WatchEvent[T], error) {
	ev, err := w.next()
	if err == nil {
		err = checkKind(w.kinds, ev)
	}
	return ev, err
}

// next reads and decodes the next event.
func (w *Watcher[T]) next() (WatchEvent[T], error) {
	if cs, ok := w.src.(*chunkedSource); ok && cs.lines && decode.ChecksWholeObject(w.codec) {
		if ev, ok := nextLine(cs, w.codec); ok {
			return ev, nil
		}
	}
	frame, err := w.src.next()
	if err != nil {
		return WatchEvent[T]{}, err
	}
	if w.src.protobuf() {
		return decodeProtoEvent(frame, w.pd, w.path)
	}
	if cs, ok := w.src.(*chunkedSource); ok {
		// The scanner that cut the frame saw where its last member ends.
		if start, end, ok := cs.fr.scan.LastChild(); ok {
			return decodeEventAt(frame, start, end, w.codec, w.path)
		}
	}
	return decodeEvent(frame, w.codec, w.path)
}

// Close ends the watch and releases its connection. Idempotent.
func (w *Watcher[T]) Close() error {
	var err error
	w.once.Do(func() {
		w.cancel()
		err = w.src.close()
	})
	return err
}

// decodeEventAt is decodeEvent for a frame whose last container member
// spans frame[start:end] (jsonx.Scanner.LastChild): an envelope of the
// apiserver's shape whose object is that member is split without
// reading the object again.
func decodeEventAt[T api.Object](frame []byte, start, end int, codec decode.Codec[T], path string) (ev WatchEvent[T], err error) {
	typ, objStart, ok := quickSplit(frame)
	if !ok || objStart != start || !closesAt(frame, end) {
		return decodeEvent(frame, codec, path)
	}
	return decodeSplit(frame, typ, start, end, codec)
}

// decodeSplit decodes the object frame[start:end] of an event of type typ
// whose envelope quickSplit and closesAt have checked.
func decodeSplit[T api.Object](frame []byte, typ EventType, start, end int, codec decode.Codec[T]) (ev WatchEvent[T], err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: watch event: %v", api.ErrDecode, p)
		}
	}()
	ev.Type, ev.Size = typ, len(frame)
	ev.Object, err = decode.Borrowed(codec, frame[start:end])
	return ev, err
}

// decodeEvent decodes one event frame. The frame may be a slice of a read
// buffer: the object's bytes are copied before the codec keeps them.
func decodeEvent[T api.Object](frame []byte, codec decode.Codec[T], path string) (ev WatchEvent[T], err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: watch event: %v", api.ErrDecode, p)
		}
	}()
	typ, obj, err := splitEvent(frame)
	if err != nil {
		return ev, err
	}
	ev.Type, ev.Size = typ, len(frame)
	switch typ {
	case Added, Modified, Deleted, Bookmark:
		ev.Object, err = decode.Borrowed(codec, obj)
		return ev, err
	case Error:
		var s Status
		if err := jsonx.Unmarshal(obj, &s); err != nil {
			return ev, fmt.Errorf("%w: watch ERROR event: %v", api.ErrDecode, err)
		}
		ev.Err = StatusErrorFrom("WATCH", path, s)
		return ev, nil
	}
	return ev, fmt.Errorf("%w: unknown watch event type %q", api.ErrDecode, typ)
}

// knownEventTypes are the event types by their quoted spelling.
var knownEventTypes = map[string]EventType{
	`"ADDED"`: Added, `"MODIFIED"`: Modified, `"DELETED"`: Deleted, `"BOOKMARK"`: Bookmark, `"ERROR"`: Error,
}

// quickSplit reads the start of an envelope of the shape the apiserver
// writes, {"type":"T","object":{...}}, T an object event's type: it
// returns T and where the object starts. Any other start — keys in
// another order, spaces, an escape, an ERROR event — is left to
// splitEvent (ok false).
func quickSplit(frame []byte) (typ EventType, objStart int, ok bool) {
	const prefix, objectKey = `{"type":"`, `,"object":{`
	if !bytes.HasPrefix(frame, []byte(prefix)) {
		return "", 0, false
	}
	q := bytes.IndexByte(frame[len(prefix):], '"')
	if q < 0 {
		return "", 0, false
	}
	typEnd := len(prefix) + q + 1
	if typ, ok = knownEventTypes[string(frame[len(prefix)-1:typEnd])]; !ok || typ == Error {
		return "", 0, false
	}
	if !bytes.HasPrefix(frame[typEnd:], []byte(objectKey)) {
		return "", 0, false
	}
	return typ, typEnd + len(objectKey) - 1, true
}

// closesAt reports whether only whitespace and the envelope's closing
// brace follow frame[:end]: the member ending there is the last.
func closesAt(frame []byte, end int) bool {
	i := jsonx.SkipWS(frame, end)
	return i < len(frame) && frame[i] == '}' && jsonx.SkipWS(frame, i+1) == len(frame)
}

// splitEvent finds the type and the object of an event envelope
// {"type":"...","object":{...}} by scanning, without decoding the object.
func splitEvent(frame []byte) (EventType, []byte, error) {
	var buf [4]jsonx.Member // an envelope has two members: no allocation
	ms, err := jsonx.MembersInto(buf[:0], frame, 0)
	if err != nil {
		return "", nil, fmt.Errorf("%w: watch event: %w", api.ErrDecode, err)
	}
	var typ EventType
	var obj []byte
	for _, m := range ms {
		v := frame[m.ValStart:m.End]
		switch string(frame[m.KeyStart:m.KeyEnd]) {
		case "type":
			if t, ok := knownEventTypes[string(v)]; ok {
				typ = t // the common types without allocating
				continue
			}
			s, ok := jsonx.Unquote(v)
			if !ok {
				return "", nil, fmt.Errorf("%w: watch event type %.40q is not a string", api.ErrDecode, v)
			}
			typ = EventType(s)
		case "object":
			if len(v) == 0 || v[0] != '{' {
				return "", nil, fmt.Errorf("%w: watch event %q: object is not a JSON object", api.ErrDecode, typ)
			}
			obj = v
		}
	}
	if obj == nil {
		return "", nil, fmt.Errorf("%w: watch event %q without object", api.ErrDecode, typ)
	}
	return typ, obj, nil
}

// Watch opens a watch. opts.ResourceVersion "N" streams events after N;
// "" or "0" starts with synthetic ADDED events for the current state, as
// does SendInitialEvents=true (WatchList), which ends them with a bookmark
// (see WatchEvent.IsInitialEventsEnd).
func (r *Resources[T]) Watch(ctx context.Context, opts WatchOptions) (*Watcher[T], error) {
	q := opts.Values()
	q.Set("watch", "true")
	req := &request{verb: http.MethodGet, path: r.res.Path(r.ns, ""), query: q, accept: r.accept(false), idempotent: true, stream: true}
	ctx, cancel := context.WithCancel(ctx)
	var src frameSource
	var err error
	if opts.Transport == WebSocket {
		src, err = r.c.dialWebSocket(ctx, req, opts.IdleTimeout)
	} else {
		src, err = r.c.openChunked(ctx, cancel, req, opts.IdleTimeout)
	}
	if err != nil {
		cancel()
		return nil, err
	}
	return &Watcher[T]{src: src, codec: r.codec, pd: r.proto, path: req.path, kinds: r.expectedKinds(), cancel: cancel}, nil
}

// chunkedSource splits a chunked watch response into event frames. The
// server writes JSON objects back to back; their boundaries are found by
// parsing, not by newlines — except that the newline kube-apiserver writes
// after each event is taken as a hint where the codec can check it (see
// nextLine).
type chunkedSource struct {
	// lines: events may be framed by their newline (nextLine). Cleared
	// for good the first time a hint fails or an event is not followed by
	// a newline: such a stream is framed by the scanner only.
	lines bool
	body  io.ReadCloser
	fr    *frameReader
	idle  *idleReader
	ctx   context.Context
}

func (c *Client) openChunked(ctx context.Context, cancel context.CancelFunc, req *request, idle time.Duration) (frameSource, error) {
	// The idle timeout also bounds the wait for the response headers: a
	// server that accepted the watch but never answers is as silent as a
	// stream that stopped.
	headers := newIdleTimer(c.clock, idle, cancel)
	resp, err := c.do(ctx, req)
	if !headers.stop() {
		if err == nil {
			resp.Body.Close()
		}
		return nil, fmt.Errorf("watch: no response headers within %v: %w", idle, ErrIdleTimeout)
	}
	if err != nil {
		return nil, err
	}
	if isProtobuf(resp.Header.Get("Content-Type")) {
		return newProtoChunkedSource(ctx, c.clock, resp.Body, idle, cancel, c.maxObject), nil
	}
	src := newChunkedSource(ctx, c.clock, resp.Body, idle, cancel)
	src.fr.withLimit(c.maxObject)
	return src, nil
}

// A watch's read buffer starts at watchBufferStart and grows, while the
// stream keeps it full, to watchBufferMax: a busy watch then takes several
// events a read, and a quiet one (most of a manager's watches: one per
// resource, the garbage collector watches them all) holds 4 KiB, not 32.
const (
	watchBufferStart = 4 << 10
	watchBufferMax   = 32 << 10
)

// newChunkedSource reads events from body; cancel is called when no bytes
// arrived for idle (zero: never) on clk.
func newChunkedSource(ctx context.Context, clk clock.Clock, body io.ReadCloser, idle time.Duration, cancel context.CancelFunc) *chunkedSource {
	ir := newIdleReader(clk, body, idle, cancel)
	return &chunkedSource{lines: true, body: body, idle: ir, ctx: ctx, fr: newFrameReader(ir, watchBufferStart).growingTo(watchBufferMax)}
}

// next returns the next event's bytes: a slice of the read buffer, valid
// until the following call.
func (s *chunkedSource) next() ([]byte, error) {
	c, err := s.fr.peek(true)
	if err == nil && c != '{' {
		err = fmt.Errorf("%w: watch stream: expected an event object, found %q", api.ErrDecode, c)
	}
	if err == nil {
		var frame []byte
		if frame, err = s.fr.value(false); err == nil {
			if f := s.fr; f.off < f.n && f.buf[f.off] != '\n' && f.buf[f.off] != '\r' {
				s.lines = false // events not ended by newlines: no hints to take
			}
			return frame, nil
		}
	}
	return nil, s.streamErr(err)
}

// streamErr explains why the stream stopped.
func (s *chunkedSource) streamErr(err error) error {
	switch {
	case s.idle.expired():
		return fmt.Errorf("watch: %w", ErrIdleTimeout)
	case s.ctx.Err() != nil:
		return s.ctx.Err()
	case errors.Is(err, io.EOF):
		return io.EOF
	}
	return decodeErr("watch", err)
}

func (s *chunkedSource) protobuf() bool { return false }

func (s *chunkedSource) close() error {
	s.idle.stop()
	return s.body.Close()
}
