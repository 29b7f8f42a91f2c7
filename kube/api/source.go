package api

import "unsafe"

// source is what an object read from the server remembers of where it
// came from, so that a read-modify-write can give back the fields kcm's
// structs do not model. It has one of three forms:
//
//   - JSON: the object's exact JSON (ptr is its first byte, n its
//     length). RawObjects, and typed objects decoded by Typed, keep this.
//   - compact: the object as Compact decoded it and its remainder — the
//     members of the JSON the struct does not hold (remainder.go). ptr is
//     the object itself, which is immutable (it is the cached object), so
//     a copy of it, shallow or deep, still rebuilds the JSON as read.
//   - family: the object's JSON written against its family's base
//     (family.go). ptr is a *familyDoc, n is familyForm.
//   - none (all zero): an object built in code.
//
// It takes three words, the size of the []byte it replaced, so that no
// object grows: a cache holds millions of them. The pointer is
// unsafe.Pointer because it points to bytes in one form and to an object
// of the decoded type in the other; rem tells them apart.
type source struct {
	ptr unsafe.Pointer
	rem *remainder // non-nil: the compact form
	n   int        // the JSON form: its length
}

// familyForm is n in the family form: no JSON has a negative length.
const familyForm = -1

// emptyJSON is what ptr points to for an empty, non-nil JSON slice:
// unsafe.SliceData does not promise a pointer into an allocation then.
var emptyJSON byte

// jsonSource returns the JSON form of b (none for nil).
func jsonSource(b []byte) source {
	switch {
	case b == nil:
		return source{}
	case len(b) == 0:
		return source{ptr: unsafe.Pointer(&emptyJSON)}
	}
	return source{ptr: unsafe.Pointer(unsafe.SliceData(b)), n: len(b)}
}

// compactSource returns the compact form: obj (the object as decoded,
// which must never change) and its remainder.
func compactSource(obj unsafe.Pointer, rem *remainder) source {
	return source{ptr: obj, rem: rem}
}

// json returns the JSON as read: the bytes kept, or the compact form
// rebuilt; nil when there is no source.
func (s source) json() ([]byte, error) {
	switch {
	case s.rem != nil:
		return s.rem.rebuild(s.ptr)
	case s.ptr == nil:
		return nil, nil
	case s.n == familyForm:
		return (*familyDoc)(s.ptr).json()
	}
	return unsafe.Slice((*byte)(s.ptr), s.n), nil
}

// keeps reports whether s is the JSON form holding b's bytes.
func (s source) keeps(b []byte) bool {
	return s.rem == nil && s.n > 0 && len(b) > 0 && s.ptr == unsafe.Pointer(unsafe.SliceData(b))
}

// compact reports whether s is the compact form.
func (s source) compact() bool { return s.rem != nil }
