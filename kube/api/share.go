package api

import (
	"hash/maphash"
	"maps"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Sharing the parts of typed objects that repeat. The replicas of a
// workload carry the same container specs, tolerations, volumes sources,
// labels, resource maps and owner references, and every pod of a cluster
// the same few dozen namespaces, images, node names and condition types;
// decoded naively each object holds private copies of all of it. Compact
// objects are read-only, so after decoding, shareObject walks the object
// and replaces each part equal to one seen recently by that one:
//
//   - strings by an equal string (a table of recently seen strings);
//   - a pointer's target, a slice's elements and a map[string]string by
//     an equal one (a table of recently seen values), once everything
//     they point to has been shared: two such values are then equal
//     exactly when their memory is, so they are found by hashing and
//     comparing bytes.
//
// The tables are fixed-size, direct-mapped and lock-free (the newest
// value wins a slot; a collision only costs a missed share), so their
// memory is bounded: they keep at most their slots' values alive,
// whatever the cache holds, and objects decoded close together (the
// replicas of a workload are listed one after another) find each other.
// Slices are also given a backing array of exactly their length.
//
// The walk follows a plan compiled once per type from reflection (field
// offsets and kinds), so it costs no reflection per object.

// shareKind is what the walk does with a value of one type.
type shareKind uint8

const (
	shNone   shareKind = iota // nothing to share inside, and comparable by its bytes
	shOpaque                  // not walked, never shared (interfaces, other maps, an object's source)
	shString
	shStruct
	shPtr
	shSlice
	shStringMap // map[string]string, named or not
)

// sharePlan is the compiled walk for one type.
type sharePlan struct {
	kind   shareKind
	typ    reflect.Type
	size   uintptr      // of one value
	elem   *sharePlan   // shPtr: the target; shSlice: the element
	fields []shareField // shStruct: the fields that are not shNone
}

// shareField is one field of a struct to walk: its offset and plan.
type shareField struct {
	off  uintptr
	plan *sharePlan
}

var (
	planMu    sync.Mutex
	planCache = map[reflect.Type]*sharePlan{}

	apiPkg     = reflect.TypeFor[ObjectMeta]().PkgPath()
	sourceType = reflect.TypeFor[source]()
)

// planOf returns the compiled plan of t.
func planOf(t reflect.Type) *sharePlan {
	planMu.Lock()
	defer planMu.Unlock()
	return buildPlan(t)
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
					p.fields = append(p.fields, shareField{off: f.Offset, plan: fp})
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
// struct), with those of objects decoded before. The object itself stays
// its own.
func shareObject(p unsafe.Pointer, plan *sharePlan) { plan.share(p) }

// share shares the parts of the value at p in place and reports whether
// the value holds something that is never shared (an opaque part): such a
// value is not offered to the table itself.
func (pl *sharePlan) share(p unsafe.Pointer) (own bool) {
	switch pl.kind {
	case shNone:
		return false
	case shOpaque:
		return true
	case shString:
		if s := (*string)(p); len(*s) > 0 {
			*s = shareString(*s)
		}
		return false
	case shStruct:
		for _, f := range pl.fields {
			if f.plan.share(unsafe.Add(p, f.off)) {
				own = true
			}
		}
		return own
	case shPtr:
		target := *(*unsafe.Pointer)(p)
		if target == nil {
			return false
		}
		if pl.elem.share(target) {
			return true
		}
		*(*unsafe.Pointer)(p) = shareValue(pl.elem, target, pl.elem.size, nil)
		return false
	case shSlice:
		h := (*sliceHeader)(p)
		if h.len == 0 {
			return false
		}
		if pl.elem.kind != shNone {
			for i := range h.len {
				if pl.elem.share(unsafe.Add(h.data, uintptr(i)*pl.elem.size)) {
					own = true
				}
			}
		}
		if own {
			pl.trim(p)
			return true
		}
		h.data = shareValue(pl, h.data, uintptr(h.len)*pl.elem.size, func() unsafe.Pointer {
			pl.trim(p)
			return h.data
		})
		h.cap = h.len
		return false
	case shStringMap:
		m := *(*map[string]string)(p)
		if len(m) == 0 {
			return false
		}
		for k, v := range m {
			m[shareString(k)] = shareString(v) // the same key: its stored copy is replaced too
		}
		*(*map[string]string)(p) = shareMapValue(m)
		return false
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

// The tables: sizes are powers of two.
const (
	stringSlots = 1 << 15
	valueSlots  = 1 << 13
	mapSlots    = 1 << 12
)

// valueEntry is a shared value: n bytes at ptr, of plan (a pointer's
// target or a slice) plan.
type valueEntry struct {
	plan *sharePlan
	ptr  unsafe.Pointer
	n    uintptr
}

var (
	shareSeed    = maphash.MakeSeed()
	stringTable  [stringSlots]atomic.Pointer[string]
	valueTable   [valueSlots]atomic.Pointer[valueEntry]
	mapTable     [mapSlots]atomic.Pointer[map[string]string]
	planHashSalt = uint64(0x9E3779B97F4A7C15)
)

// shareString returns the string in the table equal to s; or s, which
// takes the table's slot.
func shareString(s string) string {
	slot := &stringTable[maphash.String(shareSeed, s)&(stringSlots-1)]
	if e := slot.Load(); e != nil && *e == s {
		return *e
	}
	e := new(string) // only a miss allocates: &s would move every s to the heap
	*e = s
	slot.Store(e)
	return s
}

// shareValue returns the value in the table whose n bytes equal those at
// ptr (same plan); or the value keep returns (ptr when keep is nil),
// which takes the table's slot.
func shareValue(plan *sharePlan, ptr unsafe.Pointer, n uintptr, keep func() unsafe.Pointer) unsafe.Pointer {
	mem := unsafe.Slice((*byte)(ptr), n)
	h := maphash.Bytes(shareSeed, mem) ^ uint64(uintptr(unsafe.Pointer(plan)))*planHashSalt
	slot := &valueTable[h&(valueSlots-1)]
	if e := slot.Load(); e != nil && e.plan == plan && e.n == n && string(unsafe.Slice((*byte)(e.ptr), n)) == string(mem) {
		return e.ptr
	}
	if keep != nil {
		ptr = keep()
	}
	slot.Store(&valueEntry{plan: plan, ptr: ptr, n: n})
	return ptr
}

// shareMapValue returns the map in the table equal to m; or m, which
// takes the table's slot. m's strings are shared already, so the
// hash can be of their addresses.
func shareMapValue(m map[string]string) map[string]string {
	var h uint64
	for k, v := range m {
		e := uint64(uintptr(unsafe.Pointer(unsafe.StringData(k))))*31 + uint64(uintptr(unsafe.Pointer(unsafe.StringData(v))))
		e ^= uint64(len(k))<<48 ^ uint64(len(v))<<32
		h += e * planHashSalt
	}
	h ^= h >> 29
	slot := &mapTable[h&(mapSlots-1)]
	if e := slot.Load(); e != nil && maps.Equal(*e, m) {
		return *e
	}
	e := new(map[string]string)
	*e = m
	slot.Store(e)
	return m
}
