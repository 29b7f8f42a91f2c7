package decode

import (
	"encoding/json"
	"errors"
	"reflect"
	"unicode/utf8"
	"unsafe"

	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// The fast path of the Compact codec: one pass over the JSON that decodes
// the object, shares its parts and writes its remainder together. It
// reads a value's bytes once where the slow path (json-iterator, then the
// remainder's scan, then the sharing walk) reads them three times, and a
// string equal to the one at the same place in the previous object (the
// hint) is taken from it without being allocated. A map equal to the
// hint's is not even built.
//
// It handles the JSON the apiserver writes — strings, canonical
// integers, times in their canonical form, objects and arrays of the
// modelled types — and stops with errSlowPath at anything else (a
// duplicate key, an escaped key, a number spelt otherwise, a kind of
// value it does not decode, malformed bytes): the codec then decodes
// the object the slow way, whose results and errors are json-iterator's.
// So the fast path never decides what is valid; it only declines.

// errSlowPath: the fast decoder leaves this object to the slow path.
var errSlowPath = errors.New("left to the slow path")

// fastDec decodes one object; remScan holds the bytes and writes the
// remainder's operations.
type fastDec struct {
	remScan
	pairs []span // a map's members: key and value spans
	// rehint, when set, gives the hint of the top-level object's members
	// after meta, its metadata field, from the decoded object (see
	// CompactCached).
	meta   *jsField
	rehint func(obj unsafe.Pointer) unsafe.Pointer
	// word is where a pointed-to integer or bool is decoded before it is
	// known to need a target of its own (see ptrInto): the scratch's, so
	// that taking its address does not move the decoder to the heap.
	word *uint64
	// arrays and values are the scratch arrays and values, by schema id
	// (see takeArray); they come with the decode's pooled scratch.
	arrays []*scratchArray
	values []*scratchValue
}

// object decodes d into p, a zeroed value of struct schema s, sharing
// with hint (the previous object, or nil); it returns how many remainder
// operations it wrote (as a JSON array in r.out).
func (f *fastDec) object(s *jsSchema, p, hint unsafe.Pointer) (int, error) {
	d := f.d
	if !utf8.Valid(d) {
		return 0, errSlowPath
	}
	i := jsonx.SkipWS(d, 0)
	if i >= len(d) || d[i] != '{' {
		return 0, errSlowPath
	}
	f.out = append(f.out, '[')
	end, n, err := f.structInto(i, s, p, hint)
	if err != nil {
		return 0, err
	}
	if jsonx.SkipWS(d, end) != len(d) {
		return 0, errSlowPath
	}
	f.out = append(f.out, ']')
	return n, nil
}

// structInto decodes the object at d[i] == '{' into p (struct schema s).
func (f *fastDec) structInto(i int, s *jsSchema, p, hint unsafe.Pointer) (end, nops int, err error) {
	d := f.d
	var seen [maxSchemaFields / 64]uint64
	var prev *jsField
	for i, members := i+1, 0; ; members++ {
		if i = jsonx.SkipWS(d, i); i >= len(d) {
			return 0, 0, errSlowPath
		}
		if d[i] == '}' {
			end = i + 1
			break
		}
		if members > 0 {
			if d[i] != ',' {
				return 0, 0, errSlowPath
			}
			if i = jsonx.SkipWS(d, i+1); i >= len(d) {
				return 0, 0, errSlowPath
			}
		}
		ks, ke, vs, fl, err := f.memberKey(i, s, prev)
		if err != nil {
			return 0, 0, err
		}
		if fl == nil {
			ve, err := validValue(d, vs)
			if err != nil {
				return 0, 0, err
			}
			f.set(&nops, d[ks:ke], d[vs:ve]) // a member the struct does not model
			i = ve
			continue
		}
		prev = fl
		if seen[fl.idx/64]&(1<<(fl.idx%64)) != 0 {
			return 0, 0, errSlowPath
		}
		seen[fl.idx/64] |= 1 << (fl.idx % 64)
		fp := unsafe.Add(p, fl.off)
		var fh unsafe.Pointer
		if hint != nil {
			fh = unsafe.Add(hint, fl.off)
		}
		if fl.omitZero {
			if ve, zero := zeroAt(d, vs, fl.s); zero {
				if d[vs] != 'n' { // [] and {} decode to empty, not nil
					emptyInto(fl.s, fp)
				}
				f.set(&nops, d[ks:ke], d[vs:ve]) // the marshaller leaves it out
				i = ve
				continue
			}
		}
		if i, err = f.valueInto(&nops, d[ks:ke], -1, vs, fl.s, fp, fh, fl); err != nil {
			return 0, 0, err
		}
		if fl == f.meta && f.rehint != nil {
			if h := f.rehint(p); h != nil {
				hint = h
			}
		}
	}
	for _, fl := range s.emitted {
		if seen[fl.idx/64]&(1<<(fl.idx%64)) == 0 {
			f.del(&nops, fl.key)
		}
	}
	return end, nops, nil
}

// memberKey reads the key of the member at d[i] of an object of struct
// schema s, whose previous member was field prev (nil: none): its span
// with quotes [ks, ke), where the value starts, and the field it names
// (nil: one the struct does not model). The key the guess expects is
// compared in place, without scanning it byte by byte first.
func (f *fastDec) memberKey(i int, s *jsSchema, prev *jsField) (ks, ke, vs int, fl *jsField, err error) {
	d := f.d
	next := &s.first
	if prev != nil {
		next = &prev.next
	}
	if g := next.Load(); g != nil && g.bare && d[i] == '"' {
		if j := i + 1 + len(g.key); j < len(d) && d[j] == '"' && string(d[i+1:j]) == g.key {
			c := j + 1
			if c < len(d) && d[c] == ':' {
				c++
			} else if c = jsonx.SkipWS(d, c); c >= len(d) || d[c] != ':' {
				return 0, 0, 0, nil, errSlowPath
			} else {
				c++
			}
			if vs = c; vs < len(d) && d[vs] > ' ' {
				return i, j + 1, vs, g, nil
			}
			if vs = jsonx.SkipWS(d, vs); vs >= len(d) {
				return 0, 0, 0, nil, errSlowPath
			}
			return i, j + 1, vs, g, nil
		}
	}
	if ks, ke, vs, err = f.plainKey(i); err != nil {
		return 0, 0, 0, nil, err
	}
	return ks, ke, vs, s.guess(prev, d[ks+1:ke-1]), nil
}

// guess returns the field of key: the one that followed prev last time
// (the first one, for prev nil) when it matches, else the one the map
// names, which becomes the guess.
func (s *jsSchema) guess(prev *jsField, key []byte) *jsField {
	next := &s.first
	if prev != nil {
		next = &prev.next
	}
	if g := next.Load(); g != nil && g.key == string(key) {
		return g
	}
	fl := s.fields[string(key)]
	if fl != nil {
		next.Store(fl)
	}
	return fl
}

// plainKey reads the key of the member at d[i]: its span with quotes
// [ks, ke) and where the value starts. A key with an escape is left to
// the slow path.
func (f *fastDec) plainKey(i int) (ks, ke, vs int, err error) {
	d := f.d
	if d[i] != '"' {
		return 0, 0, 0, errSlowPath
	}
	j, escaped, ok := jsonx.StringEnd(d, i)
	if !ok || escaped {
		return 0, 0, 0, errSlowPath
	}
	c := jsonx.SkipWS(d, j+1)
	if c >= len(d) || d[c] != ':' {
		return 0, 0, 0, errSlowPath
	}
	vs = jsonx.SkipWS(d, c+1)
	if vs >= len(d) {
		return 0, 0, 0, errSlowPath
	}
	return i, j + 1, vs, nil
}

// validValue returns the end of the value at d[i], which must be valid
// JSON (it is copied into the remainder as it is).
func validValue(d []byte, i int) (int, error) {
	end, err := jsonx.SkipValueFast(d, i)
	if err != nil || end <= i || !json.Valid(d[i:end]) {
		return 0, errSlowPath
	}
	return end, nil
}

// literal reports whether d[i:] starts with lit followed by the end of
// the value.
func literal(d []byte, i int, lit string) bool {
	j := i + len(lit)
	if j > len(d) || string(d[i:j]) != lit {
		return false
	}
	return j == len(d) || isDelim(d[j])
}

// isDelim reports whether c may follow a scalar.
func isDelim(c byte) bool {
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// emptyArray backs the empty, non-nil slices the decoder makes.
var emptyArray [0]uint64

// emptyInto sets the slice or map at p to an empty, non-nil one, as
// json-iterator decodes [] and {}.
func emptyInto(s *jsSchema, p unsafe.Pointer) {
	switch s.kind {
	case jsSlice:
		*(*sliceHeader)(p) = sliceHeader{data: unsafe.Pointer(&emptyArray)}
	case jsMap:
		reflect.NewAt(s.typ, p).Elem().Set(reflect.MakeMap(s.typ))
	}
}

// valueInto decodes the value at d[vs] (schema s) into p, sharing with
// hint, and writes its remainder operations under key (a quoted member
// key, or when key is nil the array index idx). fl is the struct field
// the value is, if any. It returns the index after the value.
func (f *fastDec) valueInto(nops *int, key []byte, idx, vs int, s *jsSchema, p, hint unsafe.Pointer, fl *jsField) (int, error) {
	d := f.d
	null := literal(d, vs, "null")
	switch s.kind {
	case jsString:
		if null {
			f.setAt(nops, key, idx, d[vs:vs+4]) // written as ""
			return vs + 4, nil
		}
		return f.stringInto(vs, p, hint, fl)
	case jsInt:
		if null {
			f.setAt(nops, key, idx, d[vs:vs+4])
			return vs + 4, nil
		}
		return intInto(d, vs, s, p)
	case jsBool:
		switch {
		case null:
			f.setAt(nops, key, idx, d[vs:vs+4])
			return vs + 4, nil
		case literal(d, vs, "true"):
			*(*bool)(p) = true
			return vs + 4, nil
		case literal(d, vs, "false"):
			return vs + 5, nil
		}
		return 0, errSlowPath
	case jsTime, jsMicroTime:
		return f.timeInto(nops, key, idx, vs, s.kind == jsMicroTime, p)
	case jsIntOrString:
		return f.intOrStringInto(nops, key, idx, vs, p)
	case jsPtr:
		if null {
			return vs + 4, nil
		}
		return f.ptrInto(nops, key, idx, vs, s, p, hint, fl)
	case jsStruct:
		switch {
		case null: // a zero struct is written as an object
			f.setAt(nops, key, idx, d[vs:vs+4])
			return vs + 4, nil
		case d[vs] != '{':
			return 0, errSlowPath
		}
		start := f.open(nops, key, idx)
		end, n, err := f.structInto(vs, s, p, hint)
		f.close(nops, start, n)
		return end, err
	case jsSlice:
		if null {
			return vs + 4, nil
		}
		return f.sliceInto(nops, key, idx, vs, s, p, hint, fl)
	case jsMap:
		if null {
			return vs + 4, nil
		}
		if s.elem.kind != jsString {
			return 0, errSlowPath
		}
		return f.stringMapInto(vs, s, p, hint)
	}
	return 0, errSlowPath // []byte, floats, interfaces: json-iterator's
}
