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
func Unmarshal(msg []byte, out any) error { return unmarshal(msg, out, false) }

// UnmarshalAliasing is Unmarshal whose decoded strings point into msg
// instead of each being a copy: no allocation per string, and the object
// keeps all of msg alive as long as any of its strings lives. The caller
// must never modify msg afterwards (a cache that keeps an object's message
// for MarshalMerge can decode this way). []byte values are still copies.
func UnmarshalAliasing(msg []byte, out any) error { return unmarshal(msg, out, true) }

// decoder is the state of one Unmarshal.
type decoder struct {
	alias bool // strings point into the message
}

// str returns p as a string: a copy, or an alias of the message's bytes.
func (d *decoder) str(p []byte) string {
	if d.alias {
		return unsafe.String(unsafe.SliceData(p), len(p))
	}
	return string(p)
}

func unmarshal(msg []byte, out any, alias bool) error {
	v := reflect.ValueOf(out)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return fmt.Errorf("%w: Unmarshal into %T, not a non-nil pointer", ErrNoProtobuf, out)
	}
	m, err := messageOf(v.Type().Elem())
	if err != nil {
		return err
	}
	v.Elem().SetZero()
	if err := (&decoder{alias: alias}).decodeMessage(msg, m, v.UnsafePointer()); err != nil {
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
func (d *decoder) decodeMessage(b []byte, m *message, p unsafe.Pointer) error {
	if len(m.slices)+len(m.maps) > 0 {
		countRepeated(b, m, p)
	}
	for len(b) > 0 {
		num, wt, n, err := readKey(b)
		if err != nil {
			return err
		}
		b = b[n:]
		f := m.lookup(num)
		if f == nil {
			n, err := skipValue(b, num, wt, 0)
			if err != nil {
				return fmt.Errorf("%s field %d: %w", m.typ.Name(), num, err)
			}
			b = b[n:]
			continue
		}
		n, err = d.decodeField(b, wt, f, p)
		if err != nil {
			return fieldError(m, f, err)
		}
		b = b[n:]
	}
	return nil
}

// decodeField decodes one occurrence of field f (its value at the start
// of b, wire type wt) into the struct at p and returns the bytes it took.
func (d *decoder) decodeField(b []byte, wt int, f *field, p unsafe.Pointer) (int, error) {
	fp := p // a virtual message is the struct itself
	if f.idx >= 0 {
		fp = unsafe.Add(p, f.off)
	}
	want := f.kind.wireOf()
	if f.card == cMap {
		want = wireBytes
	}
	if wt != want {
		if f.card == cSlice && want == wireVarint && wt == wireBytes {
			return d.decodePacked(b, f, fp)
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
		return n, d.decodeValue(raw, data, f, fp)
	case cPtr:
		pp := (*unsafe.Pointer)(fp)
		if *pp == nil {
			*pp = reflect.New(f.typ).UnsafePointer()
		}
		return n, d.decodeValue(raw, data, f, *pp)
	case cSlice:
		return n, d.decodeValue(raw, data, f, grow(fp, f))
	}
	return n, d.decodeEntry(data, f, fp)
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
func countRepeated(b []byte, m *message, p unsafe.Pointer) {
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
		if h := (*sliceHeader)(fp); c > 0 && h.cap-h.len < c {
			reflect.NewAt(f.typ, fp).Elem().Grow(c)
		}
	}
	for _, f := range m.maps {
		c := counts[f.pos]
		fp := unsafe.Add(p, f.off)
		switch {
		case c == 0:
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
func (d *decoder) decodePacked(b []byte, f *field, fp unsafe.Pointer) (int, error) {
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
		if err := d.decodeValue(x, nil, f, grow(fp, f)); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// decodeEntry decodes a map entry {1: key, 2: value} into the map fv. An
// entry without a value has the empty value.
func (d *decoder) decodeEntry(data []byte, f *field, fp unsafe.Pointer) error {
	var key, str string
	bs := []byte{}
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
		switch {
		case num == 1:
			key = d.str(p)
		case f.kind == kString:
			str = d.str(p)
		case f.kind == kBytes:
			bs = append([]byte{}, p...)
		default:
			if str, err = d.decodeQuantity(p); err != nil {
				return err
			}
		}
	}
	if f.kind == kBytes {
		m := (*map[string][]byte)(fp)
		if *m == nil {
			*m = map[string][]byte{}
		}
		(*m)[key] = bs
		return nil
	}
	m := (*map[string]string)(fp)
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[key] = str
	return nil
}

// decodeValue sets the value of f's kind at dst from a varint (raw) or a
// payload (data).
func (d *decoder) decodeValue(raw uint64, data []byte, f *field, dst unsafe.Pointer) error {
	switch f.kind {
	case kString:
		*(*string)(dst) = d.str(data)
	case kBool:
		*(*bool)(dst) = raw != 0
	case kInt32:
		*(*int32)(dst) = int32(raw)
	case kInt64:
		*(*int64)(dst) = int64(raw)
	case kBytes:
		*(*[]byte)(dst) = append([]byte{}, data...)
	case kQuantity:
		s, err := d.decodeQuantity(data)
		if err != nil {
			return err
		}
		*(*string)(dst) = s
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
		*(*api.IntOrString)(dst) = v
	case kRawExt:
		raw, err := decodeRawExtension(data)
		if err != nil {
			return err
		}
		(*api.RawExtension)(dst).Raw = raw
	case kMessage:
		return d.decodeMessage(data, f.msg, dst)
	}
	return nil
}
