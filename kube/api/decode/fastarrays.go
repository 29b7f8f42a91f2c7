package decode

import (
	"reflect"
	"unsafe"

	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// The fast path's arrays (see fastdecode.go): a slice is decoded into
// its schema's scratch array and given an array of its own only when it
// differs from the hint's.

// sliceInto decodes the array at d[vs] into a slice of exactly its
// length at p, then shares it like ptrInto.
//
// The elements are decoded into the schema's scratch array first (see
// takeArray): when they equal the hint's — the previous object's
// conditions, ports, tolerations, or the cached version's everything —
// the hint's array is taken and nothing is allocated; otherwise they are
// copied into an array of exactly their length. The scratch is sized
// from the hint's length, which is usually the array's, so the array is
// read once; without a hint its elements are counted first. A wrong
// guess costs a copy: the scratch grows by doubling.
func (f *fastDec) sliceInto(nops *int, key []byte, idx, vs int, s *jsSchema, p, hint unsafe.Pointer, fl *jsField) (int, error) {
	d := f.d
	if d[vs] != '[' {
		return 0, errSlowPath
	}
	i := jsonx.SkipWS(d, vs+1)
	if i >= len(d) {
		return 0, errSlowPath
	}
	if d[i] == ']' {
		emptyInto(s, p)
		return i + 1, nil
	}
	var hh *sliceHeader
	if hint != nil {
		hh = (*sliceHeader)(hint)
	}
	size := s.elem.typ.Size()
	var n int
	if hh != nil && hh.len > 0 {
		n = hh.len
	} else {
		var err error
		if n, err = countElements(d, vs); err != nil {
			return 0, err
		}
	}
	buf := f.takeArray(s, n)
	h := &buf.h // on an error buf is dropped, never reused half-filled
	start := f.open(nops, key, idx)
	inner := 0
	for k := 0; ; k++ {
		if k > 0 {
			if i = jsonx.SkipWS(d, i); i >= len(d) {
				return 0, errSlowPath
			}
			if d[i] == ']' {
				break
			}
			if d[i] != ',' {
				return 0, errSlowPath
			}
			i = jsonx.SkipWS(d, i+1)
			if i >= len(d) {
				return 0, errSlowPath
			}
		}
		if k == h.cap {
			s.grow(h)
		}
		h.len = k + 1
		var eh unsafe.Pointer
		if hh != nil && k < hh.len {
			eh = unsafe.Add(hh.data, uintptr(k)*size)
		}
		var err error
		if i, err = f.valueInto(&inner, nil, k, i, s.elem, unsafe.Add(h.data, uintptr(k)*size), eh, nil); err != nil {
			return 0, err
		}
	}
	f.close(nops, start, inner)
	n = h.len
	plan := s.share
	if hh != nil && hh.len == n && plan.elementsEqual(h.data, hh.data, n) {
		*(*sliceHeader)(p) = sliceHeader{data: hh.data, len: n, cap: n}
		f.putArray(s, buf)
		if fl != nil {
			noteRepeat(&fl.count)
		}
		return i + 1, nil
	}
	buf.out = sliceHeader{data: s.newArray(n), len: n, cap: n}
	reflect.Copy(buf.outView, buf.view)
	*(*sliceHeader)(p) = buf.out
	buf.out = sliceHeader{}
	f.putArray(s, buf)
	if !plan.elem.own {
		dst := (*sliceHeader)(p)
		dst.data = fl.shareValue(plan, dst.data, uintptr(n)*size, n)
	}
	return i + 1, nil
}

// scratchArray is a slice schema's scratch: a backing array elements are
// decoded into before it is known whether they need one of their own
// (h), and the slice they are then copied into (out). view and outView
// are reflect's views of h and out, made once: reflect.NewAt looks the
// slice's pointer type up in a global map at every call, which cost 2 %
// of a LIST's decoding when each slice was copied and cleared that way.
type scratchArray struct {
	h, out        sliceHeader
	view, outView reflect.Value
}

// takeArray returns the decoder's scratch array of slice schema s, zeroed,
// with room for at least n elements, or a new one when the decoder holds
// none (the first decode with this scratch, or an array of the same type
// nested in this one).
//
// Scratch arrays and values belong to the decode's pooled scratch, one
// slot per schema (jsSchema.id), not to the schema: a schema's would be
// taken and given back with an atomic swap and store for every array of
// every object (60 locked instructions a pod, 2 % of a LIST's decode),
// since decoders on other goroutines share the schema.
func (f *fastDec) takeArray(s *jsSchema, n int) *scratchArray {
	if s.id < len(f.arrays) {
		if b := f.arrays[s.id]; b != nil && b.h.cap >= n {
			f.arrays[s.id] = nil
			return b
		}
	}
	b := &scratchArray{}
	b.h.data, b.h.cap = reflect.MakeSlice(s.typ, 0, max(n, 4)).UnsafePointer(), max(n, 4)
	b.view = reflect.NewAt(s.typ, unsafe.Pointer(&b.h)).Elem()
	b.outView = reflect.NewAt(s.typ, unsafe.Pointer(&b.out)).Elem()
	return b
}

// putArray zeroes the elements b holds (so that it keeps nothing alive
// and decodes into zeroed values next time) and makes it the decoder's
// scratch array of s again.
func (f *fastDec) putArray(s *jsSchema, b *scratchArray) {
	b.view.Clear()
	b.h.len = 0
	if b.h.cap > maxScratchElems {
		return
	}
	if s.id >= len(f.arrays) {
		f.arrays = append(f.arrays, make([]*scratchArray, s.id+1-len(f.arrays))...)
	}
	f.arrays[s.id] = b
}

// maxScratchElems bounds the scratch array a schema keeps between
// decodes: a rare long array does not stay pinned.
const maxScratchElems = 64

// newArray returns a zeroed backing array of n elements for a slice of
// schema s. Arrays of up to len(s.arrays) elements — nearly all of an
// object's — are allocated as an array type made once: one allocation,
// where reflect.MakeSlice makes two (the array and a slice header).
func (s *jsSchema) newArray(n int) unsafe.Pointer {
	if n >= len(s.arrays) {
		return reflect.MakeSlice(s.typ, n, n).UnsafePointer()
	}
	t := s.arrays[n].Load()
	if t == nil {
		at := reflect.ArrayOf(n, s.elem.typ)
		t = &at
		s.arrays[n].Store(t)
	}
	return reflect.New(*t).UnsafePointer()
}

// grow doubles the backing array of the slice h (of schema s), keeping
// its elements.
func (s *jsSchema) grow(h *sliceHeader) {
	bigger := reflect.MakeSlice(s.typ, h.len, 2*h.cap)
	reflect.Copy(bigger, reflect.NewAt(s.typ, unsafe.Pointer(h)).Elem())
	h.data, h.cap = bigger.UnsafePointer(), bigger.Cap()
}

// countElements returns how many values the array at d[i] == '[' holds.
func countElements(d []byte, i int) (int, error) {
	n := 0
	for i++; ; n++ {
		if i = jsonx.SkipWS(d, i); i >= len(d) {
			return 0, errSlowPath
		}
		if d[i] == ']' {
			return n, nil
		}
		if n > 0 {
			if d[i] != ',' {
				return 0, errSlowPath
			}
			i++
		}
		end, err := jsonx.SkipValueFast(d, i)
		if err != nil || end <= i {
			return 0, errSlowPath
		}
		i = end
	}
}
