package protocodec

import (
	"fmt"
	"reflect"
	"sync"
)

// Marshal encodes in, a struct of package api or a pointer to one, as its
// protobuf message (no envelope), the way k8s.io/api's generated code
// writes it: fields in ascending number order, every non-pointer field
// written (empty strings, zeros and empty messages included), nil pointers
// and empty slices and maps left out, map entries in key order. For an
// object whose every field kcm models, the bytes are upstream's. Only the
// modelled fields are written: to write back an object read from the
// server, use MarshalMerge.
func Marshal(in any) ([]byte, error) {
	v := reflect.ValueOf(in)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, fmt.Errorf("%w: Marshal of a nil %T", ErrNoProtobuf, in)
		}
		v = v.Elem()
	}
	m, err := messageOf(v.Type())
	if err != nil {
		return nil, err
	}
	scratch := scratchPool.Get().(*[]byte)
	b := appendMessage((*scratch)[:0], m, addressable(v))
	out := append(make([]byte, 0, len(b)), b...)
	if cap(b) <= maxScratch {
		*scratch = b
		scratchPool.Put(scratch)
	}
	return out, nil
}

// scratchPool holds the buffers Marshal encodes into before it copies the
// message out at its size: one allocation per message instead of a
// buffer grown (and moved) step by step.
var scratchPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// maxScratch bounds the buffers kept in scratchPool.
const maxScratch = 1 << 20

// appendMessage appends the fields of the struct v.
func appendMessage(b []byte, m *message, v reflect.Value) []byte {
	for _, f := range m.fields {
		b = appendField(b, f, v)
	}
	return b
}

// appendField appends every occurrence of field f of the struct v.
func appendField(b []byte, f *field, v reflect.Value) []byte {
	fv := v
	if f.idx >= 0 {
		fv = v.Field(f.idx)
	}
	switch f.card {
	case cOne:
		return appendValue(b, f, fv)
	case cPtr:
		if fv.IsNil() {
			return b
		}
		return appendValue(b, f, fv.Elem())
	case cSlice:
		for i := range fv.Len() {
			b = appendValue(b, f, fv.Index(i))
		}
		return b
	}
	return appendMap(b, f, fv)
}

// appendMap appends the entries {1: key, 2: value} of map field fv in key
// order; a nil []byte value is left out, as the generated code does.
func appendMap(b []byte, f *field, fv reflect.Value) []byte {
	if f.kind == kBytes {
		m := *bytesMap(fv)
		for _, k := range sortedKeys(m) {
			b = appendBytesEntry(b, f.num, k, m[k])
		}
		return b
	}
	m := *stringMap(fv)
	for _, k := range sortedKeys(m) {
		b = appendStringEntry(b, f, k, m[k])
	}
	return b
}

// appendStringEntry appends one entry of a map of strings or quantities.
func appendStringEntry(b []byte, f *field, k, v string) []byte {
	b = appendKey(b, f.num, wireBytes)
	b, start := openLen(b)
	b = appendString(b, 1, k)
	if f.kind == kQuantity {
		b = appendQuantity(b, 2, v)
	} else {
		b = appendString(b, 2, v)
	}
	return closeLen(b, start)
}

// appendBytesEntry appends one entry of a map of []byte.
func appendBytesEntry(b []byte, num int32, k string, v []byte) []byte {
	b = appendKey(b, num, wireBytes)
	b, start := openLen(b)
	b = appendString(b, 1, k)
	if v != nil {
		b = appendBytes(b, 2, v)
	}
	return closeLen(b, start)
}

// appendValue appends field f with the value v (a field's value, a
// pointee or an element).
func appendValue(b []byte, f *field, v reflect.Value) []byte {
	switch f.kind {
	case kString:
		return appendString(b, f.num, v.String())
	case kBool:
		x := uint64(0)
		if v.Bool() {
			x = 1
		}
		return appendVarint(appendKey(b, f.num, wireVarint), x)
	case kInt32, kInt64:
		return appendVarint(appendKey(b, f.num, wireVarint), uint64(v.Int()))
	case kBytes:
		return appendBytes(b, f.num, v.Bytes())
	case kQuantity:
		return appendQuantity(b, f.num, v.String())
	case kTime:
		t := timeAt(v)
		b = appendKey(b, f.num, wireBytes)
		if t.IsZero() {
			return append(b, 0)
		}
		b, start := openLen(b)
		b = appendVarint(appendKey(b, 1, wireVarint), uint64(t.Unix()))
		b = appendVarint(appendKey(b, 2, wireVarint), 0)
		return closeLen(b, start)
	case kMicroTime:
		t := microTimeAt(v)
		b = appendKey(b, f.num, wireBytes)
		if t.IsZero() {
			return append(b, 0)
		}
		b, start := openLen(b)
		b = appendVarint(appendKey(b, 1, wireVarint), uint64(t.Unix()))
		b = appendVarint(appendKey(b, 2, wireVarint), uint64(t.Nanosecond()))
		return closeLen(b, start)
	case kIntOrString:
		x := intOrStringAt(v)
		typ, num := uint64(0), uint64(0)
		if x.IsString() {
			typ = 1
		} else {
			num = uint64(int64(x.IntValue()))
		}
		b = appendKey(b, f.num, wireBytes)
		b, start := openLen(b)
		b = appendVarint(appendKey(b, 1, wireVarint), typ)
		b = appendVarint(appendKey(b, 2, wireVarint), num)
		b = appendString(b, 3, x.StrValue())
		return closeLen(b, start)
	case kRawExt:
		raw := rawExtAt(v).Raw
		b = appendKey(b, f.num, wireBytes)
		b, start := openLen(b)
		if raw != nil {
			b = appendBytes(b, 1, raw)
		}
		return closeLen(b, start)
	}
	b = appendKey(b, f.num, wireBytes)
	b, start := openLen(b)
	b = appendMessage(b, f.msg, v)
	return closeLen(b, start)
}

// appendQuantity appends resource.Quantity's message {1: string}; the
// empty string (no quantity) is the empty message, which decodes to
// upstream's zero Quantity.
func appendQuantity(b []byte, num int32, s string) []byte {
	b = appendKey(b, num, wireBytes)
	if s == "" {
		return append(b, 0)
	}
	b, start := openLen(b)
	b = appendString(b, 1, s)
	return closeLen(b, start)
}
