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

// ErrNoRemainder is wrapped by UnmarshalRemainder's error for a message
// that decoded but has no remainder (not in upstream's field order, see
// Remainder): keep such a message whole.
var ErrNoRemainder = errors.New("protocodec: no remainder")

// UnmarshalRemainder is UnmarshalSharing (hint may be nil) that also
// appends msg's remainder (AppendRemainder with opt) to rem, in the same
// walk of msg: what a cache that keeps remainders instead of messages
// decodes with. An error that wraps ErrNoRemainder leaves out decoded
// and rem's contents past its length undefined; any other wraps
// api.ErrDecode.
func UnmarshalRemainder(msg []byte, out, hint any, rem []byte, opt RemainderOptions) ([]byte, error) {
	h, err := hintOf(out, hint)
	if err != nil {
		return rem, err
	}
	d := getDecoder(false)
	defer putDecoder(d)
	d.rem.on, d.rem.out = true, rem
	if opt.DropManagedFields {
		d.rem.metaSkip = managedFieldsNum
	}
	if err := d.unmarshal(msg, out, h); err != nil {
		return rem, err
	}
	if d.rem.bad != nil {
		return rem, fmt.Errorf("%w: protobuf %T: %w", ErrNoRemainder, out, d.rem.bad)
	}
	return d.rem.out, nil
}

// remainderOf appends the remainder of b, a message of m, leaving out
// the unmodelled field numbered skip (0: none); skipMeta is passed as
// skip to the ObjectMeta in field 1. Each modelled message field's
// remainder is written in place, behind its key and a length
// placeholder, and taken back when empty (remFrame). Unmarshal's
// remainder pass (UnmarshalRemainder) writes the same bytes as it
// decodes.
func remainderOf(out, b []byte, m *message, skip, skipMeta int32) ([]byte, error) {
	r := remFrame{start: len(out)}
	for off := 0; off < len(b); {
		s, err := nextSpan(b, off)
		if err != nil {
			return nil, err
		}
		off = s.end
		if err := r.order(s.num); err != nil {
			return nil, err
		}
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
		if err := r.single(f, s.num); err != nil {
			return nil, err
		}
		p, err := payload(b, s)
		if err != nil {
			return nil, err
		}
		subSkip := int32(0)
		if s.num == metadataNum && sm.typ == typeObjectMeta {
			subSkip = skipMeta
		}
		keyAt, at := len(out), 0
		out, at = openLen(appendKey(out, s.num, wireBytes))
		if out, err = remainderOf(out, p, sm, subSkip, 0); err != nil {
			return nil, fieldError(m, f, err)
		}
		out = r.closeSub(out, f, keyAt, at)
	}
	return r.finish(out, m), nil
}

// remFrame is the state of writing one message's remainder: where it
// starts in the output, the last field number read, the singular
// message fields seen, and the repeated message fields of which empty
// entries were written and of which some element had a remainder (by
// pos < 64, and in maps beyond). A repeated field's empty entries stay
// until the end of the message, and go when no element of that field
// had a remainder (Rebuild pairs a repeated field's remainders with its
// elements by position, so they are all written or none).
type remFrame struct {
	start        int
	last         int32
	once         uint64
	onceBig      map[int]bool
	emptyW, full uint64
	emptyBig     map[int]bool
	fullBig      map[int]bool
}

// order checks that field num comes after the fields before it:
// Rebuild puts fields back by their numbers, so only a message in
// ascending field order, as kube-apiserver writes it, is rebuilt as it
// was.
func (r *remFrame) order(num int32) error {
	if num < r.last {
		return fmt.Errorf("%w: field %d after field %d", errNotCanonical, num, r.last)
	}
	r.last = num
	return nil
}

// single checks that a singular message field f (numbered num) is not
// given twice: Unmarshal merges the two occurrences and Marshal writes
// one, so their remainders would have one place for two. kube-apiserver
// never writes one twice; the caller keeps such a message whole.
func (r *remFrame) single(f *field, num int32) error {
	if f.card == cSlice {
		return nil
	}
	if f.pos < 64 {
		if r.once&(1<<f.pos) != 0 {
			return fmt.Errorf("%w: field %d given twice", errNotCanonical, num)
		}
		r.once |= 1 << f.pos
		return nil
	}
	if r.onceBig[f.pos] {
		return fmt.Errorf("%w: field %d given twice", errNotCanonical, num)
	}
	if r.onceBig == nil {
		r.onceBig = map[int]bool{}
	}
	r.onceBig[f.pos] = true
	return nil
}

// closeSub ends the entry of message field f opened at keyAt (payload
// from at): taken back when empty and singular, kept empty (for now)
// when repeated, its length written otherwise.
func (r *remFrame) closeSub(out []byte, f *field, keyAt, at int) []byte {
	empty := len(out) == at
	switch {
	case empty && f.card != cSlice:
		return out[:keyAt]
	case empty:
		mark(&r.emptyW, &r.emptyBig, f.pos)
		return out
	}
	if f.card == cSlice {
		mark(&r.full, &r.fullBig, f.pos)
	}
	return closeLen(out, at)
}

// mark adds pos to the set (bits, big).
func mark(bits *uint64, big *map[int]bool, pos int) {
	if pos < 64 {
		*bits |= 1 << pos
		return
	}
	if *big == nil {
		*big = map[int]bool{}
	}
	(*big)[pos] = true
}

// finish takes back the empty entries of the repeated fields none of
// whose elements had a remainder; what was written since start is well
// formed.
func (r *remFrame) finish(out []byte, m *message) []byte {
	drop := r.emptyW &^ r.full
	for pos := range r.emptyBig {
		if r.fullBig[pos] {
			delete(r.emptyBig, pos)
		}
	}
	if drop == 0 && len(r.emptyBig) == 0 {
		return out
	}
	w := r.start
	for off := r.start; off < len(out); {
		s, _ := nextSpan(out, off)
		off = s.end
		if f := m.lookup(s.num); f != nil && f.card == cSlice && (f.pos < 64 && drop&(1<<f.pos) != 0 || r.emptyBig[f.pos]) {
			continue
		}
		w += copy(out[w:], out[s.start:s.end])
	}
	return out[:w]
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
