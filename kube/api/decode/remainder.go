package decode

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// The remainder: what a typed object does not hold of the JSON it was
// decoded from. A cache of typed objects cannot afford to keep each
// object's JSON next to its struct (it would double the cache), yet a
// read-modify-write must give back every field kcm does not model. The
// remainder is the difference between the JSON as read (o) and the
// struct marshalled again (b): a list of operations that turns b back
// into o.
//
//	["w", key, value]  set member key (or array index) to value: a member
//	                   the struct does not model, a modelled one the
//	                   marshaller leaves out (omitempty and zero), or a
//	                   value the marshaller would spell differently
//	                   (null where the struct writes "", a time with
//	                   fractional seconds, ...)
//	["d", key]         delete member key: the marshaller writes it (a
//	                   field without omitempty) but o did not have it
//	["n", key, ops]    apply ops to the object or array at key (or index)
//
// It is computed by walking o once against the type's schema (schema.go),
// without decoding or marshalling anything, and is usually tiny and the
// same for every object of a workload ("spec.serviceAccount", an empty
// securityContext), so identical remainders are shared (compact.go).
//
// Exactness: rebuilding gives o as parsed JSON — every member, numbers as
// written — with its keys sorted. Modelled scalars are compared by their
// form: strings by being strings (the marshaller may escape differently,
// the parsed value is the same), integers, times and IntOrStrings by
// their canonical spelling (anything else is kept as read). A struct
// member given twice, or a value of the wrong JSON type, is not described
// at all (errNotCompact): the codec then keeps the object's whole JSON.

// errNotCompact: the JSON has something the remainder does not describe
// exactly (a modelled key given twice, a value of the wrong JSON type).
var errNotCompact = errors.New("cannot describe the object by a remainder")

// remScan computes the remainder of one object: d is its JSON, out the
// operations written so far.
type remScan struct {
	d   []byte
	out []byte
}

// ops appends the operations of the whole object d against s (a struct
// schema), as a JSON array, and returns how many there are.
func (r *remScan) object(s *jsSchema) (int, error) {
	if !utf8.Valid(r.d) {
		return 0, errNotCompact // the marshaller writes invalid UTF-8 as U+FFFD
	}
	i := jsonx.SkipWS(r.d, 0)
	if i >= len(r.d) || r.d[i] != '{' {
		return 0, errNotCompact
	}
	r.out = append(r.out, '[')
	end, n, err := r.structNode(i, s)
	if err != nil {
		return 0, err
	}
	if jsonx.SkipWS(r.d, end) != len(r.d) {
		return 0, errNotCompact
	}
	r.out = append(r.out, ']')
	return n, nil
}

// structNode appends the operations of the object at d[i] == '{' against
// struct schema s; it returns the index after the object and how many
// operations it appended.
func (r *remScan) structNode(i int, s *jsSchema) (int, int, error) {
	d := r.d
	var seen [maxSchemaFields / 64]uint64
	nops, members := 0, 0
	for i++; ; members++ {
		i = jsonx.SkipWS(d, i)
		if i >= len(d) {
			return 0, 0, jsonx.ErrIncomplete
		}
		if d[i] == '}' {
			break
		}
		if members > 0 {
			if d[i] != ',' {
				return 0, 0, errNotCompact
			}
			i = jsonx.SkipWS(d, i+1)
		}
		ks, ke, vs, err := r.key(i)
		if err != nil {
			return 0, 0, err
		}
		f := s.fields[string(d[ks+1:ke-1])]
		if f == nil { // a member the struct does not model
			if bytes.IndexByte(d[ks+1:ke-1], '\\') >= 0 {
				// An escaped key may spell a modelled one, which the
				// decoder (matching raw bytes) did not see: too subtle.
				return 0, 0, errNotCompact
			}
			ve, err := jsonx.SkipValueFast(d, vs)
			if err != nil {
				return 0, 0, err
			}
			r.set(&nops, d[ks:ke], d[vs:ve])
			i = ve
			continue
		}
		if seen[f.idx/64]&(1<<(f.idx%64)) != 0 {
			return 0, 0, errNotCompact // json-iterator merges repeated keys its own way
		}
		seen[f.idx/64] |= 1 << (f.idx % 64)
		if f.omitZero {
			if ve, zero := zeroAt(d, vs, f.s); zero {
				r.set(&nops, d[ks:ke], d[vs:ve]) // the marshaller leaves it out
				i = ve
				continue
			}
		}
		if i, err = r.value(&nops, d[ks:ke], vs, f.s); err != nil {
			return 0, 0, err
		}
	}
	for _, f := range s.emitted {
		if seen[f.idx/64]&(1<<(f.idx%64)) == 0 {
			r.sep(&nops)
			r.out = append(r.out, `["d",`...)
			r.out = strconv.AppendQuote(r.out, f.key)
			r.out = append(r.out, ']')
		}
	}
	return i + 1, nops, nil
}

// key reads the key of the member at d[i]: the key's span with its
// quotes [ks, ke) and where the value starts.
func (r *remScan) key(i int) (ks, ke, vs int, err error) {
	d := r.d
	if d[i] != '"' {
		return 0, 0, 0, errNotCompact
	}
	if ke, err = jsonx.SkipStringFast(d, i); err != nil {
		return 0, 0, 0, err
	}
	j := jsonx.SkipWS(d, ke)
	if j >= len(d) || d[j] != ':' {
		return 0, 0, 0, errNotCompact
	}
	vs = jsonx.SkipWS(d, j+1)
	if vs >= len(d) {
		return 0, 0, 0, jsonx.ErrIncomplete
	}
	return i, ke, vs, nil
}

// value appends the operations for the value at d[vs] of schema s, found
// under key (a quoted member key, or an array index): none when the
// marshaller writes it back alike, a "w" when it would not, an "n" with
// the operations inside. It returns the index after the value.
func (r *remScan) value(nops *int, key []byte, vs int, s *jsSchema) (int, error) {
	d := r.d
	for s.kind == jsPtr {
		if isNull(d, vs) {
			return vs + 4, nil // nil: written as null (or left out, seen by the caller)
		}
		s = s.elem
	}
	var open byte
	switch s.kind {
	case jsStruct:
		open = '{'
		if isNull(d, vs) { // a zero struct is written as an object
			r.set(nops, key, d[vs:vs+4])
			return vs + 4, nil
		}
	case jsSlice:
		open = '['
	case jsMap:
		open = '{'
	default:
		ve, err := skipScalar(d, vs)
		if err != nil {
			return 0, err
		}
		if !canonical(d[vs:ve], s.kind) {
			r.set(nops, key, d[vs:ve])
		}
		return ve, nil
	}
	if isNull(d, vs) {
		return vs + 4, nil // a nil slice or map: written as null
	}
	if d[vs] != open {
		return 0, errNotCompact
	}
	start := len(r.out)
	r.sep(nops)
	r.out = append(r.out, `["n",`...)
	r.out = append(r.out, key...)
	r.out = append(r.out, ",["...)
	var end, n int
	var err error
	switch s.kind {
	case jsStruct:
		end, n, err = r.structNode(vs, s)
	case jsSlice:
		end, n, err = r.elements(vs, s.elem)
	default:
		end, n, err = r.mapValues(vs, s.elem)
	}
	if err != nil {
		return 0, err
	}
	if n == 0 { // nothing inside: no operation
		r.out = r.out[:start]
		*nops--
		return end, nil
	}
	r.out = append(r.out, "]]"...)
	return end, nil
}

// skipScalar returns the index after the string, number, true, false or
// null at d[i] (or the container, for an opaque value).
func skipScalar(d []byte, i int) (int, error) {
	switch d[i] {
	case '"':
		for j := i + 1; j < len(d); j++ {
			switch d[j] {
			case '\\':
				j++
			case '"':
				return j + 1, nil
			}
		}
		return 0, jsonx.ErrIncomplete
	case '{', '[':
		return jsonx.SkipValueFast(d, i)
	}
	for j := i; j < len(d); j++ {
		switch d[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j, nil
		}
	}
	return len(d), nil
}

// elements appends the operations of the array at d[i] == '[' whose
// elements have schema s, keyed by index.
func (r *remScan) elements(i int, s *jsSchema) (int, int, error) {
	d := r.d
	nops := 0
	var idx []byte
	for n := 0; ; n++ {
		i = jsonx.SkipWS(d, i+1)
		if i >= len(d) {
			return 0, 0, jsonx.ErrIncomplete
		}
		if d[i] == ']' {
			return i + 1, nops, nil
		}
		if n > 0 {
			if d[i] != ',' {
				return 0, 0, errNotCompact
			}
			i = jsonx.SkipWS(d, i+1)
		}
		idx = strconv.AppendInt(idx[:0], int64(n), 10)
		end, err := r.value(&nops, idx, i, s)
		if err != nil {
			return 0, 0, err
		}
		i = end - 1 // the loop steps over the byte before the separator
	}
}

// mapValues appends the operations of the object at d[i] == '{' read as
// a map whose values have schema s, keyed by the map's keys. A map that
// needs operations and has a key twice, or an escaped key, is not
// described (the operations would apply to the wrong value).
func (r *remScan) mapValues(i int, s *jsSchema) (int, int, error) {
	d := r.d
	nops := 0
	from := i
	for n := 0; ; n++ {
		i = jsonx.SkipWS(d, i+1)
		if i >= len(d) {
			return 0, 0, jsonx.ErrIncomplete
		}
		if d[i] == '}' {
			if nops > 0 && !plainDistinctKeys(d, from) {
				return 0, 0, errNotCompact
			}
			return i + 1, nops, nil
		}
		if n > 0 {
			if d[i] != ',' {
				return 0, 0, errNotCompact
			}
			i = jsonx.SkipWS(d, i+1)
		}
		ks, ke, vs, err := r.key(i)
		if err != nil {
			return 0, 0, err
		}
		end, err := r.value(&nops, d[ks:ke], vs, s)
		if err != nil {
			return 0, 0, err
		}
		i = end - 1
	}
}

// plainDistinctKeys reports whether the object at d[i] has no escaped
// key and no key twice.
func plainDistinctKeys(d []byte, i int) bool {
	members, err := jsonx.Members(d, i)
	if err != nil {
		return false
	}
	seen := make(map[string]bool, len(members))
	for _, m := range members {
		k := string(d[m.KeyStart:m.KeyEnd])
		if seen[k] || strings.IndexByte(k, '\\') >= 0 {
			return false
		}
		seen[k] = true
	}
	return true
}
