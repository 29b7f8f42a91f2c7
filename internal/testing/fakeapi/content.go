package fakeapi

import (
	"strconv"
)

// Bad watch content: a server (or a proxy, an aggregated API server, a
// buggy storage layer) that sends events a correct kube-apiserver never
// sends. Each fault is drawn per change of a watch's live stream (not for
// a WatchList's initial events, whose order is free):
//
//   - Duplicate: the event twice.
//   - OutOfOrder: the event after the one that follows it (both are sent).
//   - Stale: first an older event again, from before the watch's position:
//     a resourceVersion older than the client's list or last event.
//   - LowBookmark: first a BOOKMARK lower than the last resourceVersion sent.
//   - GhostDelete: first a DELETED event for a key that never existed.
//   - ReAdd: the event, then an ADDED event of the same object (a key the
//     client already has).
//   - ErrorOther: an ERROR event that is not 410 Expired (500, 429 with a
//     retry delay, 403, or an object that is no Status), after which the
//     server ends the watch.
//
// None of them loses a change: every real event is still sent, in order
// but for an OutOfOrder pair, unless an ERROR ends the watch first (the
// client resumes from its last resourceVersion and gets the rest). The two
// events of an OutOfOrder pair go out back to back, no frame fault between
// them: a stream cut after the later one would lose the earlier one for
// good (the client resumes after the later), which no client can notice,
// let alone repair (found by the chaos suite, seed 882262).

// outFrame is one frame to write; glued frames go out right after the one
// before, with no frame fault in between; raw ones are written as they are
// (bytes of another encoding: no length prefix added).
//
// rv is the change's revision on the frame that carries it first (0 on a
// repeat, a made-up frame, a bookmark): if a fault keeps that frame from
// the client, the client must not resume after rv (resume.go). broken: the
// frame is already one the client cannot read in place of the change.
type outFrame struct {
	data   []byte
	glued  bool
	raw    bool
	rv     int64
	broken bool
}

// mangle returns the frames of changes (the live events after position
// last), with bad content mixed in as the faults draw it. stop is set when
// an ERROR frame, the last one returned, ends the watch; the changes after
// it are not sent.
func (s *Server) mangle(wr watchRequest, changes []change, last int64) (frames []outFrame, stop bool) {
	add := func(fs ...[]byte) {
		for _, f := range fs {
			frames = append(frames, outFrame{data: f})
		}
	}
	for i := 0; i < len(changes); i++ {
		c := changes[i]
		f := s.eventFrame(wr, c.typ, c.obj, c.pb)
		cands := []Fault{Duplicate, Stale, GhostDelete, ReAdd, ErrorOther}
		if wr.proto {
			cands = append(cands, ProtoUnknownFields, ProtoJSON, ProtoOversize)
		}
		if i+1 < len(changes) {
			cands = append(cands, OutOfOrder)
		}
		if wr.bookmarks && last > 1 {
			cands = append(cands, LowBookmark)
		}
		main := outFrame{data: f, rv: c.rv}
		switch fault := s.faults.roll(cands...); fault {
		case ProtoUnknownFields:
			frames = append(frames, outFrame{data: s.protoContentFault(wr, fault, c), rv: c.rv})
		case ProtoOversize:
			frames = append(frames, outFrame{data: s.protoContentFault(wr, fault, c), rv: c.rv, broken: true})
		case ProtoJSON: // a WebSocket client reads a JSON message; a chunked one, a lying length
			frames = append(frames, outFrame{data: append(frameOf(c.typ, c.obj), '\n'), raw: true, rv: c.rv,
				broken: !wr.websocket})
		case Duplicate:
			frames = append(frames, main)
			add(f)
		case OutOfOrder:
			next := changes[i+1]
			frames = append(frames, outFrame{data: s.eventFrame(wr, next.typ, next.obj, next.pb), rv: next.rv})
			frames = append(frames, outFrame{data: f, glued: true})
			i++
			c = changes[i]
		case Stale:
			if old := s.staleFrame(wr, last); old != nil {
				add(old)
			}
			frames = append(frames, main)
		case LowBookmark:
			add(s.bookmarkFrame(wr, last-1-int64(s.faults.intN(int(min(last-1, 10)))), false))
			frames = append(frames, main)
		case GhostDelete:
			add(s.ghostFrame(wr, last))
			frames = append(frames, main)
		case ReAdd:
			frames = append(frames, main)
			if c.typ != deleted {
				add(s.eventFrame(wr, added, c.obj, c.pb))
			}
		case ErrorOther:
			add(s.errorFrame(wr))
			return frames, true
		default:
			frames = append(frames, main)
		}
		last = c.rv
	}
	return frames, false
}

// staleFrame returns an event the watch already moved past: one of the
// last few changes in its scope strictly before last still in the
// history (at a watch's start, older than the list it resumes from); nil
// when compaction left none.
func (s *Server) staleFrame(wr watchRequest, last int64) []byte {
	s.db.mu.Lock()
	var older []change
	for i := len(s.db.history) - 1; i >= 0 && len(older) < 8; i-- {
		c := s.db.history[i]
		if c.rv < last && c.res == wr.res && (wr.ns == "" || c.ns == wr.ns) {
			older = append(older, c)
		}
	}
	s.db.mu.Unlock()
	if len(older) == 0 {
		return nil
	}
	c := older[s.faults.intN(len(older))]
	return s.eventFrame(wr, c.typ, c.obj, c.pb)
}

// ghostFrame is a DELETED event, at the last resourceVersion sent, for an
// object that does not exist (in the watch's namespace, or "ghosts").
func (s *Server) ghostFrame(wr watchRequest, last int64) []byte {
	res := s.o.Resources[wr.res]
	ns := wr.ns
	if ns == "" {
		ns = "ghosts"
	}
	name := "ghost-" + strconv.Itoa(s.faults.intN(1000))
	obj := `{"kind":` + strconv.Quote(res.Kind) + `,"apiVersion":` + strconv.Quote(res.APIVersion()) +
		`,"metadata":{"namespace":` + strconv.Quote(ns) + `,"name":` + strconv.Quote(name) +
		`,"uid":"ghost","resourceVersion":"` + strconv.FormatInt(last, 10) + `"}}`
	return s.madeUpFrame(wr, deleted, []byte(obj))
}

// errorFrame is an ERROR event other than 410 Expired: 500, 429 with a
// retry delay, 403, 504, or an object that is no Status.
func (s *Server) errorFrame(wr watchRequest) []byte {
	i := s.faults.intN(5)
	switch {
	case i == 1 && wr.proto:
		return protoEvent("ERROR", protoStatus(429, "TooManyRequests", "fakeapi: injected: too many requests", 1))
	case i == 1:
		return frameOf("ERROR", []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"fakeapi: injected: too many requests","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}`))
	case i == 4:
		return s.madeUpFrame(wr, "ERROR", []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"not-a-status"}}`))
	}
	st := [...]struct {
		code         int
		reason, text string
	}{
		{500, "InternalError", "fakeapi: injected: etcdserver: leader changed"}, {},
		{403, "Forbidden", "fakeapi: injected: watch no longer allowed"},
		{504, "Timeout", "fakeapi: injected: the watch timed out"},
	}[i]
	return statusFrame(wr.proto, st.code, st.reason, st.text)
}
