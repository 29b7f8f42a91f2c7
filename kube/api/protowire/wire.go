package protowire

import (
	"errors"
	"fmt"
	"math"
)

// The protobuf wire format, as far as a reader needs it. A message is a
// sequence of fields; each starts with a varint tag, field number << 3 |
// wire type, followed by a value whose size the wire type tells:
//
//	0 varint            1 to 10 bytes, 7 bits each, low bits first
//	1 fixed64           8 bytes, little-endian
//	2 length-delimited  a varint length, then that many bytes (strings,
//	                    bytes, embedded messages, packed repeated scalars)
//	3 start group       fields until the matching end group (deprecated;
//	4 end group         Kubernetes never writes groups, a reader must skip them)
//	5 fixed32           4 bytes, little-endian
//
// Wire types 6 and 7 do not exist. Nothing in a field says which message
// type it belongs to: the reader must know the schema, and steps over a
// field it does not know by its wire type alone. That is what makes the
// scanner cheap: a pod's spec and status are one length-delimited field
// each, skipped in O(1).

// Sentinel errors. Every malformed input yields an error that wraps
// ErrMalformed and one of the more precise sentinels below.
var (
	// ErrMalformed is wrapped by every error about bad input.
	ErrMalformed = errors.New("protowire: malformed protobuf")
	// ErrTruncated: the input ends inside a tag, value or frame.
	ErrTruncated = fmt.Errorf("%w: truncated", ErrMalformed)
	// ErrOverflow: a varint longer than 10 bytes or above 2^64-1.
	ErrOverflow = fmt.Errorf("%w: varint overflows 64 bits", ErrMalformed)
	// ErrWireType: wire type 6 or 7, or an end group without its start.
	ErrWireType = fmt.Errorf("%w: invalid wire type", ErrMalformed)
	// ErrFieldNumber: field number 0 or above 2^29-1.
	ErrFieldNumber = fmt.Errorf("%w: invalid field number", ErrMalformed)
	// ErrDepth: groups nested deeper than MaxGroupDepth.
	ErrDepth = fmt.Errorf("%w: groups nested too deep", ErrMalformed)
	// ErrFieldType: a field the schema knows arrives with another wire
	// type (a string as a varint, say), or a value out of its type's range.
	ErrFieldType = fmt.Errorf("%w: field has the wrong wire type for its schema", ErrMalformed)
)

// Type is a wire type.
type Type uint8

// The wire types.
const (
	Varint     Type = 0
	Fixed64    Type = 1
	Bytes      Type = 2
	StartGroup Type = 3
	EndGroup   Type = 4
	Fixed32    Type = 5
)

// MaxFieldNumber is the largest field number protobuf allows (2^29-1).
const MaxFieldNumber = 1<<29 - 1

// MaxGroupDepth bounds the nesting of skipped groups, so a hostile input
// cannot make skipping cost more than one pass.
const MaxGroupDepth = 64

// Field is one field read from a message. Data aliases the input: for a
// length-delimited field it is the value without its length, for a group
// the fields between start and end. For a varint, fixed32 or fixed64
// field the value is in Uint.
type Field struct {
	Num  int32
	Type Type
	Uint uint64
	Data []byte
	// Start and End are the offsets of the whole field (tag included)
	// in the reader's input.
	Start, End int
}

// Reader reads the fields of one message, in order, bounds-checked. Its
// zero value reads nothing.
type Reader struct {
	b []byte
	i int
}

// NewReader returns a reader of the message b.
func NewReader(b []byte) Reader { return Reader{b: b} }

// Done reports whether every field has been read.
func (r *Reader) Done() bool { return r.i >= len(r.b) }

// Offset is where the next field starts.
func (r *Reader) Offset() int { return r.i }

// Next reads the next field. At the end of the message it must not be
// called (see Done). After an error the reader is at an unspecified place.
func (r *Reader) Next() (Field, error) {
	f := Field{Start: r.i}
	tag, n, err := ConsumeVarint(r.b[r.i:])
	if err != nil {
		return f, fmt.Errorf("tag at %d: %w", r.i, err)
	}
	i := r.i + n
	tagEnd := i
	num := tag >> 3
	if num == 0 || num > MaxFieldNumber {
		return f, fmt.Errorf("%w: %d at %d", ErrFieldNumber, num, r.i)
	}
	f.Num, f.Type = int32(num), Type(tag&7)
	switch f.Type {
	case Varint:
		f.Uint, n, err = ConsumeVarint(r.b[i:])
		i += n
	case Fixed64:
		if len(r.b)-i < 8 {
			err = ErrTruncated
			break
		}
		f.Uint = le64(r.b[i:])
		i += 8
	case Fixed32:
		if len(r.b)-i < 4 {
			err = ErrTruncated
			break
		}
		f.Uint = uint64(le32(r.b[i:]))
		i += 4
	case Bytes:
		f.Data, n, err = ConsumeBytes(r.b[i:])
		i += n
	case StartGroup:
		var end int
		end, i, err = skipGroup(r.b, i, f.Num)
		if err == nil {
			f.Data = r.b[tagEnd:end]
		}
	default: // an end group outside a group, or 6, 7
		err = fmt.Errorf("%w %d", ErrWireType, f.Type)
	}
	if err != nil {
		return f, fmt.Errorf("field %d at %d: %w", f.Num, r.i, err)
	}
	r.i, f.End = i, i
	return f, nil
}

// skipGroup steps over the fields of a group whose start-group tag of
// field num ended at b[i:], up to and including its end-group tag. It
// returns where the group's content ends and where the next field
// starts. Nested groups are followed to MaxGroupDepth.
func skipGroup(b []byte, i int, num int32) (contentEnd, next int, err error) {
	stack := [MaxGroupDepth]int32{num}
	depth := 1
	for {
		if i >= len(b) {
			return 0, 0, ErrTruncated
		}
		start := i
		tag, n, err := ConsumeVarint(b[i:])
		if err != nil {
			return 0, 0, err
		}
		i += n
		fn := tag >> 3
		if fn == 0 || fn > MaxFieldNumber {
			return 0, 0, fmt.Errorf("%w: %d", ErrFieldNumber, fn)
		}
		switch Type(tag & 7) {
		case Varint:
			_, n, err = ConsumeVarint(b[i:])
			i += n
		case Fixed64:
			i += 8
		case Fixed32:
			i += 4
		case Bytes:
			_, n, err = ConsumeBytes(b[i:])
			i += n
		case StartGroup:
			if depth == MaxGroupDepth {
				return 0, 0, ErrDepth
			}
			stack[depth] = int32(fn)
			depth++
		case EndGroup:
			if int32(fn) != stack[depth-1] {
				return 0, 0, fmt.Errorf("%w: end group %d inside group %d", ErrWireType, fn, stack[depth-1])
			}
			depth--
			if depth == 0 {
				return start, i, nil
			}
		default:
			return 0, 0, fmt.Errorf("%w %d", ErrWireType, tag&7)
		}
		if err != nil {
			return 0, 0, err
		}
		if i > len(b) {
			return 0, 0, ErrTruncated
		}
	}
}

// ConsumeVarint reads a varint at the start of b and returns it and its
// length in bytes.
func ConsumeVarint(b []byte) (v uint64, n int, err error) {
	for n < len(b) {
		c := b[n]
		if n == 9 && c > 1 {
			return 0, 0, ErrOverflow
		}
		v |= uint64(c&0x7f) << (7 * n)
		n++
		if c < 0x80 {
			return v, n, nil
		}
		if n == 10 {
			return 0, 0, ErrOverflow
		}
	}
	return 0, 0, ErrTruncated
}

// ConsumeBytes reads a length-delimited value at the start of b and
// returns the value (aliasing b) and how many bytes it took, length
// included. The length is checked against b before anything else, so a
// hostile length allocates nothing.
func ConsumeBytes(b []byte) (v []byte, n int, err error) {
	l, n, err := ConsumeVarint(b)
	if err != nil {
		return nil, 0, err
	}
	if l > uint64(len(b)-n) {
		return nil, 0, fmt.Errorf("%w: length %d with %d bytes left", ErrTruncated, l, len(b)-n)
	}
	end := n + int(l)
	return b[n:end:end], end, nil
}

// Int64 is a varint field's value as an int64 (protobuf's int64: two's
// complement, so negative values take ten bytes).
func (f Field) Int64() (int64, error) {
	if f.Type != Varint {
		return 0, fmt.Errorf("%w: field %d: want varint, got wire type %d", ErrFieldType, f.Num, f.Type)
	}
	return int64(f.Uint), nil
}

// Int32 is a varint field's value as an int32 (protobuf's int32, which
// is sign-extended to 64 bits on the wire).
func (f Field) Int32() (int32, error) {
	v, err := f.Int64()
	if err != nil {
		return 0, err
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, fmt.Errorf("%w: field %d: %d is not an int32", ErrFieldType, f.Num, v)
	}
	return int32(v), nil
}

// Bool is a varint field's value as a bool (any non-zero is true).
func (f Field) Bool() (bool, error) {
	if f.Type != Varint {
		return false, fmt.Errorf("%w: field %d: want varint, got wire type %d", ErrFieldType, f.Num, f.Type)
	}
	return f.Uint != 0, nil
}

// EachField calls fn with each field of message m in order, and stops at
// the first error, of the reader or of fn.
func EachField(m []byte, fn func(Field) error) error {
	r := NewReader(m)
	for !r.Done() {
		f, err := r.Next()
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// Message is a length-delimited field's bytes (a string, bytes or an
// embedded message).
func (f Field) Message() ([]byte, error) {
	if f.Type != Bytes {
		return nil, fmt.Errorf("%w: field %d: want length-delimited, got wire type %d", ErrFieldType, f.Num, f.Type)
	}
	return f.Data, nil
}

// AppendVarint appends v as a varint.
func AppendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// SizeVarint is the length of v as a varint.
func SizeVarint(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// AppendTag appends the tag of field num with wire type t.
func AppendTag(b []byte, num int32, t Type) []byte {
	return AppendVarint(b, uint64(num)<<3|uint64(t))
}

// AppendBytes appends a length-delimited field: tag, length, v.
func AppendBytes(b []byte, num int32, v []byte) []byte {
	b = AppendTag(b, num, Bytes)
	b = AppendVarint(b, uint64(len(v)))
	return append(b, v...)
}

// AppendString is AppendBytes for a string.
func AppendString(b []byte, num int32, v string) []byte {
	b = AppendTag(b, num, Bytes)
	b = AppendVarint(b, uint64(len(v)))
	return append(b, v...)
}

// AppendUint appends a varint field.
func AppendUint(b []byte, num int32, v uint64) []byte {
	return AppendVarint(AppendTag(b, num, Varint), v)
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func le64(b []byte) uint64 { return uint64(le32(b)) | uint64(le32(b[4:]))<<32 }
