package protocodec

import (
	"errors"
	"fmt"
)

// The protobuf wire format, as much of it as this package needs: varints,
// field keys, length-delimited payloads and the skipping of a field of any
// wire type. Every read is bounds-checked; none panics.

// The wire types (protobuf encoding spec, "Message Structure").
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireStart   = 3 // start group (deprecated; skipped)
	wireEnd     = 4 // end group
	wireFixed32 = 5
)

// maxGroupDepth bounds the nesting of groups an unknown field may hold.
const maxGroupDepth = 64

// The reasons a message cannot be read; each error of Unmarshal and
// MarshalMerge wraps one of them besides api.ErrDecode.
var (
	errTruncated   = errors.New("truncated")
	errOverflow    = errors.New("varint overflows 64 bits")
	errWireType    = errors.New("wrong wire type")
	errFieldNumber = errors.New("invalid field number")
	errDepth       = errors.New("groups nested too deep")
)

// readVarint reads a varint at the start of b. n is the bytes it took; it
// is 0 with errTruncated or errOverflow.
func readVarint(b []byte) (v uint64, n int, err error) {
	for i := 0; i < len(b); i++ {
		if i == 10 {
			return 0, 0, errOverflow
		}
		c := b[i]
		if i == 9 && c > 1 {
			return 0, 0, errOverflow
		}
		v |= uint64(c&0x7f) << (7 * uint(i))
		if c < 0x80 {
			return v, i + 1, nil
		}
	}
	return 0, 0, errTruncated
}

// readKey reads a field key: the field number and wire type.
func readKey(b []byte) (num int32, wt int, n int, err error) {
	k, n, err := readVarint(b)
	if err != nil {
		return 0, 0, 0, err
	}
	if k>>3 == 0 || k>>3 > 1<<29-1 {
		return 0, 0, 0, fmt.Errorf("%w: %d", errFieldNumber, k>>3)
	}
	return int32(k >> 3), int(k & 7), n, nil
}

// readBytes reads a length-delimited payload at the start of b.
func readBytes(b []byte) (payload []byte, n int, err error) {
	l, n, err := readVarint(b)
	if err != nil {
		return nil, 0, err
	}
	if l > uint64(len(b)-n) {
		return nil, 0, errTruncated
	}
	return b[n : n+int(l)], n + int(l), nil
}

// skipValue returns the length of the value of wire type wt at the start
// of b (after its key). A group is skipped to its matching end.
func skipValue(b []byte, num int32, wt int, depth int) (int, error) {
	switch wt {
	case wireVarint:
		_, n, err := readVarint(b)
		return n, err
	case wireFixed64:
		if len(b) < 8 {
			return 0, errTruncated
		}
		return 8, nil
	case wireFixed32:
		if len(b) < 4 {
			return 0, errTruncated
		}
		return 4, nil
	case wireBytes:
		_, n, err := readBytes(b)
		return n, err
	case wireStart:
		if depth >= maxGroupDepth {
			return 0, errDepth
		}
		off := 0
		for {
			inner, iwt, n, err := readKey(b[off:])
			if err != nil {
				return 0, err
			}
			off += n
			if iwt == wireEnd {
				if inner != num {
					return 0, fmt.Errorf("%w: group %d ended by %d", errWireType, num, inner)
				}
				return off, nil
			}
			n, err = skipValue(b[off:], inner, iwt, depth+1)
			if err != nil {
				return 0, err
			}
			off += n
		}
	}
	return 0, fmt.Errorf("%w: %d", errWireType, wt)
}

// appendVarint appends v as a varint.
func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// appendKey appends a field key.
func appendKey(b []byte, num int32, wt int) []byte {
	return appendVarint(b, uint64(num)<<3|uint64(wt))
}

// appendString appends a length-delimited string field.
func appendString(b []byte, num int32, s string) []byte {
	b = appendKey(b, num, wireBytes)
	b = appendVarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendBytes appends a length-delimited bytes field.
func appendBytes(b []byte, num int32, p []byte) []byte {
	b = appendKey(b, num, wireBytes)
	b = appendVarint(b, uint64(len(p)))
	return append(b, p...)
}

// varintLen is the length of v as a varint.
func varintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// openLen appends a one-byte length placeholder for a length-delimited
// payload and returns where the payload starts; closeLen writes the
// payload's length there, moving the payload if the length needs more
// than one byte.
func openLen(b []byte) ([]byte, int) { return append(b, 0), len(b) + 1 }

func closeLen(b []byte, start int) []byte {
	n := len(b) - start
	if n < 0x80 {
		b[start-1] = byte(n)
		return b
	}
	size := varintLen(uint64(n))
	b = append(b, make([]byte, size-1)...)
	copy(b[start+size-1:], b[start:start+n])
	appendVarint(b[start-1:start-1], uint64(n))
	return b
}
