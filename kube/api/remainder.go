package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

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

// sep counts one more operation, writing the comma before it.
func (r *remScan) sep(nops *int) {
	if *nops > 0 {
		r.out = append(r.out, ',')
	}
	*nops++
}

// setAt appends ["w",key,value], or ["w",idx,value] when key is nil.
func (r *remScan) setAt(nops *int, key []byte, idx int, value []byte) {
	if key != nil {
		r.set(nops, key, value)
		return
	}
	r.sep(nops)
	r.out = append(r.out, `["w",`...)
	r.out = strconv.AppendInt(r.out, int64(idx), 10)
	r.out = append(r.out, ',')
	r.out = append(r.out, value...)
	r.out = append(r.out, ']')
}

// open starts ["n",key,[ (or ["n",idx,[ when key is nil) and returns
// where it started, for close.
func (r *remScan) open(nops *int, key []byte, idx int) int {
	start := len(r.out)
	r.sep(nops)
	r.out = append(r.out, `["n",`...)
	if key != nil {
		r.out = append(r.out, key...)
	} else {
		r.out = strconv.AppendInt(r.out, int64(idx), 10)
	}
	r.out = append(r.out, ",["...)
	return start
}

// close ends what open started, with n operations inside: none removes
// it.
func (r *remScan) close(nops *int, start, n int) {
	if n == 0 {
		r.out = r.out[:start]
		*nops--
		return
	}
	r.out = append(r.out, "]]"...)
}

// del appends ["d",key].
func (r *remScan) del(nops *int, key string) {
	r.sep(nops)
	r.out = append(r.out, `["d",`...)
	r.out = strconv.AppendQuote(r.out, key)
	r.out = append(r.out, ']')
}

// set appends ["w",key,value].
func (r *remScan) set(nops *int, key, value []byte) {
	r.sep(nops)
	r.out = append(r.out, `["w",`...)
	r.out = append(r.out, key...)
	r.out = append(r.out, ',')
	r.out = append(r.out, value...)
	r.out = append(r.out, ']')
}

// isNull reports whether the value at d[i] is null.
func isNull(d []byte, i int) bool {
	return len(d)-i >= 4 && d[i] == 'n' && d[i+1] == 'u' && d[i+2] == 'l' && d[i+3] == 'l'
}

// zeroAt reports whether the value at d[i] decodes to the zero value of a
// field of schema s that the marshaller leaves out when zero, and where
// it ends.
func zeroAt(d []byte, i int, s *jsSchema) (int, bool) {
	if isNull(d, i) {
		return i + 4, true
	}
	empty := func(open, close byte) (int, bool) {
		if d[i] != open {
			return 0, false
		}
		j := jsonx.SkipWS(d, i+1)
		return j + 1, j < len(d) && d[j] == close
	}
	switch s.kind {
	case jsString, jsBytes:
		return i + 2, len(d)-i >= 2 && d[i] == '"' && d[i+1] == '"'
	case jsInt:
		end, err := jsonx.SkipValue(d, i)
		return end, err == nil && string(d[i:end]) == "0"
	case jsBool:
		return i + 5, len(d)-i >= 5 && string(d[i:i+5]) == "false"
	case jsSlice:
		return empty('[', ']')
	case jsMap:
		return empty('{', '}')
	}
	return 0, false
}

// canonical reports whether the marshaller writes the scalar v, decoded
// into a value of kind k, back as v (or as the same parsed value).
func canonical(v []byte, k jsKind) bool {
	switch k {
	case jsString:
		return v[0] == '"'
	case jsBytes:
		// base64 that decodes alike but is spelt differently (escapes,
		// line breaks) would come back in the standard spelling.
		return v[0] == '"' && bytes.IndexByte(v, '\\') < 0
	case jsInt:
		return canonicalInt(v)
	case jsBool:
		return string(v) == "true" || string(v) == "false"
	case jsTime:
		// The zero instant is written as null.
		return string(v) == "null" || (timeForm(v, false) && string(v) != `"0001-01-01T00:00:00Z"`)
	case jsMicroTime:
		return string(v) == "null" || (timeForm(v, true) && string(v) != `"0001-01-01T00:00:00.000000Z"`)
	case jsIntOrString:
		return v[0] == '"' || canonicalInt(v)
	}
	return false // opaque: kept as read
}

// canonicalInt reports whether v is an integer as strconv writes it.
func canonicalInt(v []byte) bool {
	if len(v) > 0 && v[0] == '-' {
		v = v[1:]
		if len(v) == 1 && v[0] == '0' {
			return false // -0 is written 0
		}
	}
	if len(v) == 0 || (v[0] == '0' && len(v) > 1) {
		return false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// timeForm reports whether v is "YYYY-MM-DDTHH:MM:SSZ" (or, micro, with
// six fractional digits): the only form Time and MicroTime write.
func timeForm(v []byte, micro bool) bool {
	const layout = `"dddd-dd-ddTdd:dd:ddZ"`
	const microLayout = `"dddd-dd-ddTdd:dd:dd.ddddddZ"`
	l := layout
	if micro {
		l = microLayout
	}
	if len(v) != len(l) {
		return false
	}
	for i := range len(l) {
		if l[i] == 'd' {
			if v[i] < '0' || v[i] > '9' {
				return false
			}
		} else if v[i] != l[i] {
			return false
		}
	}
	return true
}

// remainder is the part of an object's JSON its typed struct does not
// hold (ops, the operations above; empty for none) and how to marshal the
// struct (t). Objects with identical remainders share one; it is never
// modified.
type remainder struct {
	ops []byte
	t   *compactType
}

// rebuild returns the JSON of obj (an object of r.t's type, as decoded)
// with the remainder applied: the JSON it was decoded from.
func (r *remainder) rebuild(obj unsafe.Pointer) ([]byte, error) {
	b, err := r.t.marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("rebuilding the JSON of a %s: %w", r.t.name, err)
	}
	if len(r.ops) == 0 {
		return b, nil
	}
	var doc any
	if err := jsonx.UnmarshalNumbers(b, &doc); err != nil {
		return nil, fmt.Errorf("rebuilding the JSON of a %s: %w", r.t.name, err)
	}
	var ops []any
	if err := jsonx.UnmarshalNumbers(r.ops, &ops); err != nil {
		return nil, fmt.Errorf("rebuilding the JSON of a %s: remainder: %w", r.t.name, err)
	}
	if err := applyOps(doc, ops); err != nil {
		return nil, fmt.Errorf("rebuilding the JSON of a %s: %w", r.t.name, err)
	}
	return jsonx.Marshal(doc)
}

// errRemainder: a remainder's operations do not fit the marshalled
// object (a bug, or an object modified in place).
var errRemainder = errors.New("remainder does not fit the object")

// applyOps applies remainder operations to doc, an object or array
// decoded from JSON.
func applyOps(doc any, ops []any) error {
	for _, o := range ops {
		op, _ := o.([]any)
		if len(op) < 2 {
			return errRemainder
		}
		kind, _ := op[0].(string)
		switch target := doc.(type) {
		case map[string]any:
			key, ok := op[1].(string)
			if !ok {
				return errRemainder
			}
			switch {
			case kind == "w" && len(op) == 3:
				target[key] = op[2]
			case kind == "d":
				delete(target, key)
			case kind == "n" && len(op) == 3:
				if err := applyNested(target[key], op[2]); err != nil {
					return err
				}
			default:
				return errRemainder
			}
		case []any:
			n, ok := op[1].(json.Number)
			idx, err := n.Int64()
			if !ok || err != nil || idx < 0 || int(idx) >= len(target) || len(op) != 3 {
				return errRemainder
			}
			switch kind {
			case "w":
				target[idx] = op[2]
			case "n":
				if err := applyNested(target[idx], op[2]); err != nil {
					return err
				}
			default:
				return errRemainder
			}
		default:
			return errRemainder
		}
	}
	return nil
}

// applyNested applies the operation list ops to the container doc.
func applyNested(doc, ops any) error {
	list, ok := ops.([]any)
	if !ok {
		return errRemainder
	}
	return applyOps(doc, list)
}
