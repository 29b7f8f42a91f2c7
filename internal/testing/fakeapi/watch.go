package fakeapi

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/gorilla/websocket"
)

// watchRequest is a parsed WATCH.
type watchRequest struct {
	res       int
	ns        string
	rv        string
	initial   bool // sendInitialEvents=true (WatchList)
	bookmarks bool
	timeout   time.Duration // 0: none
	proto     bool          // the watch is served as protobuf (proto.go)
	websocket bool
	seq       uint64 // the watch's number in its scope (resume.go)
}

// frameWriter is one watch connection as the watch loop sees it: chunked
// HTTP or WebSocket. Every method but flush ends the use of the writer when
// it breaks the connection.
type frameWriter interface {
	write(frame []byte) error // one event (a chunked protobuf writer adds its length prefix)
	flush() error
	garbage(b []byte) error // bytes that are no event, written as they are (one message on WebSocket)
	truncate(frame []byte)  // half a frame, then the connection is cut
	abort()                 // cut the connection without a clean end
	finish()                // end the watch cleanly
	gone() <-chan struct{}  // closed when the client went away
}

func (s *Server) parseWatch(q url.Values, res int, ns string) (watchRequest, *apiError) {
	wr := watchRequest{res: res, ns: ns, rv: q.Get("resourceVersion"),
		initial: q.Get("sendInitialEvents") == "true", bookmarks: q.Get("allowWatchBookmarks") == "true"}
	if secs, err := strconv.Atoi(q.Get("timeoutSeconds")); err == nil && secs > 0 {
		wr.timeout = time.Duration(secs) * time.Second
	}
	if s.o.MaxWatch > 0 && (wr.timeout == 0 || wr.timeout > s.o.MaxWatch) {
		wr.timeout = s.o.MaxWatch
	}
	if wr.initial {
		switch {
		case s.o.NoWatchList:
			return wr, &apiError{code: 422, reason: "Invalid", msg: "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"}
		case !wr.bookmarks || q.Get("resourceVersionMatch") != "NotOlderThan":
			return wr, &apiError{code: 422, reason: "Invalid", msg: "sendInitialEvents requires allowWatchBookmarks=true and resourceVersionMatch=NotOlderThan"}
		}
	}
	if wr.rv != "" {
		if _, err := strconv.ParseUint(wr.rv, 10, 64); err != nil {
			return wr, &apiError{code: 400, reason: "BadRequest", msg: "fakeapi: invalid resourceVersion " + strconv.Quote(wr.rv)}
		}
	}
	return wr, nil
}

func (s *Server) serveWatch(w http.ResponseWriter, r *http.Request, res int, ns string) {
	s.watches.Add(1)
	wr, aerr := s.parseWatch(r.URL.Query(), res, ns)
	if aerr != nil {
		writeStatus(w, r, aerr.code, aerr.reason, aerr.msg)
		return
	}
	if wr.proto = s.servesProto(r, res); wr.proto {
		s.protobuf.Add(1)
	}
	wr.websocket = websocket.IsWebSocketUpgrade(r)
	wr.seq = s.resumes.watchStarted(wr)
	if wr.websocket {
		s.serveWebSocket(w, r, wr)
		return
	}
	cw := &chunked{w: w, rc: http.NewResponseController(w), done: r.Context().Done(), sep: []byte("\n"), proto: wr.proto}
	if wr.proto {
		w.Header().Set("Content-Type", watchContentType)
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(http.StatusOK)
	if s.o.CompactFrames || wr.proto {
		cw.sep = nil
	}
	_ = cw.flush()
	s.runWatch(cw, wr)
}

// start resolves where a watch begins: the objects to announce first (for
// WatchList and for resourceVersion ""/"0") and the revision after which
// changes are streamed.
func (s *Server) start(wr watchRequest) (initial []item, pos int64, fail []byte) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	if wr.initial || wr.rv == "" || wr.rv == "0" {
		return s.db.snapshotLocked(wr.res, wr.ns, s.db.rv), s.db.rv, nil
	}
	n, _ := strconv.ParseInt(wr.rv, 10, 64)
	switch {
	case n < s.db.floor:
		return nil, 0, goneFrame(wr.proto, n, s.db.floor)
	case n > s.db.rv:
		return nil, 0, statusFrame(wr.proto, 504, "Timeout", "Too large resource version: "+wr.rv, "ResourceVersionTooLarge")
	}
	return nil, n, nil
}

// runWatch streams one watch until it ends: by timeout (cleanly), by the
// client leaving, by the server closing, or by a fault.
func (s *Server) runWatch(fw frameWriter, wr watchRequest) {
	initial, pos, fail := s.start(wr)
	if fail != nil {
		s.endWith(fw, fail)
		return
	}
	for _, it := range initial {
		if !s.emit(fw, wr, s.eventFrame(wr, added, it.obj, it.pb), 0) {
			return
		}
	}
	if wr.initial && !s.emit(fw, wr, s.bookmarkFrame(wr, pos, true), 0) {
		return
	}
	var timeout <-chan time.Time
	if wr.timeout > 0 {
		t := time.NewTimer(wr.timeout)
		defer t.Stop()
		timeout = t.C
	}
	tick := time.NewTicker(s.o.BookmarkInterval)
	defer tick.Stop()
	for {
		changes, changed, cur, fail := s.next(wr, pos)
		if fail != nil {
			s.endWith(fw, fail)
			return
		}
		frames, stop := s.mangle(wr, changes, pos)
		for _, f := range frames {
			if f.broken {
				s.resumes.lost(wr, f.rv)
			}
			switch {
			case f.raw: // bytes that are no frame of this stream
				if fw.garbage(f.data) != nil {
					return
				}
			case f.glued:
				if fw.write(f.data) != nil {
					return
				}
			case !s.emit(fw, wr, f.data, f.rv):
				return
			}
		}
		if stop { // an ERROR event: the server ends the watch
			if fw.flush() == nil {
				fw.finish()
			}
			return
		}
		pos = cur
		if fw.flush() != nil {
			return
		}
		select {
		case <-fw.gone():
			return
		case <-s.stop:
			fw.abort()
			return
		case <-timeout:
			fw.finish()
			return
		case <-tick.C:
			if wr.bookmarks && !s.emit(fw, wr, s.bookmarkFrame(wr, pos, false), 0) {
				return
			}
		case <-changed:
		}
	}
}

// next returns the changes after pos, the channel that announces the next
// write, and the revision they bring the watch to; or an ERROR frame when
// the history after pos was compacted away (the watch fell behind).
func (s *Server) next(wr watchRequest, pos int64) ([]change, <-chan struct{}, int64, []byte) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	if pos < s.db.floor {
		return nil, nil, 0, goneFrame(wr.proto, pos, s.db.floor)
	}
	return s.db.changesAfterLocked(wr.res, wr.ns, pos), s.db.changed, s.db.rv, nil
}

// endWith sends a last frame (an ERROR event) and ends the watch.
func (s *Server) endWith(fw frameWriter, frame []byte) {
	if fw.write(frame) == nil && fw.flush() == nil {
		fw.finish()
	}
}

// emit writes one frame, unless a fault strikes first; false when the
// watch is over. rv is the revision of the change the frame carries first
// (outFrame.rv), 0 for any other frame: a fault that keeps the frame from
// the client is noted for the resume check (resume.go).
func (s *Server) emit(fw frameWriter, wr watchRequest, frame []byte, rv int64) bool {
	cands := []Fault{Drop, Truncated, Garbage, ErrorGone, Stall, SlowFrame}
	if wr.proto {
		cands = append(cands, ProtoLyingLength, ProtoTruncatedVarint, ProtoWrongKind)
	}
	f := s.faults.roll(cands...)
	switch f {
	case Drop, Truncated, ErrorGone, Stall, ProtoLyingLength, ProtoTruncatedVarint, ProtoWrongKind:
		s.resumes.lost(wr, rv)
	}
	switch f {
	case ProtoLyingLength, ProtoTruncatedVarint, ProtoWrongKind:
		return s.protoFrameFault(fw, wr, f, frame)
	case Drop:
		_ = fw.flush()
		fw.abort()
		return false
	case Truncated:
		fw.truncate(frame)
		return false
	case Garbage:
		if wr.proto {
			if fw.write(s.faults.protoGarbage()) != nil {
				return false
			}
		} else if fw.garbage(s.faults.garbage()) != nil {
			return false
		}
	case ErrorGone:
		s.endWith(fw, statusFrame(wr.proto, 410, "Expired", "fakeapi: injected: too old resource version"))
		return false
	case Stall:
		_ = fw.flush()
		s.pause(time.Hour, fw.gone())
		fw.abort()
		return false
	case SlowFrame:
		_ = fw.flush()
		s.pause(s.faults.slow(), fw.gone())
	}
	return fw.write(frame) == nil
}

func goneFrame(proto bool, rv, floor int64) []byte {
	msg := "too old resource version: " + strconv.FormatInt(rv, 10) + " (" + strconv.FormatInt(floor, 10) + ")"
	return statusFrame(proto, 410, "Expired", msg)
}

// frameOf wraps an object into a watch event.
func frameOf(typ string, obj []byte) []byte {
	b := make([]byte, 0, len(obj)+32)
	b = append(b, `{"type":"`...)
	b = append(b, typ...)
	b = append(b, `","object":`...)
	b = append(b, obj...)
	return append(b, '}')
}

// bookmarkFrame is a BOOKMARK at rv; end marks the end of a WatchList's
// initial events.
func (s *Server) bookmarkFrame(wr watchRequest, rv int64, end bool) []byte {
	res := s.o.Resources[wr.res]
	obj := `{"kind":` + strconv.Quote(res.Kind) + `,"apiVersion":` + strconv.Quote(res.APIVersion()) +
		`,"metadata":{"resourceVersion":"` + strconv.FormatInt(rv, 10) + `"`
	if end {
		obj += `,"annotations":{"k8s.io/initial-events-end":"true"}`
	}
	return s.madeUpFrame(wr, "BOOKMARK", []byte(obj+"}}"))
}

// chunked writes a watch as one streamed HTTP response: JSON events
// followed by sep, or protobuf frames behind their length prefix.
type chunked struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	done  <-chan struct{}
	sep   []byte
	proto bool
}

func (c *chunked) write(frame []byte) error {
	if c.proto {
		frame = lengthPrefixed(frame)
	}
	if _, err := c.w.Write(frame); err != nil {
		return err
	}
	_, err := c.w.Write(c.sep)
	return err
}

func (c *chunked) flush() error          { return c.rc.Flush() }
func (c *chunked) gone() <-chan struct{} { return c.done }
func (c *chunked) finish()               {}
func (c *chunked) abort()                { cut(c.w) }

func (c *chunked) garbage(b []byte) error {
	if _, err := c.w.Write(b); err != nil {
		return err
	}
	return c.flush()
}

func (c *chunked) truncate(frame []byte) {
	if c.proto { // the whole length announced, half the bytes sent
		frame = lengthPrefixed(frame)
	}
	_, _ = c.w.Write(frame[:len(frame)/2])
	_ = c.flush()
	cut(c.w)
}

// cut breaks a response's connection without ending the body properly
// (no final chunk): the client sees an unexpected EOF.
func cut(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // HTTP/2: net/http resets the stream
	}
	_ = conn.Close()
}
