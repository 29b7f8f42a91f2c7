package rest

import (
	"errors"
	"fmt"
	"io"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// DefaultMaxObjectBytes bounds one JSON value read from a stream (an object
// in a list, one watch event, one WebSocket message): 64 MiB, far above
// what etcd stores for one object (1.5 MiB by default); bigger means a
// broken or hostile server. WithMaxObjectBytes replaces it.
const DefaultMaxObjectBytes = 64 << 20

// maxFrame is the bound of a frameReader made without one.
const maxFrame = DefaultMaxObjectBytes

// frameReader reads a stream of JSON text and hands out complete values
// found by jsonx.Scanner, without tokenising them. The scanner keeps its
// place between reads, so finding where an object ends costs one pass over
// its bytes, however many reads it arrives in, and no allocation. The
// values it returns are slices of its buffer, valid until the next call.
type frameReader struct {
	r   io.Reader
	buf []byte
	off int   // start of the unread bytes
	n   int   // end of the bytes read so far
	err error // sticky: the reader's error (io.EOF at the end)
	// scan finds where the current value ends, resuming where the last
	// read left it.
	scan jsonx.Scanner
	// scanned counts the bytes the scanner examined, for the test that
	// checks scanning stays linear.
	scanned int
	// limit is the longest value accepted, in bytes.
	limit int
	// readMax, when above the buffer's size, lets a busy stream grow the
	// buffer to it: a read that fills all the free space says the socket
	// held more, and the next read gets twice the room (see growingTo).
	readMax int
	// filled records that the last read filled all the free space.
	filled bool
}

func newFrameReader(r io.Reader, size int) *frameReader {
	return &frameReader{r: r, buf: make([]byte, size), limit: maxFrame}
}

// withLimit sets the longest value accepted (n <= 0: maxFrame).
func (f *frameReader) withLimit(n int) *frameReader {
	if n <= 0 {
		n = maxFrame
	}
	f.limit = n
	return f
}

// growingTo lets the buffer grow, while reads keep filling it, up to max
// bytes; a value longer than the buffer grows it in any case. A watch
// starts small and grows only if its events come faster than it reads
// them: a manager holds a watch per resource, most of them quiet.
func (f *frameReader) growingTo(max int) *frameReader {
	f.readMax = max
	return f
}

// tooLong is the error for a value longer than the limit.
func (f *frameReader) tooLong() error {
	return fmt.Errorf("%w: a JSON value longer than %d bytes", api.ErrDecode, f.limit)
}

// fill reads more bytes, first moving the unread ones to the front and
// growing the buffer when it is full. It reports whether bytes were added.
func (f *frameReader) fill() bool {
	if f.err != nil {
		return false
	}
	if f.off > 0 {
		f.n = copy(f.buf, f.buf[f.off:f.n])
		f.off = 0
	}
	if f.n == len(f.buf) {
		if len(f.buf) >= f.limit {
			f.err = f.tooLong()
			return false
		}
		f.buf = append(f.buf, make([]byte, len(f.buf))...)
	} else if f.filled && len(f.buf) < f.readMax {
		f.buf = append(f.buf, make([]byte, min(len(f.buf), f.readMax-len(f.buf)))...)
	}
	free := len(f.buf) - f.n
	m, err := f.r.Read(f.buf[f.n:])
	f.filled = m == free
	f.n += m
	switch {
	case err == nil:
	case errors.Is(err, io.EOF):
		f.err = err
	default:
		// The body failed, not its bytes: a transport error (a context
		// error stays recognisable through the wrap).
		f.err = fmt.Errorf("%w: %w", ErrConnectionLost, err)
	}
	return m > 0 || err == nil
}

// endErr is the error for a stream that ended (or failed) where more was
// needed. atBoundary: between values, where io.EOF is a clean end.
func (f *frameReader) endErr(atBoundary bool) error {
	switch {
	case f.err == nil:
		return io.ErrNoProgress
	case errors.Is(f.err, io.EOF) && atBoundary:
		return io.EOF
	case errors.Is(f.err, io.EOF):
		return io.ErrUnexpectedEOF
	}
	return f.err
}

// peek skips whitespace and returns the next byte without consuming it.
func (f *frameReader) peek(atBoundary bool) (byte, error) {
	for {
		f.off = jsonx.SkipWS(f.buf[:f.n], f.off)
		if f.off < f.n {
			return f.buf[f.off], nil
		}
		if !f.fill() {
			return 0, f.endErr(atBoundary)
		}
	}
}

// expect consumes the byte b (after whitespace).
func (f *frameReader) expect(b byte) error {
	c, err := f.peek(false)
	if err != nil {
		return err
	}
	if c != b {
		return fmt.Errorf("%w: expected %q, found %q", api.ErrDecode, b, c)
	}
	f.off++
	return nil
}

// value returns the next complete JSON value (after whitespace). Scalars
// are complete only once a delimiter follows them or the stream ended.
// The scanner keeps its place across reads (jsonx.Scanner), so a value of
// n bytes costs one pass over them however many reads it takes.
func (f *frameReader) value(atBoundary bool) ([]byte, error) {
	if _, err := f.peek(atBoundary); err != nil {
		return nil, err
	}
	f.scan.Reset()
	for {
		d := f.buf[f.off:f.n] // the value's bytes so far; fill keeps them in order at f.off
		before := f.scan.Scanned()
		end, err := f.scan.Scan(d)
		f.scanned += f.scan.Scanned() - before
		switch {
		case err == nil && end == 0:
			return nil, fmt.Errorf("%w: unexpected %q", api.ErrDecode, d[0])
		case err == nil && end > f.limit:
			return nil, f.tooLong()
		case err == nil:
			f.off += end
			return d[:end], nil
		case !errors.Is(err, jsonx.ErrIncomplete):
			return nil, err
		case len(d) >= f.limit:
			// Every byte so far is part of the value, which goes on.
			return nil, f.tooLong()
		}
		if !f.fill() {
			if errors.Is(f.err, io.EOF) && f.scan.Scalar() {
				// A scalar at the very end of the stream: complete now.
				v := f.buf[f.off:f.n]
				f.off = f.n
				return v, nil
			}
			return nil, f.endErr(false)
		}
	}
}
