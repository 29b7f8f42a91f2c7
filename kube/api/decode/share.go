package decode

import (
	"maps"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/internal/objsrc"
)

// Sharing the parts of typed objects that repeat. The replicas of a
// workload carry the same container specs, tolerations, volume sources,
// labels, resource maps and owner references, and every pod of a cluster
// the same few dozen namespaces, images, node names and condition types;
// decoded naively each object holds private copies of all of it. Compact
// objects are read-only, so after decoding, shareObject walks the object
// and replaces each part equal to one seen before by that one:
//
//   - first by the part at the same place in the object the codec decoded
//     before (the hint): a LIST sorts the replicas of a workload
//     together, so this usually matches, and a match takes the whole
//     part without looking inside — a container list equal to the last
//     pod's is not walked string by string. Comparing with an object
//     just used is also cheap: its memory is in the cache.
//   - else by a value in a table of values seen recently, once the part's
//     own parts have been shared: strings by their bytes; a pointer's
//     target, a slice's elements and a map[string]string by their memory,
//     which, everything they point to being shared already, is equal
//     exactly when the values are.
//
// A string field whose values are almost never found in the table (a
// name, a uid, an IP, a container ID) stops being looked up: such strings
// cost a table slot and an entry each and are never shared. The field
// keeps sampling one lookup in 32, so it resumes if its values start
// repeating.
//
// The tables (sharetable.go) are lock-free, sized by use up to a
// maximum, and keep the values that keep coming back, so their memory is
// bounded whatever the cache holds. Slices are also given a backing array
// of exactly their length.
//
// The walk follows a plan compiled once per type from reflection (field
// offsets and kinds), so it costs no reflection per object.

// shareKind is what the walk does with a value of one type.
type shareKind uint8

const (
	shNone      shareKind = iota // nothing to share inside, and comparable by its bytes
	shOpaque                     // not walked, never shared (interfaces, other maps, an object's source)
	shString                     // a string
	shStruct                     // a struct with fields to walk
	shPtr                        // a pointer
	shSlice                      // a slice
	shStringMap                  // map[string]string, named or not
)

// sharePlan is the compiled walk for one type.
type sharePlan struct {
	kind   shareKind
	typ    reflect.Type
	size   uintptr       // of one value
	elem   *sharePlan    // shPtr: the target; shSlice: the element
	fields []*shareField // shStruct: the fields that are not shNone
	plain  []span        // shStruct: the bytes of the other fields
	own    bool          // values hold a part never shared (an opaque part)
}

// span is a range of bytes of a struct.
type span struct{ off, n uintptr }

// shareField is one field of a struct to walk: its offset and plan, and
// for a string field how often its values were found in the table.
type shareField struct {
	off   uintptr
	plan  *sharePlan
	count useCount
}

// Looking up a string field's values stops when, over at least
// minTries lookups, fewer than one in uniqueRatio was found; one in
// sampleEvery is still looked up. Counts halve past decayAt.
const (
	minTries    = 64
	uniqueRatio = 16
	sampleEvery = 32
	decayAt     = 1024
)

var (
	planMu    sync.Mutex
	planCache = map[reflect.Type]*sharePlan{}

	apiPkg     = reflect.TypeFor[api.ObjectMeta]().PkgPath()
	sourceType = reflect.TypeFor[objsrc.Source]()
)

// planOf returns the compiled plan of t.
func planOf(t reflect.Type) *sharePlan {
	planMu.Lock()
	defer planMu.Unlock()
	p := buildPlan(t)
	markOwn(p, map[*sharePlan]bool{})
	return p
}

// markOwn sets own on p and the plans it reaches; seen breaks cycles
// (a cycle adds nothing to own).
func markOwn(p *sharePlan, seen map[*sharePlan]bool) bool {
	if seen[p] {
		return p.own
	}
	seen[p] = true
	switch p.kind {
	case shOpaque:
		p.own = true
	case shStruct:
		for _, f := range p.fields {
			if markOwn(f.plan, seen) {
				p.own = true
			}
		}
	case shPtr, shSlice:
		p.own = markOwn(p.elem, seen)
	}
	return p.own
}

// buildPlan compiles t's plan; planMu is held. Plans are cached before
// their parts are filled, so recursive types terminate.
func buildPlan(t reflect.Type) *sharePlan {
	if p, ok := planCache[t]; ok {
		return p
	}
	p := &sharePlan{typ: t, size: t.Size()}
	planCache[t] = p
	switch t.Kind() {
	case reflect.String:
		p.kind = shString
	case reflect.Pointer:
		if p.elem = buildPlan(t.Elem()); p.elem.kind == shOpaque {
			p.kind = shOpaque
		} else {
			p.kind = shPtr
		}
	case reflect.Slice:
		p.kind, p.elem = shSlice, buildPlan(t.Elem())
	case reflect.Map:
		p.kind = shOpaque
		if t.Key().Kind() == reflect.String && t.Elem().Kind() == reflect.String {
			p.kind = shStringMap
		}
	case reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer, reflect.Array:
		p.kind = shOpaque
	case reflect.Struct:
		switch {
		case t == sourceType:
			p.kind = shOpaque
		case t.PkgPath() != apiPkg && t.PkgPath() != "":
			// Another package's struct (time.Time): its bytes are its
			// value; kcm does not look inside.
			p.kind = shNone
		default:
			for i := range t.NumField() {
				f := t.Field(i)
				if fp := buildPlan(f.Type); fp.kind != shNone {
					p.fields = append(p.fields, &shareField{off: f.Offset, plan: fp})
				} else if f.Type.Size() > 0 {
					p.plain = append(p.plain, span{f.Offset, f.Type.Size()})
				}
			}
			if len(p.fields) > 0 {
				p.kind = shStruct
			}
		}
	default:
		p.kind = shNone // numbers and bools
	}
	return p
}

// shareObject shares the parts of the object at p, of plan plan (a
// struct), with those of objects decoded before; hint is the object
// decoded before it (nil for none). The object itself stays its own.
func shareObject(p, hint unsafe.Pointer, plan *sharePlan) { plan.share(p, hint, nil) }

// share shares the value at p in place: with hint, the value at the same
// place in the previous object (nil for none), when equal, else part by
// part and through the tables. f is the struct field p is, if any. It
// reports whether the value holds a part never shared (an opaque part):
// such a value is not offered to the tables.
func (pl *sharePlan) share(p, hint unsafe.Pointer, f *shareField) (own bool) {
	switch pl.kind {
	case shNone:
		return false
	case shOpaque:
		return true
	case shString:
		str := (*string)(p)
		switch {
		case len(*str) == 0:
		case hint != nil && *(*string)(hint) == *str:
			*str = *(*string)(hint)
		default:
			*str = f.lookup(*str)
		}
		return false
	case shStruct:
		for _, sf := range pl.fields {
			var h unsafe.Pointer
			if hint != nil {
				h = unsafe.Add(hint, sf.off)
			}
			if sf.plan.share(unsafe.Add(p, sf.off), h, sf) {
				own = true
			}
		}
		return own
	case shPtr:
		target := *(*unsafe.Pointer)(p)
		if target == nil {
			return false
		}
		var ht unsafe.Pointer
		if hint != nil {
			ht = *(*unsafe.Pointer)(hint)
		}
		if ht != nil && pl.elem.equal(target, ht) {
			*(*unsafe.Pointer)(p) = ht
			return false
		}
		if pl.elem.share(target, ht, nil) {
			return true
		}
		*(*unsafe.Pointer)(p) = shareValue(pl.elem, target, pl.elem.size, 0, nil)
		return false
	case shSlice:
		return pl.shareSlice(p, hint)
	case shStringMap:
		m := *(*map[string]string)(p)
		if len(m) == 0 {
			return false
		}
		if hint != nil {
			if hm := *(*map[string]string)(hint); hm != nil && maps.Equal(m, hm) {
				*(*map[string]string)(p) = hm
				return false
			}
		}
		for k, v := range m {
			m[shareString(k)] = shareString(v) // the same key: its stored copy is replaced too
		}
		*(*map[string]string)(p) = shareMapValue(m)
		return false
	}
	return true
}

// shareSlice is share for a slice.
func (pl *sharePlan) shareSlice(p, hint unsafe.Pointer) (own bool) {
	h := (*sliceHeader)(p)
	if h.len == 0 {
		return false
	}
	var hh *sliceHeader
	if hint != nil {
		hh = (*sliceHeader)(hint)
		if hh.len == h.len && (hh.data == h.data || pl.elementsEqual(h.data, hh.data, h.len)) {
			h.data, h.cap = hh.data, h.len
			return false
		}
	}
	if pl.elem.kind != shNone {
		size := pl.elem.size
		for i := range h.len {
			var eh unsafe.Pointer
			if hh != nil && i < hh.len {
				eh = unsafe.Add(hh.data, uintptr(i)*size)
			}
			if pl.elem.share(unsafe.Add(h.data, uintptr(i)*size), eh, nil) {
				own = true
			}
		}
	}
	if own {
		pl.trim(p)
		return true
	}
	h.data = shareValue(pl, h.data, uintptr(h.len)*pl.elem.size, h.len, func() unsafe.Pointer {
		pl.trim(p)
		return h.data
	})
	h.cap = h.len
	return false
}

// lookup is shareString for the values of field f (nil: not a field),
// skipping the table for a field whose values are almost never in it.
func (f *shareField) lookup(s string) string {
	if f == nil {
		return shareString(s)
	}
	return internCounted(unsafe.Slice(unsafe.StringData(s), len(s)), &f.count, s)
}

// noteRepeat counts a value of a field (c) found equal to the previous
// object's: the field's values repeat, so they are worth the table when
// the hint misses. Without it a field whose values repeat in runs (a
// ReplicaSet's name in its pods' owner references) would be judged by
// its table lookups alone, which happen where a run starts — all misses.
func noteRepeat(c *useCount) { c.add(1, 1) }

// useCount counts the values of a field looked up (tries, the high 32
// bits) and those found (hit, the low 32 bits), in one word. Counts halve
// past decayAt.
//
// A count is a plain atomic load and store, not an atomic add: decoders
// on other goroutines (other informers of the type) may lose each other's
// counts, which only blurs a heuristic, while a locked add per string of
// every object decoded cost about 5 % of a watch event's decode.
type useCount struct{ v atomic.Uint64 }

// add adds tries and hits and returns the counts.
func (c *useCount) add(tries, hits uint64) (n, h uint32) {
	v := c.v.Load() + (tries<<32 | hits)
	n, h = uint32(v>>32), uint32(v)
	if n >= decayAt {
		v = uint64(n/2)<<32 | uint64(h/2)
	}
	c.v.Store(v)
	return n, h
}

// skip reports whether a field whose counts are n tries and h hits is
// judged unique, and this try is not a sample: its values skip the table.
func skip(n, h uint32) bool {
	return n >= minTries && h*uniqueRatio < n && n%sampleEvery != 0
}

// internCounted returns the string in the table whose bytes are b, or
// a string of b (own, when it is not empty, else a new one), which takes
// the table's slot — unless c, the counts of the field b is a value of,
// say the field's values are unique: then the table is skipped but for
// one sample in sampleEvery.
func internCounted(b []byte, c *useCount, own string) string {
	if skip(c.add(1, 0)) {
		if own == "" {
			own = string(b)
		}
		return own // unique values: not worth a slot
	}
	out, found := shareBytes(b, own)
	if found {
		c.add(0, 1)
	}
	return out
}

// equal reports whether the values at a and b (of plan pl) are equal.
func (pl *sharePlan) equal(a, b unsafe.Pointer) bool {
	switch pl.kind {
	case shNone:
		return string(unsafe.Slice((*byte)(a), pl.size)) == string(unsafe.Slice((*byte)(b), pl.size))
	case shString:
		return *(*string)(a) == *(*string)(b)
	case shStruct:
		for _, s := range pl.plain {
			if string(unsafe.Slice((*byte)(unsafe.Add(a, s.off)), s.n)) != string(unsafe.Slice((*byte)(unsafe.Add(b, s.off)), s.n)) {
				return false
			}
		}
		for _, f := range pl.fields {
			if !f.plan.equal(unsafe.Add(a, f.off), unsafe.Add(b, f.off)) {
				return false
			}
		}
		return true
	case shPtr:
		ta, tb := *(*unsafe.Pointer)(a), *(*unsafe.Pointer)(b)
		return ta == tb || (ta != nil && tb != nil && pl.elem.equal(ta, tb))
	case shSlice:
		// A nil slice and an empty one are not equal here: the first is
		// written null, the second [] (a modelled field without
		// omitempty), and the remainder was computed from the bytes read.
		ha, hb := (*sliceHeader)(a), (*sliceHeader)(b)
		return ha.len == hb.len && (ha.data == nil) == (hb.data == nil) &&
			(ha.data == hb.data || pl.elementsEqual(ha.data, hb.data, ha.len))
	case shStringMap:
		ma, mb := *(*map[string]string)(a), *(*map[string]string)(b)
		return (ma == nil) == (mb == nil) && maps.Equal(ma, mb) // nil is null, empty is {}
	}
	return false // opaque
}

// elementsEqual reports whether the n elements at a and b of slice plan
// pl are equal.
func (pl *sharePlan) elementsEqual(a, b unsafe.Pointer, n int) bool {
	if pl.elem.kind == shNone {
		size := uintptr(n) * pl.elem.size
		return string(unsafe.Slice((*byte)(a), size)) == string(unsafe.Slice((*byte)(b), size))
	}
	for i := range n {
		off := uintptr(i) * pl.elem.size
		if !pl.elem.equal(unsafe.Add(a, off), unsafe.Add(b, off)) {
			return false
		}
	}
	return true
}

// trim gives the slice at p a backing array of exactly its length when it
// has room to spare: the decoder grows slices by doubling, and five pod
// conditions would otherwise keep the memory of eight.
func (pl *sharePlan) trim(p unsafe.Pointer) {
	h := (*sliceHeader)(p)
	if h.cap == h.len {
		return
	}
	exact := reflect.MakeSlice(pl.typ, h.len, h.len)
	reflect.Copy(exact, reflect.NewAt(pl.typ, p).Elem())
	h.data, h.cap = exact.UnsafePointer(), h.len
}

// sliceHeader is the layout of a slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}
