package protocodec

import (
	"bytes"
	"fmt"
	"maps"
	"reflect"

	"github.com/kcmlab/kcm/kube/api"
)

// MarshalMerge is the three-way merge behind a read-modify-write in
// protobuf, as kube/rest's mergeKnown is for JSON:
//
//	orig   the object's message as read from the server (every field)
//	before Unmarshal(orig): what kcm's struct models of it
//	after  the object as the caller modified it (same type as before)
//
// The result is orig with exactly the caller's changes: a field the
// caller did not change keeps orig's bytes, a field the struct does not
// model keeps orig's bytes in its place, at every depth; a changed
// message field is merged recursively, so the unmodelled fields inside it
// stay; a repeated message whose length changed in neither before, after
// nor orig is merged element by element (one whose length changed is
// written from after alone, as the JSON merge does); a changed map keeps
// orig's bytes for the entries that did not change. A changed field is
// written where orig had it first (later occurrences dropped), or, when
// orig did not have it, before orig's first field with a higher number.
// Hence MarshalMerge(orig, before, before) is orig, byte for byte.
//
// "Changed" is judged on the encoding: two times in the same second are
// the same api.Time. A malformed orig is an error wrapping api.ErrDecode.
func MarshalMerge(orig []byte, before, after any) ([]byte, error) {
	bv, av := reflect.ValueOf(before), reflect.ValueOf(after)
	if bv.Type() != av.Type() {
		return nil, fmt.Errorf("%w: MarshalMerge of a %T onto a %T", ErrNoProtobuf, after, before)
	}
	if bv.Kind() == reflect.Pointer {
		if bv.IsNil() || av.IsNil() {
			return nil, fmt.Errorf("%w: MarshalMerge of a nil %T", ErrNoProtobuf, after)
		}
		bv, av = bv.Elem(), av.Elem()
	}
	m, err := messageOf(bv.Type())
	if err != nil {
		return nil, err
	}
	out, err := mergeMessage(make([]byte, 0, len(orig)+64), orig, m, addressable(bv), addressable(av))
	if err != nil {
		return nil, fmt.Errorf("%w: protobuf %v: %w", api.ErrDecode, m.typ, err)
	}
	return out, nil
}

// span is one field of a message as read: its number, where its key
// starts, where its value starts and where it ends.
type span struct {
	num             int32
	wt              int
	start, val, end int
}

// scan lists the fields of message b.
func scan(b []byte) ([]span, error) {
	var out []span
	off := 0
	for off < len(b) {
		num, wt, n, err := readKey(b[off:])
		if err != nil {
			return nil, err
		}
		s := span{num: num, wt: wt, start: off, val: off + n}
		n, err = skipValue(b[s.val:], num, wt, 0)
		if err != nil {
			return nil, fmt.Errorf("field %d: %w", num, err)
		}
		s.end = s.val + n
		out = append(out, s)
		off = s.end
	}
	return out, nil
}

// payload returns the bytes of a length-delimited span's value.
func payload(b []byte, s span) ([]byte, error) {
	if s.wt != wireBytes {
		return nil, fmt.Errorf("%w: field %d: %d, want %d", errWireType, s.num, s.wt, wireBytes)
	}
	p, _, err := readBytes(b[s.val:s.end])
	return p, err
}

// mergeMessage appends the merge of the struct values bv (before) and av
// (after) onto orig, a message of m.
func mergeMessage(out, orig []byte, m *message, bv, av reflect.Value) ([]byte, error) {
	if equalMessage(m, bv, av) {
		return append(out, orig...), nil
	}
	spans, err := scan(orig)
	if err != nil {
		return nil, err
	}
	// The fields that changed, and their occurrences in orig.
	changed := make([]bool, len(m.fields))
	occ := make([][]span, len(m.fields))
	for i, f := range m.fields {
		changed[i] = !equalField(f, bv, av)
	}
	for _, s := range spans {
		if f := m.lookup(s.num); f != nil {
			occ[f.pos] = append(occ[f.pos], s)
		}
	}
	// insert appends the changed fields orig lacks numbered below the
	// field about to be copied (all of them at the end).
	next := 0
	insert := func(below int32, all bool) {
		for ; next < len(m.fields) && (all || m.fields[next].num < below); next++ {
			if changed[next] && len(occ[next]) == 0 {
				out = appendField(out, m.fields[next], av)
			}
		}
	}
	done := make([]bool, len(m.fields))
	for _, s := range spans {
		insert(s.num, false)
		f := m.lookup(s.num)
		if f == nil || !changed[f.pos] {
			out = append(out, orig[s.start:s.end]...)
			continue
		}
		if done[f.pos] {
			continue
		}
		done[f.pos] = true
		if out, err = mergeField(out, orig, occ[f.pos], f, bv, av); err != nil {
			return nil, fieldError(m, f, err)
		}
	}
	insert(0, true)
	return out, nil
}

// mergeField appends changed field f, which orig holds at occ.
func mergeField(out, orig []byte, occ []span, f *field, bv, av reflect.Value) ([]byte, error) {
	bf, af := bv, av
	if f.idx >= 0 {
		bf, af = bv.Field(f.idx), av.Field(f.idx)
	}
	if f.kind != kMessage && f.card != cMap {
		return appendField(out, f, av), nil
	}
	switch f.card {
	case cOne, cPtr:
		if f.card == cPtr {
			if af.IsNil() {
				return out, nil
			}
			if bf.IsNil() {
				return appendField(out, f, av), nil
			}
			bf, af = bf.Elem(), af.Elem()
		}
		// A message given several times is their concatenation.
		var sub []byte
		for _, s := range occ {
			p, err := payload(orig, s)
			if err != nil {
				return nil, err
			}
			if len(occ) == 1 {
				sub = p
			} else {
				sub = append(sub, p...)
			}
		}
		out = appendKey(out, f.num, wireBytes)
		out, start := openLen(out)
		out, err := mergeMessage(out, sub, f.msg, bf, af)
		if err != nil {
			return nil, err
		}
		return closeLen(out, start), nil
	case cSlice:
		if bf.Len() != af.Len() || len(occ) != af.Len() {
			return appendField(out, f, av), nil
		}
		for i, s := range occ {
			p, err := payload(orig, s)
			if err != nil {
				return nil, err
			}
			out = appendKey(out, f.num, wireBytes)
			var start int
			out, start = openLen(out)
			if out, err = mergeMessage(out, p, f.msg, bf.Index(i), af.Index(i)); err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out = closeLen(out, start)
		}
		return out, nil
	}
	return mergeMap(out, orig, occ, f, bf, af)
}

// mergeMap appends the entries of the changed map field f in key order:
// orig's bytes for an entry before and after agree on, a new encoding for
// the others.
func mergeMap(out, orig []byte, occ []span, f *field, bf, af reflect.Value) ([]byte, error) {
	entries := make(map[string][]byte, len(occ)) // key → the whole field as in orig
	for _, s := range occ {
		p, err := payload(orig, s)
		if err != nil {
			return nil, err
		}
		key, err := entryKey(p)
		if err != nil {
			return nil, err
		}
		entries[key] = orig[s.start:s.end]
	}
	if f.kind == kBytes {
		bm, am := *bytesMap(bf), *bytesMap(af)
		for _, k := range sortedKeys(am) {
			a := am[k]
			if old, ok := entries[k]; ok {
				if b, ok := bm[k]; ok && (a == nil) == (b == nil) && bytes.Equal(a, b) {
					out = append(out, old...)
					continue
				}
			}
			out = appendBytesEntry(out, f.num, k, a)
		}
		return out, nil
	}
	bm, am := *stringMap(bf), *stringMap(af)
	for _, k := range sortedKeys(am) {
		a := am[k]
		if old, ok := entries[k]; ok {
			if b, ok := bm[k]; ok && a == b {
				out = append(out, old...)
				continue
			}
		}
		out = appendStringEntry(out, f, k, a)
	}
	return out, nil
}

// entryKey reads the key of a map entry (the last one given).
func entryKey(p []byte) (string, error) {
	var key string
	err := decodeSmall(p, func(num int32, wt int, _ uint64, b []byte) error {
		if num == 1 {
			if err := want(num, wt, wireBytes); err != nil {
				return err
			}
			key = string(b)
		}
		return nil
	})
	return key, err
}

// equalMessage reports whether the modelled fields of structs a and b
// encode alike.
func equalMessage(m *message, a, b reflect.Value) bool {
	for _, f := range m.fields {
		if !equalField(f, a, b) {
			return false
		}
	}
	return true
}

// equalField compares field f of structs a and b.
func equalField(f *field, a, b reflect.Value) bool {
	if f.idx >= 0 {
		a, b = a.Field(f.idx), b.Field(f.idx)
	}
	switch f.card {
	case cOne:
		return equalValue(f, a, b)
	case cPtr:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return a.Pointer() == b.Pointer() || equalValue(f, a.Elem(), b.Elem())
	case cSlice:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !equalValue(f, a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	}
	if f.kind == kBytes {
		x, y := *bytesMap(a), *bytesMap(b)
		if len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || (v == nil) != (w == nil) || !bytes.Equal(v, w) {
				return false
			}
		}
		return true
	}
	return maps.Equal(*stringMap(a), *stringMap(b))
}

// equalValue compares two values of f's kind by their encoding.
func equalValue(f *field, a, b reflect.Value) bool {
	switch f.kind {
	case kString, kQuantity:
		return a.String() == b.String()
	case kBool:
		return a.Bool() == b.Bool()
	case kInt32, kInt64:
		return a.Int() == b.Int()
	case kBytes:
		return a.IsNil() == b.IsNil() && bytes.Equal(a.Bytes(), b.Bytes())
	case kTime:
		x, y := timeAt(a), timeAt(b)
		return x.IsZero() == y.IsZero() && x.Unix() == y.Unix()
	case kMicroTime:
		x, y := microTimeAt(a), microTimeAt(b)
		return x.IsZero() == y.IsZero() && x.Unix() == y.Unix() && x.Nanosecond() == y.Nanosecond()
	case kIntOrString:
		return *intOrStringAt(a) == *intOrStringAt(b)
	case kRawExt:
		x, y := rawExtAt(a).Raw, rawExtAt(b).Raw
		return (x == nil) == (y == nil) && bytes.Equal(x, y)
	}
	return equalMessage(f.msg, a, b)
}
