package rest

import (
	"bytes"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// Framing watch events by their newline. kube-apiserver writes each watch
// event as one line of JSON: its encoder ends every event with a newline,
// and a newline byte cannot occur inside a JSON string, so in its streams
// the first newline after an event's start is the end of that event.
// Finding it is one bytes.IndexByte; finding the end by scanning
// (jsonx.Scanner, frameReader.value) walks every string and bracket of the
// event, about a tenth of what a watch event costs the client.
//
// The newline is only a hint: the reference (REFERENCE.md) says not to
// rely on newlines, and a server may pretty-print, or write events back
// to back. nextLine takes the bytes up to the newline as the event only
// when they have the envelope's shape, {"type":"T","object":{...}} with
// nothing after the object but the closing brace, and the codec then
// decodes the object without error — and only for a codec that
// decode.ChecksWholeObject: one whose successful decode proves its input is
// exactly one JSON object. Then the candidate is exactly the frame the
// scanner would have found: the candidate is a prefix of the stream that
// ends, by the same rules of strings and brackets the scanner follows,
// with the envelope closed and not before; the first such prefix is the
// scanner's frame. Any other outcome (no newline buffered yet, another
// shape, a decode error) leaves the event to the scanner, which frames and
// decodes it as before — so errors are reported exactly as before — and a
// failed hint or an event not followed by a newline turns hints off for
// the rest of the stream, so a stream that is not newline-framed costs at
// most one wasted search.

// nextLine decodes the next event if the newline hint frames it (see
// above); ok is false when it did not, and nothing was consumed.
func nextLine[T api.Object](s *chunkedSource, codec decode.Codec[T]) (ev WatchEvent[T], ok bool) {
	frame, ok := s.fr.line()
	if !ok {
		return ev, false
	}
	end, ok := objectEnd(frame)
	if !ok {
		s.lines = false
		return ev, false
	}
	typ, start, ok := quickSplit(frame)
	if !ok || start >= end {
		s.lines = false
		return ev, false
	}
	ev, err := decodeSplit(frame, typ, start, end, codec)
	if err != nil {
		s.lines = false // the scanner frames it, and the decode's error is reported from there
		return WatchEvent[T]{}, false
	}
	s.fr.off += len(frame)
	return ev, true
}

// line returns the buffered bytes from the next value's start up to the
// next newline and the whitespace before it, without reading more and without consuming them (ok false:
// no newline buffered yet, or the stream failed or ended).
func (f *frameReader) line() ([]byte, bool) {
	if _, err := f.peek(true); err != nil {
		return nil, false
	}
	d := f.buf[f.off:f.n]
	nl := bytes.IndexByte(d, '\n')
	if nl < 0 {
		return nil, false
	}
	return d[:trimRightWS(d, nl)], true // the whitespace before it is not the event's
}

// objectEnd returns where the object member of an envelope line ends: the
// line must end with two closing braces, whitespace around the last (the
// envelope's); the object ends after the first of them.
func objectEnd(line []byte) (int, bool) {
	e := trimRightWS(line, len(line))
	if e == 0 || line[e-1] != '}' {
		return 0, false
	}
	e = trimRightWS(line, e-1)
	if e == 0 || line[e-1] != '}' {
		return 0, false
	}
	return e, true
}

// trimRightWS returns e moved left over JSON whitespace.
func trimRightWS(d []byte, e int) int {
	for e > 0 {
		switch d[e-1] {
		case ' ', '\t', '\r', '\n':
			e--
		default:
			return e
		}
	}
	return e
}
