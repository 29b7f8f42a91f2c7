package protowire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// A protobuf watch stream (Accept: application/vnd.kubernetes.protobuf;
// stream=watch) is a sequence of frames, each a 4-byte big-endian length
// followed by that many bytes (apimachinery's LengthDelimitedFramer).
// A frame holds one metav1.WatchEvent, written by the protobuf "raw"
// serializer — without the k8s envelope, since the stream's media type
// already says what it is:
//
//	message WatchEvent {                  // meta/v1 generated.proto
//	  optional string type = 1;           // ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
//	  optional RawExtension object = 2;   // runtime: {optional bytes raw = 1}
//	}
//
// The event's object is written by the ordinary serializer, so object.raw
// is itself an enveloped object (Magic, then runtime.Unknown); for ERROR
// it is a metav1.Status. DecodeEvent also accepts a frame that is an
// envelope around the event, which costs nothing to allow.

// DefaultMaxFrame is the largest frame FrameReader accepts unless told
// otherwise: client-go's limit for one streamed object (16 MiB).
const DefaultMaxFrame = 16 << 20

// ErrFrameSize: a frame announces more bytes than the reader's limit.
var ErrFrameSize = fmt.Errorf("%w: watch frame larger than the limit", ErrMalformed)

// frameChunk is how much FrameReader reads at a time into a frame larger
// than its buffer, so that memory grows with the bytes that arrive and
// not with the length a frame announces.
const frameChunk = 64 << 10

// FrameReader reads length-prefixed frames.
type FrameReader struct {
	r   io.Reader
	max int
	hdr [4]byte
	buf []byte
}

// NewFrameReader reads frames of at most maxFrame bytes from r
// (DefaultMaxFrame when maxFrame <= 0).
func NewFrameReader(r io.Reader, maxFrame int) *FrameReader {
	if maxFrame <= 0 {
		maxFrame = DefaultMaxFrame
	}
	return &FrameReader{r: r, max: maxFrame}
}

// Next returns the next frame. Its bytes are valid until the next call.
// At the end of the stream between frames it returns io.EOF; a stream
// that ends inside a frame gives an error wrapping ErrTruncated.
func (fr *FrameReader) Next() ([]byte, error) {
	if _, err := io.ReadFull(fr.r, fr.hdr[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("watch frame header: %w: %w", ErrTruncated, err)
		}
		return nil, err // io.EOF between frames, or the transport's error
	}
	n := binary.BigEndian.Uint32(fr.hdr[:])
	if uint64(n) > uint64(fr.max) {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrFrameSize, n, fr.max)
	}
	size := int(n)
	buf := fr.buf[:0]
	for len(buf) < size {
		chunk := min(size-len(buf), max(frameChunk, len(buf)))
		buf = slices.Grow(buf, chunk)
		k, err := io.ReadFull(fr.r, buf[len(buf):len(buf)+chunk])
		buf = buf[:len(buf)+k]
		if err != nil {
			fr.buf = buf
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, fmt.Errorf("watch frame of %d bytes, %d read: %w: %w", size, len(buf), ErrTruncated, err)
			}
			return nil, err
		}
	}
	fr.buf = buf
	return buf, nil
}

// AppendFrame appends a frame holding msg.
func AppendFrame(b, msg []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(msg)))
	return append(b, msg...)
}

// Event is a watch event read by DecodeEvent. Object aliases the frame.
type Event struct {
	// Type is one of the event types below, or the server's string for
	// a type this package does not know.
	Type string
	// Object is the event's object.raw: an enveloped object (see Unwrap),
	// or for ERROR an enveloped metav1.Status.
	Object []byte
}

// The event types kube-apiserver sends (k8s.io/apimachinery/pkg/watch).
const (
	Added    = "ADDED"
	Modified = "MODIFIED"
	Deleted  = "DELETED"
	Bookmark = "BOOKMARK"
	Error    = "ERROR"
)

// ErrEventType: a watch event without a type.
var ErrEventType = fmt.Errorf("%w: watch event without a type", ErrMalformed)

// DecodeEvent reads the metav1.WatchEvent in a frame.
func DecodeEvent(frame []byte) (Event, error) {
	var e Event
	if bytes.HasPrefix(frame, Magic[:]) {
		u, err := Unwrap(frame)
		if err != nil {
			return e, fmt.Errorf("watch event: %w", err)
		}
		frame = u.Raw
	}
	r := NewReader(frame)
	var typ []byte
	for !r.Done() {
		f, err := r.Next()
		if err != nil {
			return e, fmt.Errorf("watch event: %w", err)
		}
		switch f.Num {
		case 1:
			if typ, err = f.Message(); err != nil {
				return e, fmt.Errorf("watch event: type: %w", err)
			}
		case 2:
			ext, err := f.Message()
			if err != nil {
				return e, fmt.Errorf("watch event: object: %w", err)
			}
			if e.Object, err = rawExtension(ext, e.Object); err != nil {
				return e, fmt.Errorf("watch event: object: %w", err)
			}
		}
	}
	if len(typ) == 0 {
		return e, ErrEventType
	}
	e.Type = eventType(typ)
	return e, nil
}

// rawExtension reads runtime.RawExtension {optional bytes raw = 1};
// raw is what an earlier occurrence of the field held (the last wins).
func rawExtension(m, raw []byte) ([]byte, error) {
	r := NewReader(m)
	for !r.Done() {
		f, err := r.Next()
		if err != nil {
			return nil, err
		}
		if f.Num == 1 {
			if raw, err = f.Message(); err != nil {
				return nil, err
			}
		}
	}
	return raw, nil
}

// eventType returns the constant for a known type, so that decoding an
// event allocates nothing.
func eventType(b []byte) string {
	for _, t := range [...]string{Added, Modified, Deleted, Bookmark, Error} {
		if string(b) == t {
			return t
		}
	}
	return string(b)
}
