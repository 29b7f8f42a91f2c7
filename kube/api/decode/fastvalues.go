package decode

import (
	"reflect"
	"time"
	"unsafe"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// The fast path's values (see fastdecode.go): strings taken from the
// hint or the table, integers and times parsed in place, pointers,
// slices and maps decoded fresh and then replaced by the hint's or the
// table's equal value.

// stringInto decodes the string at d[vs] into p: the hint's when equal,
// else the table's, else a new one.
func (f *fastDec) stringInto(vs int, p, hint unsafe.Pointer, fl *jsField) (int, error) {
	d := f.d
	if d[vs] != '"' {
		return 0, errSlowPath
	}
	j, escaped, ok := jsonx.StringEnd(d, vs)
	if !ok {
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
		if fl != nil {
			noteRepeat(&fl.count)
		}
	case fl != nil:
		*str = internCounted(b, &fl.count, "")
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
		if t, ok := canonicalTime(v, micro); ok {
			*(*time.Time)(p) = t
			return ve, nil
		}
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
	var u interface{ UnmarshalJSON([]byte) error } = (*api.Time)(p)
	if micro {
		u = (*api.MicroTime)(p)
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
	ios := (*api.IntOrString)(p)
	if err := ios.UnmarshalJSON(v); err != nil {
		return 0, errSlowPath
	}
	if s := ios.StrValue(); s != "" {
		*ios = api.IntOrStringFromString(shareString(s))
	}
	if !canonical(v, jsIntOrString) {
		f.setAt(nops, key, idx, v)
	}
	return ve, nil
}

// ptrInto decodes the value at d[vs] into a target for the pointer at p,
// then shares it: the hint's target when equal, else the table's.
//
// The value is decoded into the target schema's scratch first (see
// takeValue), and a target of its own is only allocated when the hint's
// is not equal: a watch event's pod equals its cached version in nearly
// every pointed-to struct (probes, security contexts, container
// states), which would otherwise each be allocated only to be dropped.
// A pointer to an integer or a bool (a grace period, a port, a flag) is
// decoded into the decoder's scratch word the same way.
func (f *fastDec) ptrInto(nops *int, key []byte, idx, vs int, s *jsSchema, p, hint unsafe.Pointer, fl *jsField) (int, error) {
	var ht unsafe.Pointer
	if hint != nil {
		ht = *(*unsafe.Pointer)(hint)
	}
	if k := s.elem.kind; k == jsInt || k == jsBool {
		return f.scalarPtrInto(nops, key, idx, vs, s, p, ht, fl)
	}
	sv := f.takeValue(s.elem)
	end, err := f.valueInto(nops, key, idx, vs, s.elem, sv.p, ht, fl)
	if err != nil {
		return 0, err // sv is dropped, never reused half-filled
	}
	plan := s.elem.share
	if ht != nil && plan.equal(sv.p, ht) {
		f.putValue(s.elem, sv)
		*(*unsafe.Pointer)(p) = ht
		if fl != nil {
			noteRepeat(&fl.count)
		}
		return end, nil
	}
	target := reflect.New(s.elem.typ)
	target.Elem().Set(sv.view)
	f.putValue(s.elem, sv)
	t := target.UnsafePointer()
	if !plan.own {
		t = fl.shareValue(plan, t, plan.size, 0)
	}
	*(*unsafe.Pointer)(p) = t
	return end, nil
}

// scratchValue is a schema's scratch value: where a pointer's target is
// decoded before it is known whether it needs one of its own; view is
// reflect's view of it, made once (see scratchArray).
type scratchValue struct {
	p    unsafe.Pointer
	view reflect.Value
}

// takeValue returns the decoder's scratch value of schema s, zeroed, or a
// new one when the decoder holds none (a pointer to the same type nested
// in this one). See takeArray.
func (f *fastDec) takeValue(s *jsSchema) *scratchValue {
	if s.id < len(f.values) {
		if v := f.values[s.id]; v != nil {
			f.values[s.id] = nil
			return v
		}
	}
	v := reflect.New(s.typ)
	return &scratchValue{p: v.UnsafePointer(), view: v.Elem()}
}

// putValue zeroes v (so that it keeps nothing alive and decodes into a
// zero value next time) and makes it the decoder's scratch value of s
// again.
func (f *fastDec) putValue(s *jsSchema, v *scratchValue) {
	v.view.SetZero()
	if s.id >= len(f.values) {
		f.values = append(f.values, make([]*scratchValue, s.id+1-len(f.values))...)
	}
	f.values[s.id] = v
}

// scalarPtrInto is ptrInto for a pointer to an integer or a bool, whose
// hint's target is ht.
func (f *fastDec) scalarPtrInto(nops *int, key []byte, idx, vs int, s *jsSchema, p, ht unsafe.Pointer, fl *jsField) (int, error) {
	if f.word == nil {
		f.word = new(uint64)
	}
	*f.word = 0
	word := unsafe.Pointer(f.word)
	end, err := f.valueInto(nops, key, idx, vs, s.elem, word, ht, fl)
	if err != nil {
		return 0, err
	}
	size := s.elem.typ.Size()
	plan := s.elem.share
	if ht != nil && plan.equal(word, ht) {
		*(*unsafe.Pointer)(p) = ht
		if fl != nil {
			noteRepeat(&fl.count)
		}
		return end, nil
	}
	target := reflect.New(s.elem.typ).UnsafePointer()
	copy(unsafe.Slice((*byte)(target), size), unsafe.Slice((*byte)(word), size))
	*(*unsafe.Pointer)(p) = fl.shareValue(plan, target, plan.size, 0)
	return end, nil
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
		q, esc, ok := jsonx.StringEnd(d, vstart)
		if !ok {
			return 0, errSlowPath
		}
		ve := q + 1
		escaped = escaped || esc
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
	if skip(fl.count.add(1, 0)) {
		return ptr
	}
	out := shareValue(plan, ptr, n, length, nil)
	if out != ptr {
		fl.count.add(0, 1)
	}
	return out
}
