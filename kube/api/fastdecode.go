package api

import (
	"encoding/json"
	"errors"
	"reflect"
	"time"
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
		ks, ke, vs, err := f.plainKey(i)
		if err != nil {
			return 0, 0, err
		}
		key := d[ks+1 : ke-1]
		fl := s.guess(prev, key)
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
	}
	for _, fl := range s.emitted {
		if seen[fl.idx/64]&(1<<(fl.idx%64)) == 0 {
			f.del(&nops, fl.key)
		}
	}
	return end, nops, nil
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
	j := i + 1
	for j < len(d) && d[j] != '"' {
		if d[j] == '\\' || d[j] < 0x20 {
			return 0, 0, 0, errSlowPath
		}
		j++
	}
	if j >= len(d) {
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

// emptyInto sets the slice or map at p to an empty, non-nil one, as
// json-iterator decodes [] and {}.
func emptyInto(s *jsSchema, p unsafe.Pointer) {
	switch s.kind {
	case jsSlice:
		reflect.NewAt(s.typ, p).Elem().Set(reflect.MakeSlice(s.typ, 0, 0))
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

// stringInto decodes the string at d[vs] into p: the hint's when equal,
// else the table's, else a new one.
func (f *fastDec) stringInto(vs int, p, hint unsafe.Pointer, fl *jsField) (int, error) {
	d := f.d
	if d[vs] != '"' {
		return 0, errSlowPath
	}
	j, escaped := vs+1, false
	for ; j < len(d) && d[j] != '"'; j++ {
		switch {
		case d[j] == '\\':
			escaped = true
			j++
		case d[j] < 0x20:
			return 0, errSlowPath
		}
	}
	if j >= len(d) {
		return 0, errSlowPath
	}
	str := (*string)(p)
	if escaped { // rare in objects: json-iterator unescapes
		if err := jsonx.Unmarshal(d[vs:j+1], str); err != nil {
			return 0, errSlowPath
		}
		*str = shareString(*str)
		return j + 1, nil
	}
	b := d[vs+1 : j]
	switch {
	case len(b) == 0:
	case hint != nil && *(*string)(hint) == string(b):
		*str = *(*string)(hint)
	case fl != nil:
		*str = internCounted(b, &fl.tries, &fl.hit, "")
	default:
		*str, _ = shareBytes(b, "")
	}
	return j + 1, nil
}

// intInto decodes the integer at d[vs] into p (schema s): canonical
// spellings within the type's range only.
func intInto(d []byte, vs int, s *jsSchema, p unsafe.Pointer) (int, error) {
	j := vs
	neg := j < len(d) && d[j] == '-'
	if neg {
		j++
	}
	start := j
	var u uint64
	for ; j < len(d) && d[j] >= '0' && d[j] <= '9'; j++ {
		u = u*10 + uint64(d[j]-'0')
	}
	if j == start || j-start > 18 || (j < len(d) && !isDelim(d[j])) || !canonicalInt(d[vs:j]) {
		return 0, errSlowPath
	}
	if !s.signed {
		if neg || (s.bits < 64 && u >= 1<<s.bits) {
			return 0, errSlowPath
		}
		putInt(p, s.bits, u)
		return j, nil
	}
	limit := uint64(1) << (s.bits - 1)
	if (!neg && u >= limit) || (neg && u > limit) {
		return 0, errSlowPath
	}
	v := int64(u)
	if neg {
		v = -v
	}
	putInt(p, s.bits, uint64(v))
	return j, nil
}

// putInt stores the low bits of v at p.
func putInt(p unsafe.Pointer, bits int, v uint64) {
	switch bits {
	case 8:
		*(*uint8)(p) = uint8(v)
	case 16:
		*(*uint16)(p) = uint16(v)
	case 32:
		*(*uint32)(p) = uint32(v)
	default:
		*(*uint64)(p) = v
	}
}

// timeInto decodes a Time (or MicroTime) at d[vs] into p. The canonical
// spelling is parsed here; any other goes through the type's own
// UnmarshalJSON and is kept in the remainder.
func (f *fastDec) timeInto(nops *int, key []byte, idx, vs int, micro bool, p unsafe.Pointer) (int, error) {
	d := f.d
	if literal(d, vs, "null") {
		return vs + 4, nil // zero, written as null
	}
	if d[vs] != '"' {
		return 0, errSlowPath
	}
	ve, err := skipScalar(d, vs)
	if err != nil {
		return 0, errSlowPath
	}
	v := d[vs:ve]
	kind := jsTime
	if micro {
		kind = jsMicroTime
	}
	if canonical(v, kind) {
		layout := time.RFC3339
		if micro {
			layout = time.RFC3339Nano
		}
		t, err := time.Parse(layout, unsafe.String(&v[1], len(v)-2))
		if err != nil {
			return 0, errSlowPath
		}
		*(*time.Time)(p) = t.Local()
		return ve, nil
	}
	var u interface{ UnmarshalJSON([]byte) error } = (*Time)(p)
	if micro {
		u = (*MicroTime)(p)
	}
	if err := u.UnmarshalJSON(v); err != nil {
		return 0, errSlowPath
	}
	f.setAt(nops, key, idx, v)
	return ve, nil
}

// intOrStringInto decodes an IntOrString at d[vs] into p.
func (f *fastDec) intOrStringInto(nops *int, key []byte, idx, vs int, p unsafe.Pointer) (int, error) {
	ve, err := skipScalar(f.d, vs)
	if err != nil || ve <= vs {
		return 0, errSlowPath
	}
	v := f.d[vs:ve]
	if v[0] != '"' && !literal(v, 0, "null") && !canonicalInt(v) {
		return 0, errSlowPath
	}
	ios := (*IntOrString)(p)
	if err := ios.UnmarshalJSON(v); err != nil {
		return 0, errSlowPath
	}
	if ios.str != "" {
		ios.str = shareString(ios.str)
	}
	if !canonical(v, jsIntOrString) {
		f.setAt(nops, key, idx, v)
	}
	return ve, nil
}

// ptrInto decodes the value at d[vs] into a new target for the pointer
// at p, then shares it: the hint's target when equal, else the table's.
func (f *fastDec) ptrInto(nops *int, key []byte, idx, vs int, s *jsSchema, p, hint unsafe.Pointer, fl *jsField) (int, error) {
	target := reflect.New(s.elem.typ).UnsafePointer()
	var ht unsafe.Pointer
	if hint != nil {
		ht = *(*unsafe.Pointer)(hint)
	}
	end, err := f.valueInto(nops, key, idx, vs, s.elem, target, ht, fl)
	if err != nil {
		return 0, err
	}
	plan := s.elem.share
	switch {
	case ht != nil && plan.equal(target, ht):
		target = ht
	case !plan.own:
		target = fl.shareValue(plan, target, plan.size, 0)
	}
	*(*unsafe.Pointer)(p) = target
	return end, nil
}

// sliceInto decodes the array at d[vs] into a slice of exactly its
// length at p, then shares it like ptrInto.
func (f *fastDec) sliceInto(nops *int, key []byte, idx, vs int, s *jsSchema, p, hint unsafe.Pointer, fl *jsField) (int, error) {
	d := f.d
	if d[vs] != '[' {
		return 0, errSlowPath
	}
	n, err := countElements(d, vs)
	if err != nil {
		return 0, err
	}
	h := (*sliceHeader)(p)
	if n == 0 {
		emptyInto(s, p)
		return jsonx.SkipValueFast(d, vs)
	}
	h.data, h.len, h.cap = reflect.MakeSlice(s.typ, n, n).UnsafePointer(), n, n
	var hh *sliceHeader
	if hint != nil {
		hh = (*sliceHeader)(hint)
	}
	size := s.elem.typ.Size()
	start := f.open(nops, key, idx)
	inner, i := 0, vs+1
	for k := range n {
		if i = jsonx.SkipWS(d, i); k > 0 {
			if d[i] != ',' {
				return 0, errSlowPath
			}
			i = jsonx.SkipWS(d, i+1)
		}
		var eh unsafe.Pointer
		if hh != nil && k < hh.len {
			eh = unsafe.Add(hh.data, uintptr(k)*size)
		}
		if i, err = f.valueInto(&inner, nil, k, i, s.elem, unsafe.Add(h.data, uintptr(k)*size), eh, nil); err != nil {
			return 0, err
		}
	}
	f.close(nops, start, inner)
	if i = jsonx.SkipWS(d, i); i >= len(d) || d[i] != ']' {
		return 0, errSlowPath
	}
	plan := s.share
	switch {
	case hh != nil && hh.len == n && (hh.data == h.data || plan.elementsEqual(h.data, hh.data, n)):
		h.data = hh.data
	case !plan.elem.own:
		h.data = fl.shareValue(plan, h.data, uintptr(n)*size, n)
	}
	return i + 1, nil
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

// stringMapInto decodes the object at d[vs] into the map[string]string
// at p: the hint's map when it holds exactly these members, else a new
// one of shared strings, then the table's when equal.
func (f *fastDec) stringMapInto(vs int, s *jsSchema, p, hint unsafe.Pointer) (int, error) {
	d := f.d
	if d[vs] != '{' {
		return 0, errSlowPath
	}
	pairs, escaped := f.pairs[:0], false
	i := vs + 1
	for n := 0; ; n++ {
		if i = jsonx.SkipWS(d, i); i >= len(d) {
			return 0, errSlowPath
		}
		if d[i] == '}' {
			break
		}
		if n > 0 {
			if d[i] != ',' {
				return 0, errSlowPath
			}
			if i = jsonx.SkipWS(d, i+1); i >= len(d) {
				return 0, errSlowPath
			}
		}
		ks, ke, vstart, err := f.plainKey(i)
		if err != nil {
			return 0, err
		}
		if d[vstart] != '"' {
			return 0, errSlowPath // null and non-strings: json-iterator's rules
		}
		ve, err := skipScalar(d, vstart)
		if err != nil {
			return 0, errSlowPath
		}
		for _, c := range d[vstart+1 : ve-1] {
			if c < 0x20 {
				return 0, errSlowPath
			}
			escaped = escaped || c == '\\'
		}
		pairs = append(pairs, span{uintptr(ks + 1), uintptr(ke - 1)}, span{uintptr(vstart + 1), uintptr(ve - 1)})
		i = ve
	}
	f.pairs = pairs
	end := i + 1
	if escaped {
		m := map[string]string{}
		if err := jsonx.Unmarshal(d[vs:end], &m); err != nil {
			return 0, errSlowPath
		}
		for k, v := range m {
			m[shareString(k)] = shareString(v)
		}
		*(*map[string]string)(p) = shareMapValue(m)
		return end, nil
	}
	str := func(sp span) string { return unsafe.String(&d[sp.off], int(sp.n-sp.off)) }
	if hint != nil && distinctKeys(d, pairs) {
		if hm := *(*map[string]string)(hint); hm != nil && len(hm) == len(pairs)/2 {
			same := true
			for k := 0; k < len(pairs) && same; k += 2 {
				v, ok := hm[str(pairs[k])]
				same = ok && v == str(pairs[k+1])
			}
			if same {
				*(*map[string]string)(p) = hm
				return end, nil
			}
		}
	}
	m := make(map[string]string, len(pairs)/2)
	for k := 0; k < len(pairs); k += 2 {
		key, _ := shareBytes(d[pairs[k].off:pairs[k].n], "")
		val := ""
		if v := d[pairs[k+1].off:pairs[k+1].n]; len(v) > 0 {
			val, _ = shareBytes(v, "")
		}
		m[key] = val
	}
	if len(m) > 0 {
		m = shareMapValue(m)
	}
	*(*map[string]string)(p) = m
	return end, nil
}

// distinctKeys reports whether the keys of a map's pairs (key and value
// spans, alternating) are all different. Maps are small.
func distinctKeys(d []byte, pairs []span) bool {
	for a := 0; a < len(pairs); a += 2 {
		ka := d[pairs[a].off:pairs[a].n]
		for b := 0; b < a; b += 2 {
			if string(d[pairs[b].off:pairs[b].n]) == string(ka) {
				return false
			}
		}
	}
	return true
}

// shareValue is the package's shareValue for the values of field fl (nil:
// not a field), skipping the table, as internCounted does, for a field
// whose values are almost never in it (a pod's conditions, whose times
// are its own).
func (fl *jsField) shareValue(plan *sharePlan, ptr unsafe.Pointer, n uintptr, length int) unsafe.Pointer {
	if fl == nil {
		return shareValue(plan, ptr, n, length, nil)
	}
	tries := fl.tries.Add(1)
	hit := fl.hit.Load()
	if tries >= minTries && hit*uniqueRatio < tries && tries%sampleEvery != 0 {
		return ptr
	}
	out := shareValue(plan, ptr, n, length, nil)
	if out != ptr {
		hit = fl.hit.Add(1)
	}
	if tries >= decayAt {
		fl.tries.Store(tries / 2)
		fl.hit.Store(hit / 2)
	}
	return out
}
