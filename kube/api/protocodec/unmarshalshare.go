package protocodec

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"
	"unsafe"
)

// Decoding with a hint (UnmarshalSharing). A cache decodes the replicas
// of a workload one after another, and each new version of an object it
// holds: most of what a message says is equal to what the hint — the
// object decoded before, or the cached version — holds at the same
// place. The decoder walks the hint beside the message and takes the
// hint's part wherever the message's is equal, deciding as it reads, so
// that nothing is allocated only to be found equal and dropped:
//
//   - a string or a quantity: compared with the hint's bytes, taken or
//     copied;
//   - a map of strings: set to the hint's map while every entry read is
//     in it with the same value, given a map of its own at the first
//     that is not (or at the end, if the hint's has more entries);
//   - a pointer: to a scalar or an empty message, compared with the
//     hint's pointee; to a message, decoded into a scratch value of the
//     decoder's (with the hint's pointee as its hint), which is the
//     hint's when its memory is the pointee's — every part taken from
//     the hint — and is copied into an allocation of its own otherwise;
//   - a repeated field whose count is the hint's: decoded into a
//     scratch array (each element with the hint's element at its index
//     as hint), then the hint's slice when the memory is equal, else
//     copied into an array of exactly its length.
//
// Equal memory means equal values (the same pointers, string headers
// and scalars); unequal memory can still be equal values (a slice inside
// decoded anew), which only costs the allocation. The hint is only read,
// and the decoded object shares memory with it: both are read-only.

// UnmarshalSharing is Unmarshal that takes from hint, an object of out's
// type that nobody modifies (a cached version of the object, or the
// object decoded before), every part equal to the hint's at the same
// place (the same field; in a repeated field, the element at the same
// index) instead of allocating its own (above). hint nil is Unmarshal.
// The decoded object shares memory with hint, so it must be read-only
// too; it shares none with msg.
func UnmarshalSharing(msg []byte, out, hint any) error {
	h, err := hintOf(out, hint)
	if err != nil {
		return err
	}
	return unmarshal(msg, out, false, h)
}

// hintOf is the struct hint points to (nil for none), which must be of
// out's type.
func hintOf(out, hint any) (unsafe.Pointer, error) {
	if hint == nil {
		return nil, nil
	}
	hv := reflect.ValueOf(hint)
	if hv.Type() != reflect.TypeOf(out) {
		return nil, fmt.Errorf("%w: decoding into %T with a hint of type %T", ErrNoProtobuf, out, hint)
	}
	if hv.IsNil() {
		return nil, nil
	}
	return hv.UnsafePointer(), nil
}

// hinted is a decoder's state for decoding with a hint: the maps taken
// from it so far, and the scratch memory it decodes into.
type hinted struct {
	shared []sharedMap
	keys   []sharedKey
	// active are the scratch arrays of the repeated fields being decoded,
	// innermost last.
	active []activeSlice
	// Free scratch memory: arrays by slice type, values by type.
	slices map[reflect.Type][]scratchArray
	values map[reflect.Type][]unsafe.Pointer
	tmp    sliceHeader // a scratch array as a slice, to clear (a local would escape)
}

// sharedMap is a map field (at fp) set to the hint's map m because every
// entry read so far is in m with the same value; the entries' keys (m's
// strings, one each) are in keys under this record's index.
type sharedMap struct {
	fp    unsafe.Pointer
	m     map[string]string // or a map[string][]byte (bytes)
	bytes bool
	n     int // distinct keys read
}

// sharedKey is a key read into the sharedMap at index sm.
type sharedKey struct {
	sm  int
	key string
}

// maxSharedMap is the most entries a hint's map may have to be shared.
const maxSharedMap = 16

// scratchArray is an array of a slice type's elements, zero.
type scratchArray struct {
	data unsafe.Pointer
	cap  int
}

// activeSlice is a repeated field (at fp, of f) decoded into arr.
type activeSlice struct {
	fp  unsafe.Pointer
	f   *field
	arr scratchArray
}

var decoders = sync.Pool{New: func() any { return new(decoder) }}

// getDecoder returns a decoder from the pool.
func getDecoder(alias bool) *decoder {
	d := decoders.Get().(*decoder)
	d.alias = alias
	return d
}

// putDecoder returns d to the pool, forgetting the objects it decoded
// (its scratch memory is zero already, unless the decode failed: then
// that is dropped).
func putDecoder(d *decoder) {
	d.rem = remState{}
	clear(d.shared)
	d.shared = d.shared[:0]
	clear(d.keys)
	d.keys = d.keys[:0]
	clear(d.active)
	d.active = d.active[:0]
	decoders.Put(d)
}

// strHint is str, or the hint's string h points to when it is equal.
func (d *decoder) strHint(p []byte, h unsafe.Pointer) string {
	if h != nil {
		if hs := *(*string)(h); hs == string(p) {
			return hs
		}
	}
	return d.str(p)
}

// elemHint is the hint of the element grow has just appended to the
// slice at fp: the element at the same index of the hint's slice at hp.
func elemHint(fp, hp unsafe.Pointer, f *field) unsafe.Pointer {
	if hp == nil {
		return nil
	}
	i := (*sliceHeader)(fp).len - 1
	if hh := (*sliceHeader)(hp); i < hh.len {
		return unsafe.Add(hh.data, uintptr(i)*f.elemSize)
	}
	return nil
}

// sameAsPointee reports whether the value of pointer field f read from
// the wire (raw or data) equals the hint's pointee at hpp: a scalar of
// the same value, or an empty message when the pointee is the zero
// value. Nothing is allocated.
func sameAsPointee(raw uint64, data []byte, f *field, hpp unsafe.Pointer) bool {
	switch f.kind {
	case kString:
		return *(*string)(hpp) == string(data)
	case kBool:
		return *(*bool)(hpp) == (raw != 0)
	case kInt32:
		return *(*int32)(hpp) == int32(raw)
	case kInt64:
		return *(*int64)(hpp) == int64(raw)
	case kMessage:
		return len(data) == 0 && reflect.NewAt(f.typ, hpp).Elem().IsZero()
	}
	return false
}

// memEqual reports whether the n bytes at a and b are equal.
func memEqual(a, b unsafe.Pointer, n uintptr) bool {
	return a == b || string(unsafe.Slice((*byte)(a), n)) == string(unsafe.Slice((*byte)(b), n))
}

// decodePointee decodes the message payload data of pointer field f,
// whose hint's pointee hpp is not nil, and returns the pointee: hpp
// when the value decoded is the hint's, else an allocation of its own.
func (d *decoder) decodePointee(raw uint64, data []byte, f *field, hpp unsafe.Pointer) (unsafe.Pointer, error) {
	s := d.scratchValue(f.typ)
	if err := d.decodeValue(raw, data, f, s, hpp); err != nil {
		return nil, err // s is dropped: it may hold anything
	}
	v := hpp
	if !memEqual(s, hpp, f.typ.Size()) {
		own := reflect.New(f.typ)
		own.Elem().Set(reflect.NewAt(f.typ, s).Elem())
		v = own.UnsafePointer()
	}
	reflect.NewAt(f.typ, s).Elem().SetZero()
	d.values[f.typ] = append(d.values[f.typ], s)
	return v, nil
}

// scratchValue returns a zero value of type t to decode into.
func (d *decoder) scratchValue(t reflect.Type) unsafe.Pointer {
	if free := d.values[t]; len(free) > 0 {
		s := free[len(free)-1]
		d.values[t] = free[:len(free)-1]
		return s
	}
	if d.values == nil {
		d.values = map[reflect.Type][]unsafe.Pointer{}
	}
	return reflect.New(t).UnsafePointer()
}

// startScratch points the empty repeated field f at fp to a zero scratch
// array for n elements.
func (d *decoder) startScratch(fp unsafe.Pointer, f *field, n int) {
	var arr scratchArray
	free := d.slices[f.typ]
	for i := len(free) - 1; i >= 0; i-- {
		if free[i].cap >= n {
			arr = free[i]
			free[i] = free[len(free)-1]
			d.slices[f.typ] = free[:len(free)-1]
			break
		}
	}
	if arr.data == nil {
		if d.slices == nil {
			d.slices = map[reflect.Type][]scratchArray{}
		}
		v := reflect.MakeSlice(f.typ, n, max(n, 4))
		arr = scratchArray{v.UnsafePointer(), v.Cap()}
	}
	*(*sliceHeader)(fp) = sliceHeader{data: arr.data, cap: arr.cap}
	d.active = append(d.active, activeSlice{fp: fp, f: f, arr: arr})
}

// settleScratch settles the repeated fields decoded into scratch arrays
// since active had length from: each is the hint's slice (at the field's
// offset from h) when its memory is equal, else a copy of exactly its
// length; the arrays are zeroed and freed.
func (d *decoder) settleScratch(from int, p, h unsafe.Pointer) {
	for _, a := range d.active[from:] {
		sh := (*sliceHeader)(a.fp)
		hh := (*sliceHeader)(unsafe.Add(h, uintptr(a.fp)-uintptr(p)))
		used := a.arr.cap // grown past its count: its elements were copied
		if sh.data == a.arr.data {
			used = sh.len
			switch {
			case sh.len == 0:
				*sh = sliceHeader{}
			case sh.len == hh.len && memEqual(sh.data, hh.data, uintptr(sh.len)*a.f.elemSize):
				*sh = sliceHeader{data: hh.data, len: hh.len, cap: hh.len}
			default:
				src := reflect.NewAt(a.f.typ, a.fp).Elem()
				own := reflect.MakeSlice(a.f.typ, sh.len, sh.len)
				reflect.Copy(own, src)
				*sh = sliceHeader{data: own.UnsafePointer(), len: sh.len, cap: sh.len}
			}
		}
		d.tmp = sliceHeader{data: a.arr.data, len: used, cap: a.arr.cap}
		reflect.NewAt(a.f.typ, unsafe.Pointer(&d.tmp)).Elem().Clear()
		d.tmp = sliceHeader{}
		d.slices[a.f.typ] = append(d.slices[a.f.typ], a.arr)
	}
	clear(d.active[from:])
	d.active = d.active[:from]
}

// settleShared settles the maps taken from the hint by the message
// whose decode began with shared at length from, at its end: each whose
// entries the message gave all of stays the hint's, the others get a map
// of their own. Their records go (the map fields may be in scratch
// memory about to be copied).
func (d *decoder) settleShared(from int) {
	for i := from; i < len(d.shared); i++ {
		if sm := &d.shared[i]; sm.fp != nil && sm.n != len(sm.m) {
			d.unshare(i)
		}
	}
	clear(d.shared[from:])
	d.shared = d.shared[:from]
	d.keys = slices.DeleteFunc(d.keys, func(k sharedKey) bool { return k.sm >= from })
}

// copyMap gives the map field at fp, of f, a copy of the map it holds
// (a map[string][]byte's values are not copied: they are never written).
func copyMap(f *field, fp unsafe.Pointer) {
	if f.kind == kBytes {
		*(*map[string][]byte)(fp) = maps.Clone(*(*map[string][]byte)(fp))
		return
	}
	*(*map[string]string)(fp) = maps.Clone(*(*map[string]string)(fp))
}

// unshare gives the map field of shared[i] a map of its own holding the
// entries read so far (the hint's), to which one more will be added.
func (d *decoder) unshare(i int) {
	sm := &d.shared[i]
	if sm.bytes {
		hm := *(*map[string][]byte)(unsafe.Pointer(&sm.m))
		own := make(map[string][]byte, sm.n+1)
		for _, k := range d.keys {
			if k.sm == i {
				own[k.key] = hm[k.key]
			}
		}
		*(*map[string][]byte)(sm.fp) = own
	} else {
		own := make(map[string]string, sm.n+1)
		for _, k := range d.keys {
			if k.sm == i {
				own[k.key] = sm.m[k.key]
			}
		}
		*(*map[string]string)(sm.fp) = own
	}
	sm.fp = nil
}

// sharedAt returns the index in shared of the map field at fp taken from
// the hint, or -1.
func (d *decoder) sharedAt(fp unsafe.Pointer) int {
	for i := range d.shared {
		if d.shared[i].fp == fp {
			return i
		}
	}
	return -1
}

// shareEntry reports whether the entry key → vs (the value's bytes as a
// string) of map field f at fp can be the hint's, whose map field is at
// hp: it then is, and the field is (still) the hint's map.
func (d *decoder) shareEntry(f *field, fp, hp unsafe.Pointer, key []byte, vs string) bool {
	i := d.sharedAt(fp)
	if hp == nil || (i < 0 && *(*map[string]string)(fp) != nil) {
		return false
	}
	hm := *(*map[string]string)(hp)
	if len(hm) > maxSharedMap {
		return false
	}
	hk, ok := entryOf(hm, key, vs, f.kind == kBytes)
	if !ok {
		return false
	}
	if i < 0 {
		d.shared = append(d.shared, sharedMap{fp: fp, m: hm, bytes: f.kind == kBytes})
		i = len(d.shared) - 1
		*(*map[string]string)(fp) = hm
	}
	for _, k := range d.keys {
		if k.sm == i && k.key == hk {
			return true // given twice
		}
	}
	d.keys = append(d.keys, sharedKey{i, hk})
	d.shared[i].n++
	return true
}

// entryOf looks key up in the hint's map hm (a map[string][]byte when
// isBytes): the key's string in hm when hm holds the value vs there (as
// a string: the []byte's memory when isBytes).
func entryOf(hm map[string]string, key []byte, vs string, isBytes bool) (string, bool) {
	if hm == nil {
		return "", false
	}
	if isBytes {
		bm := *(*map[string][]byte)(unsafe.Pointer(&hm))
		if hv, ok := bm[string(key)]; !ok || string(hv) != vs {
			return "", false
		}
		for k := range bm {
			if k == string(key) {
				return k, true
			}
		}
		return "", false
	}
	if hv, ok := hm[string(key)]; !ok || hv != vs {
		return "", false
	}
	for k := range hm {
		if k == string(key) {
			return k, true
		}
	}
	return "", false
}
