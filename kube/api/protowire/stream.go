package protowire

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Reading a list as it arrives. A LIST body is one envelope whose raw is
// the whole ...List message, so the bytes announce, before the first
// item, how long everything is. ReadList does not wait for them: it reads
// the envelope's fields and the list's fields from the stream, one at a
// time, and hands each item to its caller as soon as the item's bytes are
// in, in a buffer it reuses. Memory is one item (at most maxItem bytes,
// grown as the bytes arrive, never to a length a field only announces)
// plus the read buffer, whatever the size of the list; every byte is read
// once.

// ErrItemSize: a list item or one of the envelope's fields announces more
// bytes than the reader's limit.
var ErrItemSize = fmt.Errorf("%w: field larger than the limit", ErrMalformed)

// ErrTwoLists: an envelope with a second raw field. Protobuf's rule (the
// last one wins) cannot be kept by a reader that has handed out the first
// one's items, and kube-apiserver never writes two.
var ErrTwoLists = fmt.Errorf("%w: list envelope with two raw fields", ErrMalformed)

// streamReadBuffer is the read buffer of ReadList.
const streamReadBuffer = 64 << 10

// ReadList reads an enveloped list (Magic, runtime.Unknown whose raw is a
// ...List message) from r. onType is called with the envelope's apiVersion
// and kind when its typeMeta is read — before the items, as kube-apiserver
// writes it. item is called with each item's message, in order; the slice
// is valid only during the call. An error from onType or item stops the
// read and is returned as is. Malformed bytes give an error wrapping
// ErrMalformed; a stream that ends early, one wrapping ErrTruncated and
// io.ErrUnexpectedEOF; r's own errors are returned wrapped, unchanged.
// maxItem <= 0 means DefaultMaxFrame.
func ReadList(r io.Reader, maxItem int, onType func(apiVersion, kind string) error, item func(msg []byte) error) (ListMeta, error) {
	if maxItem <= 0 {
		maxItem = DefaultMaxFrame
	}
	s := &stream{r: bufio.NewReaderSize(r, streamReadBuffer), max: maxItem}
	var lm ListMeta
	var magic [len(Magic)]byte
	if _, err := io.ReadFull(s.r, magic[:]); err != nil {
		return lm, s.eofErr("envelope", err)
	}
	if magic != Magic {
		return lm, ErrMagic
	}
	sawRaw := false
	for {
		num, typ, err := s.tag(true)
		if err == io.EOF {
			return lm, nil
		}
		if err != nil {
			return lm, fmt.Errorf("envelope: %w", err)
		}
		if num > 4 {
			if err := s.skip(num, typ, -1); err != nil {
				return lm, fmt.Errorf("envelope: field %d: %w", num, err)
			}
			continue
		}
		if typ != Bytes {
			return lm, fmt.Errorf("envelope: field %d: %w", num, ErrFieldType)
		}
		if num == 2 {
			if sawRaw {
				return lm, ErrTwoLists
			}
			sawRaw = true
			if err := s.list(&lm, item); err != nil {
				return lm, err
			}
			continue
		}
		b, err := s.field(-1)
		if err != nil {
			return lm, fmt.Errorf("envelope: field %d: %w", num, err)
		}
		var u Unknown
		switch num {
		case 1:
			if err := readTypeMeta(b, &u); err != nil {
				return lm, fmt.Errorf("envelope: typeMeta: %w", err)
			}
			if err := onType(string(u.APIVersion), string(u.Kind)); err != nil {
				return lm, err
			}
		case 3:
			u.ContentEncoding = b
		default:
			u.ContentType = b
		}
		if err := u.Protobuf(); err != nil {
			return lm, err
		}
	}
}

// stream reads protobuf fields from a buffered reader, counting bytes.
type stream struct {
	r   *bufio.Reader
	n   int64 // bytes read so far
	max int
	buf []byte
}

// eofErr turns an end of stream inside something into ErrTruncated.
func (s *stream) eofErr(what string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s: %w: %w", what, ErrTruncated, io.ErrUnexpectedEOF)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// varint reads a varint. At a clean end of stream before its first byte
// it returns io.EOF when atBoundary.
func (s *stream) varint(atBoundary bool) (uint64, error) {
	var v uint64
	for i := 0; ; i++ {
		c, err := s.r.ReadByte()
		if err != nil {
			if i == 0 && atBoundary && err == io.EOF {
				return 0, io.EOF
			}
			return 0, s.eofErr("varint", err)
		}
		s.n++
		if i == 9 && c > 1 {
			return 0, ErrOverflow
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, nil
		}
	}
}

// tag reads a field's tag and checks it.
func (s *stream) tag(atBoundary bool) (int32, Type, error) {
	t, err := s.varint(atBoundary)
	if err != nil {
		return 0, 0, err
	}
	num, typ := t>>3, Type(t&7)
	if num == 0 || num > MaxFieldNumber {
		return 0, 0, fmt.Errorf("%w: %d", ErrFieldNumber, num)
	}
	if typ == EndGroup || typ > Fixed32 {
		return 0, 0, fmt.Errorf("%w %d", ErrWireType, typ)
	}
	return int32(num), typ, nil
}

// length reads a length-delimited field's length and checks it against
// the limit and, when end >= 0, against where the enclosing message ends.
func (s *stream) length(end int64) (int, error) {
	l, err := s.varint(false)
	if err != nil {
		return 0, err
	}
	if l > uint64(s.max) {
		return 0, fmt.Errorf("%w: %d bytes, limit %d", ErrItemSize, l, s.max)
	}
	if end >= 0 && s.n+int64(l) > end {
		return 0, fmt.Errorf("%w: a field of %d bytes crosses the end of its message", ErrTruncated, l)
	}
	return int(l), nil
}

// field reads a length-delimited field's value into the reused buffer,
// growing it with the bytes that arrive (frameChunk at a time, or as much
// as it holds already), not with the length announced.
func (s *stream) field(end int64) ([]byte, error) {
	size, err := s.length(end)
	if err != nil {
		return nil, err
	}
	buf := s.buf[:0]
	for len(buf) < size {
		chunk := min(size-len(buf), max(frameChunk, len(buf)))
		buf = slices.Grow(buf, chunk)
		k, err := io.ReadFull(s.r, buf[len(buf):len(buf)+chunk])
		buf = buf[:len(buf)+k]
		s.n += int64(k)
		if err != nil {
			s.buf = buf
			return nil, s.eofErr(fmt.Sprintf("field of %d bytes, %d read", size, len(buf)), err)
		}
	}
	s.buf = buf
	return buf, nil
}

// skip steps over the value of a field the reader does not know, groups
// included (to MaxGroupDepth), without keeping its bytes.
func (s *stream) skip(num int32, typ Type, end int64) error {
	var stack [MaxGroupDepth]int32
	depth := 0
	for {
		switch typ {
		case Varint:
			if _, err := s.varint(false); err != nil {
				return err
			}
		case Fixed64:
			if err := s.discard(8, end); err != nil {
				return err
			}
		case Fixed32:
			if err := s.discard(4, end); err != nil {
				return err
			}
		case Bytes:
			l, err := s.varint(false)
			if err != nil {
				return err
			}
			if l > 1<<62 {
				return fmt.Errorf("%w: length %d", ErrTruncated, l)
			}
			if err := s.discard(int64(l), end); err != nil {
				return err
			}
		case StartGroup:
			if depth == MaxGroupDepth {
				return ErrDepth
			}
			stack[depth] = num
			depth++
		case EndGroup:
			if depth == 0 || stack[depth-1] != num {
				return fmt.Errorf("%w: end group %d without its start", ErrWireType, num)
			}
			depth--
		default:
			return fmt.Errorf("%w %d", ErrWireType, typ)
		}
		if depth == 0 {
			return nil
		}
		t, err := s.varint(false)
		if err != nil {
			return err
		}
		if t>>3 == 0 || t>>3 > MaxFieldNumber {
			return fmt.Errorf("%w: %d", ErrFieldNumber, t>>3)
		}
		num, typ = int32(t>>3), Type(t&7)
	}
}

// discard reads and drops n bytes, which must end by end (when >= 0).
func (s *stream) discard(n, end int64) error {
	if end >= 0 && s.n+n > end {
		return fmt.Errorf("%w: a field of %d bytes crosses the end of its message", ErrTruncated, n)
	}
	k, err := s.r.Discard(int(min(n, 1<<30)))
	s.n += int64(k)
	for err == nil && int64(k) < n {
		n -= int64(k)
		k, err = s.r.Discard(int(min(n, 1<<30)))
		s.n += int64(k)
	}
	if err != nil {
		return s.eofErr("skipped field", err)
	}
	return nil
}

// list reads the envelope's raw, a ...List message, from the stream: its
// ListMeta into lm and each item to item.
func (s *stream) list(lm *ListMeta, item func([]byte) error) error {
	l, err := s.varint(false)
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	if l > 1<<62 {
		return fmt.Errorf("list: %w: length %d", ErrTruncated, l)
	}
	end := s.n + int64(l)
	for n := 0; s.n < end; {
		num, typ, err := s.tag(false)
		if err != nil {
			return fmt.Errorf("list: %w", err)
		}
		if (num == 1 || num == 2) && typ != Bytes {
			return fmt.Errorf("list: field %d: %w", num, ErrFieldType)
		}
		switch num {
		case 1:
			b, err := s.field(end)
			if err != nil {
				return fmt.Errorf("list: metadata: %w", err)
			}
			if err := readListMeta(b, lm); err != nil {
				return fmt.Errorf("list: metadata: %w", err)
			}
		case 2:
			b, err := s.field(end)
			if err != nil {
				return fmt.Errorf("list: item %d: %w", n, err)
			}
			if err := item(b); err != nil {
				return err
			}
			n++
		default:
			if err := s.skip(num, typ, end); err != nil {
				return fmt.Errorf("list: field %d: %w", num, err)
			}
		}
		if s.n > end {
			return fmt.Errorf("list: %w: a field crosses the end of the list", ErrTruncated)
		}
	}
	return nil
}
