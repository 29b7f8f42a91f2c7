package protocodec

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/kcmlab/kcm/kube/api"
)

// Unmarshal decodes msg, one object's protobuf message (no envelope: the
// raw of a runtime.Unknown, or an item of a list), into out, a pointer to
// a struct of package api such as *api.Pod. out is reset first. Fields the
// struct does not model are skipped (keep msg for MarshalMerge to write
// them back); a scalar given twice takes the last value, a message given
// twice is merged, repeated fields append, and repeated integers are read
// packed or not. The decoded object shares no memory with msg. Its
// ObjectMeta records no source: the codec that decodes for a client sets
// it.
//
// An error for bytes that are not such a message wraps api.ErrDecode.
func Unmarshal(msg []byte, out any) error { return unmarshal(msg, out, false, nil) }

// UnmarshalAliasing is Unmarshal whose decoded strings point into msg
// instead of each being a copy: no allocation per string, and the object
// keeps all of msg alive as long as any of its strings lives. The caller
// must never modify msg afterwards (a cache that keeps an object's message
// for MarshalMerge can decode this way). []byte values are still copies.
func UnmarshalAliasing(msg []byte, out any) error { return unmarshal(msg, out, true, nil) }

// decoder is the state of one Unmarshal (pooled: see getDecoder).
type decoder struct {
	alias bool // strings point into the message
	hinted
	rem remState
}

// remState is the remainder an Unmarshal writes as it decodes
// (UnmarshalRemainder): on, the bytes so far, and the first reason the
// message has none (then out is dropped).
type remState struct {
	on  bool
	out []byte
	bad error
	// skip is the unmodelled field the message about to be decoded
	// leaves out; metaSkip the one the top message's metadata leaves out.
	skip, metaSkip int32
	top            *message
}

// str returns p as a string: a copy, or an alias of the message's bytes.
func (d *decoder) str(p []byte) string {
	if d.alias {
		return unsafe.String(unsafe.SliceData(p), len(p))
	}
	return string(p)
}

func unmarshal(msg []byte, out any, alias bool, hint unsafe.Pointer) error {
	d := getDecoder(alias)
	defer putDecoder(d)
	return d.unmarshal(msg, out, hint)
}

func (d *decoder) unmarshal(msg []byte, out any, hint unsafe.Pointer) error {
	v := reflect.ValueOf(out)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return fmt.Errorf("%w: Unmarshal into %T, not a non-nil pointer", ErrNoProtobuf, out)
	}
	m, err := messageOf(v.Type().Elem())
	if err != nil {
		return err
	}
	v.Elem().SetZero()
	d.rem.top = m
	if err := d.decodeMessage(msg, m, v.UnsafePointer(), hint); err != nil {
		return fmt.Errorf("%w: protobuf %v: %w", api.ErrDecode, m.typ, err)
	}
	return nil
}

// fieldError locates err in field f.
func fieldError(m *message, f *field, err error) error {
	return fmt.Errorf("%s.%s (field %d): %w", m.typ.Name(), f.name, f.num, err)
}

// decodeMessage decodes b into the struct at p, merging into what it
// holds. The decoder writes through unsafe pointers: p is the address of
// a struct of m's type, and each field's address is p plus its offset
// (reflection found both), so every write has the field's own type.
//
// h, when not nil, is the hint's struct of the same type (see
// UnmarshalSharing).
func (d *decoder) decodeMessage(b []byte, m *message, p, h unsafe.Pointer) error {
	from, sharedFrom := len(d.active), len(d.shared)
	if len(m.slices)+len(m.maps) > 0 {
		d.countRepeated(b, m, p, h)
	}
	var rf remFrame
	skip := d.rem.skip
	if d.rem.on {
		rf.start, d.rem.skip = len(d.rem.out), 0
	}
	for len(b) > 0 {
		num, wt, n, err := readKey(b)
		if err != nil {
			return err
		}
		if d.rem.on && d.rem.bad == nil {
			d.rem.bad = rf.order(num)
		}
		f := m.lookup(num)
		if f == nil {
			nv, err := skipValue(b[n:], num, wt, 0)
			if err != nil {
				return fmt.Errorf("%s field %d: %w", m.typ.Name(), num, err)
			}
			if d.rem.on && num != skip {
				d.rem.out = append(d.rem.out, b[:n+nv]...)
			}
			b = b[n+nv:]
			continue
		}
		b = b[n:]
		if d.rem.on && wt == wireBytes {
			if sm := subMessage(f); sm != nil {
				if n, err = d.decodeFieldRemainder(b, f, sm, &rf, m, p, h); err != nil {
					return fieldError(m, f, err)
				}
				b = b[n:]
				continue
			}
		}
		n, err = d.decodeField(b, wt, f, p, h)
		if err != nil {
			return fieldError(m, f, err)
		}
		b = b[n:]
	}
	if d.rem.on && d.rem.bad == nil {
		d.rem.out = rf.finish(d.rem.out, m)
	}
	if len(d.shared) > sharedFrom {
		d.settleShared(sharedFrom)
	}
	if len(d.active) > from {
		d.settleScratch(from, p, h)
	}
	return nil
}

// decodeFieldRemainder is decodeField for an occurrence of message field
// f (sm its message) while the remainder is written: the field's
// remainder is written behind its key as it is decoded (a special type's
// by a walk of its small payload), and closed in frame rf of message m.
func (d *decoder) decodeFieldRemainder(b []byte, f *field, sm *message, rf *remFrame, m *message, p, h unsafe.Pointer) (int, error) {
	if d.rem.bad == nil {
		d.rem.bad = rf.single(f, f.num)
	}
	keyAt, at := len(d.rem.out), 0
	d.rem.out, at = openLen(appendKey(d.rem.out, f.num, wireBytes))
	if f.kind != kMessage {
		if data, _, err := readBytes(b); err == nil {
			if out, rerr := remainderOf(d.rem.out, data, sm, 0, 0); rerr != nil {
				if d.rem.bad == nil {
					d.rem.bad = rerr
				}
			} else {
				d.rem.out = out
			}
		}
	} else if m == d.rem.top && f.num == metadataNum && sm.typ == typeObjectMeta {
		d.rem.skip = d.rem.metaSkip
	}
	n, err := d.decodeField(b, wireBytes, f, p, h)
	d.rem.skip = 0
	if err != nil {
		return 0, err
	}
	if d.rem.bad == nil {
		d.rem.out = rf.closeSub(d.rem.out, f, keyAt, at)
	}
	return n, nil
}

// decodeField decodes one occurrence of field f (its value at the start
// of b, wire type wt) into the struct at p (hint h) and returns the bytes
// it took.
func (d *decoder) decodeField(b []byte, wt int, f *field, p, h unsafe.Pointer) (int, error) {
	fp, hp := p, h // a virtual message is the struct itself
	if f.idx >= 0 {
		fp = unsafe.Add(p, f.off)
		if h != nil {
			hp = unsafe.Add(h, f.off)
		}
	}
	want := f.kind.wireOf()
	if f.card == cMap {
		want = wireBytes
	}
	if wt != want {
		if f.card == cSlice && want == wireVarint && wt == wireBytes {
			return d.decodePacked(b, f, fp, hp)
		}
		return 0, fmt.Errorf("%w: %d, want %d", errWireType, wt, want)
	}
	var raw uint64  // the varint
	var data []byte // the payload
	var n int
	var err error
	if want == wireVarint {
		raw, n, err = readVarint(b)
	} else {
		data, n, err = readBytes(b)
	}
	if err != nil {
		return 0, err
	}
	switch f.card {
	case cOne:
		return n, d.decodeValue(raw, data, f, fp, hp)
	case cPtr:
		pp := (*unsafe.Pointer)(fp)
		var hpp unsafe.Pointer // the hint's pointee
		if hp != nil {
			hpp = *(*unsafe.Pointer)(hp)
		}
		if *pp == nil {
			switch {
			case hpp == nil:
			case sameAsPointee(raw, data, f, hpp):
				*pp = hpp
				return n, nil
			case f.kind == kMessage:
				v, err := d.decodePointee(raw, data, f, hpp)
				*pp = v
				return n, err
			}
			*pp = reflect.New(f.typ).UnsafePointer()
		} else if *pp == hpp {
			// Given twice: the hint's value is not to be merged into.
			own := reflect.New(f.typ)
			own.Elem().Set(reflect.NewAt(f.typ, hpp).Elem())
			*pp = own.UnsafePointer()
		}
		return n, d.decodeValue(raw, data, f, *pp, hpp)
	case cSlice:
		return n, d.decodeValue(raw, data, f, grow(fp, f), elemHint(fp, hp, f))
	}
	return n, d.decodeEntry(data, f, fp, hp)
}

// sliceHeader is the memory of a Go slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// grow appends a zero element to the slice at fp and returns its
// address, within the capacity countRepeated made when it can. The
// memory past a slice's length is zero: Unmarshal starts from a zero
// struct and only ever lengthens the slices it makes.
func grow(fp unsafe.Pointer, f *field) unsafe.Pointer {
	h := (*sliceHeader)(fp)
	if h.len == h.cap {
		reflect.NewAt(f.typ, fp).Elem().Grow(1)
	}
	h.len++
	return unsafe.Add(h.data, uintptr(h.len-1)*f.elemSize)
}

// countRepeated makes room in the repeated fields and maps of the struct
// at p for the elements message b holds, so that each slice is allocated
// once and each map at its size.
// Errors are left to the decoding pass.
// With a hint (h), a map the hint has with as many entries is not made
// (its entries will likely be the hint's: decodeEntry), and an empty
// repeated field of which the hint has as many elements is decoded into
// a scratch array (settleScratch).
func (d *decoder) countRepeated(b []byte, m *message, p, h unsafe.Pointer) {
	var counts [64]int
	if len(m.fields) > len(counts) {
		return
	}
	for len(b) > 0 {
		num, wt, n, err := readKey(b)
		if err != nil {
			break
		}
		b = b[n:]
		if f := m.lookup(num); f != nil && (f.card == cSlice && wt == f.kind.wireOf() || f.card == cMap) {
			counts[f.pos]++
		}
		if n, err = skipValue(b, num, wt, 0); err != nil {
			break
		}
		b = b[n:]
	}
	for _, f := range m.slices {
		c := counts[f.pos]
		fp := unsafe.Add(p, f.off)
		sh := (*sliceHeader)(fp)
		switch {
		case c == 0:
		case h != nil && sh.data == nil && (*sliceHeader)(unsafe.Add(h, f.off)).len == c:
			d.startScratch(fp, f, c)
		case sh.cap-sh.len < c:
			reflect.NewAt(f.typ, fp).Elem().Grow(c)
		}
	}
	for _, f := range m.maps {
		c := counts[f.pos]
		fp := unsafe.Add(p, f.off)
		switch {
		case c == 0:
		case h != nil && c <= maxSharedMap && len(*(*map[string]string)(unsafe.Add(h, f.off))) == c:
		case f.kind == kBytes:
			if mp := (*map[string][]byte)(fp); *mp == nil {
				*mp = make(map[string][]byte, c)
			}
		default:
			if mp := (*map[string]string)(fp); *mp == nil {
				*mp = make(map[string]string, c)
			}
		}
	}
}

// decodePacked decodes a packed run of varints of the repeated field f.
func (d *decoder) decodePacked(b []byte, f *field, fp, hp unsafe.Pointer) (int, error) {
	data, n, err := readBytes(b)
	if err != nil {
		return 0, err
	}
	for len(data) > 0 {
		x, m, err := readVarint(data)
		if err != nil {
			return 0, err
		}
		data = data[m:]
		if err := d.decodeValue(x, nil, f, grow(fp, f), nil); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// decodeEntry decodes a map entry {1: key, 2: value} into the map fv. An
// entry without a value has the empty value. With the hint's map at hp,
// the field is set to the hint's map while every entry read is in it
// with the same value (settleShared checks that none is missing).
func (d *decoder) decodeEntry(data []byte, f *field, fp, hp unsafe.Pointer) error {
	var keyB, valB []byte
	hasVal := false
	for len(data) > 0 {
		num, wt, n, err := readKey(data)
		if err != nil {
			return err
		}
		data = data[n:]
		if num != 1 && num != 2 {
			n, err := skipValue(data, num, wt, 0)
			if err != nil {
				return err
			}
			data = data[n:]
			continue
		}
		if wt != wireBytes {
			return fmt.Errorf("%w: map entry field %d: %d", errWireType, num, wt)
		}
		p, n, err := readBytes(data)
		if err != nil {
			return err
		}
		data = data[n:]
		if num == 1 {
			keyB = p
		} else {
			valB, hasVal = p, true
		}
	}
	if f.kind == kQuantity && hasVal {
		var err error
		if valB, err = quantityBytes(valB); err != nil {
			return err
		}
	}
	// The value's bytes as a string, to compare (copied below unless
	// the hint's is taken).
	vs := unsafe.String(unsafe.SliceData(valB), len(valB))
	if d.shareEntry(f, fp, hp, keyB, vs) {
		return nil
	}
	if i := d.sharedAt(fp); i >= 0 {
		d.unshare(i)
	} else if hp != nil && *(*unsafe.Pointer)(fp) != nil && *(*unsafe.Pointer)(fp) == *(*unsafe.Pointer)(hp) {
		// The hint's, taken whole by an earlier occurrence of this
		// message: never written into.
		copyMap(f, fp)
	}
	mp := (*map[string]string)(fp)
	key := d.str(keyB)
	if f.kind == kBytes {
		m := (*map[string][]byte)(fp)
		if *m == nil {
			*m = map[string][]byte{}
		}
		(*m)[key] = append([]byte{}, valB...)
		return nil
	}
	vs = d.str(valB)
	if *mp == nil {
		*mp = map[string]string{}
	}
	(*mp)[key] = vs
	return nil
}

// decodeValue sets the value of f's kind at dst from a varint (raw) or a
// payload (data); h is the hint's value of the same place, or nil.
func (d *decoder) decodeValue(raw uint64, data []byte, f *field, dst, h unsafe.Pointer) error {
	switch f.kind {
	case kString:
		*(*string)(dst) = d.strHint(data, h)
	case kBool:
		*(*bool)(dst) = raw != 0
	case kInt32:
		*(*int32)(dst) = int32(raw)
	case kInt64:
		*(*int64)(dst) = int64(raw)
	case kBytes:
		*(*[]byte)(dst) = append([]byte{}, data...)
	case kQuantity:
		q, err := quantityBytes(data)
		if err != nil {
			return err
		}
		*(*string)(dst) = d.strHint(q, h)
	case kTime, kMicroTime:
		t, err := decodeTimestamp(data, f.kind == kMicroTime)
		if err != nil {
			return err
		}
		if f.kind == kTime {
			(*api.Time)(dst).Time = t
		} else {
			(*api.MicroTime)(dst).Time = t
		}
	case kIntOrString:
		v, err := d.decodeIntOrString(data)
		if err != nil {
			return err
		}
		if h != nil && *(*api.IntOrString)(h) == v {
			v = *(*api.IntOrString)(h)
		}
		*(*api.IntOrString)(dst) = v
	case kRawExt:
		raw, err := decodeRawExtension(data)
		if err != nil {
			return err
		}
		(*api.RawExtension)(dst).Raw = raw
	case kMessage:
		return d.decodeMessage(data, f.msg, dst, h)
	}
	return nil
}
