package protocodec

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/kcmlab/kcm/kube/api"
)

// The remainder of a message: what a cache keeps of an object's message
// instead of the message, since the object's struct holds the rest. It is
// a message itself, in the original's field order: every field the
// struct does not model, with its bytes as read, and every modelled
// message field that holds such fields at some depth, with its own
// remainder as its payload (for a repeated message, every element's,
// empty ones included, so that Rebuild pairs them by position). Objects
// whose every field is modelled have none; the replicas of a workload
// usually share one.
//
// Rebuild(Marshal(obj), Remainder(msg)) is msg again, obj being
// Unmarshal(msg): Marshal writes the modelled fields as the generated
// code does, in ascending number order, and Rebuild puts each
// unmodelled field back before the first marshalled field of a higher
// number. For a message as kube-apiserver writes it that is the message
// byte for byte (tested on every vector); for one with a modelled value
// written differently (a RawExtension's JSON is compacted, a Time loses
// its nanoseconds), the same object with the same unmodelled fields. A
// message in another field order has no remainder (an error): its
// fields could not be put back where they were. The small messages of the special types
// (Time, Quantity, IntOrString, RawExtension) keep their unknown fields
// like any message; map entries count as modelled whole.

// errNotCanonical: a message whose fields are not in ascending order, or
// that gives a singular message field twice, has no remainder.
var errNotCanonical = errors.New("not in upstream's field order")

// Remainder returns the remainder of msg, a message of struct type t
// (such as api.Pod): nil when t models every field of msg. Errors for
// bytes wrap api.ErrDecode; so does the error for a message not in
// upstream's field order — fields out of ascending order, or a singular
// message field given twice (which protobuf merges), at any depth —
// which has no remainder: keep such a message whole.
func Remainder(msg []byte, t reflect.Type) ([]byte, error) {
	out, err := AppendRemainder(nil, msg, t, RemainderOptions{})
	if len(out) == 0 {
		out = nil
	}
	return out, err
}

// RemainderOptions change what AppendRemainder keeps.
type RemainderOptions struct {
	// DropManagedFields leaves metadata.managedFields (field 17 of the
	// ObjectMeta in field 1, which kcm does not model) out of the
	// remainder, as protowire.StripManagedFields would cut them from it:
	// the object's rebuilt message then has none. A metadata whose only
	// unmodelled fields were those has no remainder.
	DropManagedFields bool
}

// managedFieldsNum is ObjectMeta's managedFields, and metadataNum the
// field of an object that holds its ObjectMeta.
const (
	managedFieldsNum = 17
	metadataNum      = 1
)

// AppendRemainder appends the remainder of msg (see Remainder) to dst and
// returns it: dst unchanged when t models every field. A caller that
// keeps remainders can take them into a scratch buffer and copy only
// those it has not seen before. The remainder is written in one walk of
// msg, with no allocation beyond dst's growth. On error dst's contents
// past its original length are undefined.
func AppendRemainder(dst, msg []byte, t reflect.Type, opt RemainderOptions) ([]byte, error) {
	m, err := messageOf(t)
	if err != nil {
		return dst, err
	}
	skipMeta := int32(0)
	if opt.DropManagedFields {
		skipMeta = managedFieldsNum
	}
	out, err := remainderOf(dst, msg, m, 0, skipMeta)
	if err != nil {
		return dst, fmt.Errorf("%w: protobuf %v: %w", api.ErrDecode, t, err)
	}
	return out, nil
}

// remainderOf appends the remainder of b, a message of m, leaving out
// the unmodelled field numbered skip (0: none); skipMeta is passed as
// skip to the ObjectMeta in field 1. Each modelled message field's
// remainder is written in place, behind its key and a length
// placeholder, and taken back when empty; a repeated one's empty
// entries stay until the end of b, and go when no element of that field
// had a remainder (Rebuild pairs a repeated field's remainders with its
// elements by position, so they are all written or none).
func remainderOf(out, b []byte, m *message, skip, skipMeta int32) ([]byte, error) {
	start := len(out)
	var once uint64          // the singular message fields seen, by pos < 64
	var onceBig map[int]bool // and by higher pos
	// The repeated message fields of which empty entries were written,
	// and those of which some element had a remainder, by pos < 64 (and
	// in a map beyond).
	var emptyW, full uint64
	var emptyBig, fullBig map[int]bool
	last := int32(0)
	for off := 0; off < len(b); {
		s, err := nextSpan(b, off)
		if err != nil {
			return nil, err
		}
		off = s.end
		if s.num < last {
			// Rebuild puts fields back by their numbers: only a message
			// in ascending field order, as kube-apiserver writes it, is
			// rebuilt as it was.
			return nil, fmt.Errorf("%w: field %d after field %d", errNotCanonical, s.num, last)
		}
		last = s.num
		f := m.lookup(s.num)
		if f == nil {
			if s.num != skip {
				out = append(out, b[s.start:s.end]...)
			}
			continue
		}
		sm := subMessage(f)
		if sm == nil || s.wt != wireBytes {
			continue
		}
		if f.card != cSlice {
			// A singular message given twice is merged by Unmarshal and
			// written once by Marshal: the remainders of its two
			// occurrences would have one place for two. kube-apiserver
			// never writes one twice; the caller keeps the message.
			if f.pos < 64 {
				if once&(1<<f.pos) != 0 {
					return nil, fmt.Errorf("%w: field %d given twice", errNotCanonical, s.num)
				}
				once |= 1 << f.pos
			} else {
				if onceBig[f.pos] {
					return nil, fmt.Errorf("%w: field %d given twice", errNotCanonical, s.num)
				}
				if onceBig == nil {
					onceBig = map[int]bool{}
				}
				onceBig[f.pos] = true
			}
		}
		p, err := payload(b, s)
		if err != nil {
			return nil, err
		}
		subSkip := int32(0)
		if s.num == metadataNum && sm.typ == typeObjectMeta {
			subSkip = skipMeta
		}
		keyAt := len(out)
		out = appendKey(out, s.num, wireBytes)
		var at int
		out, at = openLen(out)
		if out, err = remainderOf(out, p, sm, subSkip, 0); err != nil {
			return nil, fieldError(m, f, err)
		}
		empty := len(out) == at
		switch {
		case empty && f.card != cSlice:
			out = out[:keyAt]
		case empty:
			out[at-1] = 0
			if f.pos < 64 {
				emptyW |= 1 << f.pos
			} else {
				if emptyBig == nil {
					emptyBig = map[int]bool{}
				}
				emptyBig[f.pos] = true
			}
		default:
			out = closeLen(out, at)
			if f.card == cSlice {
				if f.pos < 64 {
					full |= 1 << f.pos
				} else {
					if fullBig == nil {
						fullBig = map[int]bool{}
					}
					fullBig[f.pos] = true
				}
			}
		}
	}
	drop := emptyW &^ full
	for pos := range emptyBig {
		if fullBig[pos] {
			delete(emptyBig, pos)
		}
	}
	if drop == 0 && len(emptyBig) == 0 {
		return out, nil
	}
	// Take back the empty entries of the repeated fields none of whose
	// elements had a remainder: what was written here is well formed.
	w := start
	for off := start; off < len(out); {
		s, _ := nextSpan(out, off)
		off = s.end
		if f := m.lookup(s.num); f != nil && f.card == cSlice && (f.pos < 64 && drop&(1<<f.pos) != 0 || emptyBig[f.pos]) {
			continue
		}
		w += copy(out[w:], out[s.start:s.end])
	}
	return out[:w], nil
}

// nextSpan reads the field of message b at off.
func nextSpan(b []byte, off int) (span, error) {
	num, wt, n, err := readKey(b[off:])
	if err != nil {
		return span{}, err
	}
	s := span{num: num, wt: wt, start: off, val: off + n}
	n, err = skipValue(b[s.val:], num, wt, 0)
	if err != nil {
		return span{}, fmt.Errorf("field %d: %w", num, err)
	}
	s.end = s.val + n
	return s, nil
}

// Rebuild returns the message a remainder was taken from: marshalled,
// Marshal of the object decoded from it (t its struct type), with rem's
// fields put back. rem nil gives marshalled itself.
func Rebuild(marshalled, rem []byte, t reflect.Type) ([]byte, error) {
	if len(rem) == 0 {
		return marshalled, nil
	}
	m, err := messageOf(t)
	if err != nil {
		return nil, err
	}
	out, err := rebuildOf(make([]byte, 0, len(marshalled)+len(rem)), marshalled, rem, m)
	if err != nil {
		return nil, fmt.Errorf("%w: protobuf %v: rebuild: %w", api.ErrDecode, t, err)
	}
	return out, nil
}

// rebuildOf appends mb, a message of m as Marshal writes it, with rem's
// fields: each remainder field before mb's first field of a higher
// number, a modelled message field's remainder into mb's occurrence of
// that field at the same position.
func rebuildOf(out, mb, rem []byte, m *message) ([]byte, error) {
	if len(rem) == 0 {
		return append(out, mb...), nil
	}
	ms, err := scan(mb)
	if err != nil {
		return nil, err
	}
	rs, err := scan(rem)
	if err != nil {
		return nil, err
	}
	r := 0
	for _, s := range ms {
		for r < len(rs) && rs[r].num < s.num {
			out = append(out, rem[rs[r].start:rs[r].end]...)
			r++
		}
		f := m.lookup(s.num)
		if sm := subMessage(f); r < len(rs) && rs[r].num == s.num && sm != nil && s.wt == wireBytes {
			p, err := payload(mb, s)
			if err != nil {
				return nil, err
			}
			sub, err := payload(rem, rs[r])
			if err != nil {
				return nil, err
			}
			r++
			out = appendKey(out, s.num, wireBytes)
			var start int
			out, start = openLen(out)
			if out, err = rebuildOf(out, p, sub, sm); err != nil {
				return nil, fieldError(m, f, err)
			}
			out = closeLen(out, start)
			continue
		}
		out = append(out, mb[s.start:s.end]...)
	}
	for ; r < len(rs); r++ {
		out = append(out, rem[rs[r].start:rs[r].end]...)
	}
	return out, nil
}

// subMessage is the message a value of field f is (nil: none, or a map's
// entries): its struct's, or a special type's, whose own fields are
// scalars.
func subMessage(f *field) *message {
	if f == nil || f.card == cMap {
		return nil
	}
	switch f.kind {
	case kMessage:
		return f.msg
	case kTime, kMicroTime:
		return timestampMsg
	case kQuantity, kRawExt:
		return oneFieldMsg
	case kIntOrString:
		return intOrStringMsg
	}
	return nil
}

// The special types' messages as far as remainders go: their field
// numbers (specials.go reads them).
var (
	timestampMsg   = scalarMessage(1, 2)    // seconds, nanos
	oneFieldMsg    = scalarMessage(1)       // Quantity's string, RawExtension's raw
	intOrStringMsg = scalarMessage(1, 2, 3) // type, intVal, strVal
)

func scalarMessage(nums ...int32) *message {
	m := &message{}
	for _, n := range nums {
		m.fields = append(m.fields, &field{num: n, name: fmt.Sprint(n), idx: -2, kind: kInt64})
	}
	index(m)
	return m
}
