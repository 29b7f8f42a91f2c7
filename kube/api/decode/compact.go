package decode

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/internal/objsrc"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// Compact returns the codec of a cache of typed objects, e.g.
// Compact[api.Pod](): what informer.For decodes with. An object it decodes is
// the same typed struct Typed gives, with two differences that make a
// cache of them a third of the size:
//
//   - it does not keep its JSON. It keeps the remainder instead — the
//     members of the JSON its struct does not model, usually a few bytes
//     shared by all the replicas of a workload (remainder.go) — and Raw
//     rebuilds the JSON as read from the struct and the remainder. A
//     read-modify-write (DeepCopy, change, rest's Update) therefore still
//     keeps every field kcm does not model.
//   - it shares its parts with the objects decoded before it: strings,
//     maps, slices and pointed-to values equal to ones seen recently are
//     replaced by those (share.go).
//
// So it is read-only, like every cached object: DeepCopy before changing
// anything, and a Transform must assign new values to fields rather than
// modify the maps and slices it finds (they may be another object's too).
// Objects meant to be changed — those a client's Get returns — come from
// Typed.
//
// Each call returns a codec of its own: it compares each object with the
// one it decoded before (share.go), which is fastest when one codec reads
// one stream, as an informer's does.
func Compact[S any, P api.TypedPtr[S]]() Codec[P] {
	return compactCodec[S, P]{t: compactTypeOf[S](), last: new(atomic.Pointer[S])}
}

// CompactCached is Compact for a cache of the objects it decodes, e.g.
// an informer's: once the decoder has read an object's metadata, it
// compares the rest of it (spec, status) with the cached object of the
// same namespace and name, which find returns (false: none), rather
// than with the object decoded before. A watch event's object is a new
// version of a cached one, differing in a few fields: nearly every part
// is then taken from the cached version as it is, where the object
// decoded before — another pod, of another workload — would have
// matched little and the parts would have been looked up in the tables
// or kept as new. find is called from the decoding goroutine and must
// be safe beside the cache's writer; what it returns is only read.
func CompactCached[S any, P api.TypedPtr[S]](find func(namespace, name string) (P, bool)) Codec[P] {
	c := compactCodec[S, P]{t: compactTypeOf[S](), last: new(atomic.Pointer[S])}
	c.find = func(namespace, name string) unsafe.Pointer {
		if cached, ok := find(namespace, name); ok && cached != nil {
			return unsafe.Pointer(cached)
		}
		return nil
	}
	c.rehint = func(obj unsafe.Pointer) unsafe.Pointer {
		m := P((*S)(obj)).GetObjectMeta()
		if m.Name == "" {
			return nil
		}
		return c.find(m.Namespace, m.Name)
	}
	return c
}

// compactCodec decodes into compact *S. last is the object it decoded
// before, the hint of the next one's sharing. With CompactCached, find
// returns the cached object of a namespace and name (nil: none), the
// hint of the whole object when the managedFields cut has read its name
// already, and rehint the hint of the members after the metadata
// otherwise.
type compactCodec[S any, P api.TypedPtr[S]] struct {
	t      *compactType
	last   *atomic.Pointer[S]
	find   func(namespace, name string) unsafe.Pointer
	rehint func(obj unsafe.Pointer) unsafe.Pointer
}

// checksWholeObject implements wholeObjectDecoder: the fast path reads
// every value and refuses bytes after the object; the slow path is
// json-iterator's Unmarshal.
func (c compactCodec[S, P]) checksWholeObject() bool { return true }

// Decode implements Codec. data is not kept.
func (c compactCodec[S, P]) Decode(data []byte) (P, error) { return c.decode(data, false) }

// DecodeBorrowed implements BorrowingDecoder: nothing of data is kept, so
// there is nothing to copy.
func (c compactCodec[S, P]) DecodeBorrowed(data []byte) (P, error) { return c.decode(data, false) }

// decodeStripped implements stripDecoder: managedFields are cut into a
// scratch buffer, which nothing keeps either.
func (c compactCodec[S, P]) decodeStripped(data []byte, _ bool) (P, error) {
	return c.decode(data, true)
}

func (c compactCodec[S, P]) decode(data []byte, strip bool) (P, error) {
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	in := data
	if strip {
		data = sc.cutManagedFields(data)
	}
	hint := unsafe.Pointer(c.last.Load())
	rehint := c.rehint
	if c.find != nil && sc.named {
		if h := c.find(unsafe.String(unsafe.SliceData(sc.ns), len(sc.ns)), unsafe.String(unsafe.SliceData(sc.name), len(sc.name))); h != nil {
			hint, rehint = h, nil // the cached version is the hint of all of it
		}
	}
	sc.named, sc.ns, sc.name = false, nil, nil // they point into data: keep nothing of it
	p := P(new(S))
	fd := fastDec{remScan: remScan{d: data, out: sc.ops[:0]}, pairs: sc.pairs[:0], word: &sc.word,
		arrays: sc.arrays, values: sc.values}
	if rehint != nil {
		fd.meta, fd.rehint = c.t.meta, rehint
	}
	n, err := fd.object(c.t.schema, unsafe.Pointer(p), hint)
	sc.ops, sc.pairs, sc.arrays, sc.values = fd.out, fd.pairs, fd.arrays, fd.values
	if err == nil {
		c.last.Store((*S)(p))
		*objsrc.Of(p.GetObjectMeta()) = objsrc.Rebuilt(unsafe.Pointer(p), &c.t.shareRemainder(fd.out, n).rb)
		return p, nil
	}
	// The slow path: json-iterator decodes, then the remainder is
	// computed and the parts shared, each in a pass of its own.
	if strip {
		// The cut leaves bytes it cannot read to the decoder, and
		// json-iterator accepts some that are not JSON (a key ending in
		// an escaped quote, {"\":""}): refuse what the stripping codecs
		// refuse (StripManagedFields, as Typed and Raw strip).
		if _, err := StripManagedFields(in); err != nil {
			return nil, err
		}
	}
	p = P(new(S))
	if err := jsonx.Unmarshal(data, p); err != nil {
		return nil, fmt.Errorf("%w: %T: %v", api.ErrDecode, p, err)
	}
	rem, err := c.t.remainderOf(data, sc)
	shareObject(unsafe.Pointer(p), hint, c.t.plan)
	c.last.Store((*S)(p))
	if err != nil {
		// Something the remainder does not describe exactly: keep the
		// whole JSON, as Typed does.
		p.GetObjectMeta().SetRaw(append([]byte(nil), data...))
		return p, nil
	}
	*objsrc.Of(p.GetObjectMeta()) = objsrc.Rebuilt(unsafe.Pointer(p), &rem.rb)
	return p, nil
}

// compactType is what Compact knows of one type: its schema (for the
// remainder), its sharing plan, how to marshal it, and the remainders
// seen recently.
type compactType struct {
	name    string
	schema  *jsSchema
	meta    *jsField // the metadata member of the type's objects (nil: none)
	plan    *sharePlan
	marshal func(unsafe.Pointer) ([]byte, error)
	empty   *remainder // shared by every object with nothing left over
	recent  [remainderSlots]atomic.Pointer[remainder]
}

// remainderSlots is the size of a type's table of recent remainders.
const remainderSlots = 1 << 10

var compactTypes sync.Map // reflect.Type → *compactType

// compactTypeOf returns the compactType of S, made once.
func compactTypeOf[S any]() *compactType {
	rt := reflect.TypeFor[S]()
	if t, ok := compactTypes.Load(rt); ok {
		return t.(*compactType)
	}
	t := &compactType{name: rt.Name(), schema: schemaOf(rt), plan: planOf(rt),
		marshal: func(p unsafe.Pointer) ([]byte, error) { return jsonx.Marshal((*S)(p)) }}
	t.empty = newRemainder(nil, t)
	t.meta = t.schema.fields["metadata"]
	actual, _ := compactTypes.LoadOrStore(rt, t)
	return actual.(*compactType)
}

// remainderOf returns the remainder of data, an object of t's type: an
// equal one seen recently when there is one.
func (t *compactType) remainderOf(data []byte, sc *scratch) (*remainder, error) {
	r := remScan{d: data, out: sc.ops[:0]}
	n, err := r.object(t.schema)
	sc.ops = r.out
	if err != nil {
		return nil, err
	}
	return t.shareRemainder(r.out, n), nil
}

// shareRemainder returns the remainder of the n operations ops (a JSON
// array): an equal one seen recently when there is one. ops is not kept.
func (t *compactType) shareRemainder(ops []byte, n int) *remainder {
	if n == 0 {
		return t.empty
	}
	slot := &t.recent[maphash.Bytes(shareSeed, ops)&(remainderSlots-1)]
	if e := slot.Load(); e != nil && string(e.ops) == string(ops) {
		return e
	}
	rem := newRemainder(append([]byte(nil), ops...), t)
	slot.Store(rem)
	return rem
}

// scratch is the reusable memory of one decode: the object without
// managedFields, the metadata's members and the remainder being written.
type scratch struct {
	cut, ops []byte
	meta     []jsonx.Member
	pairs    []span
	word     uint64
	// The fast decoder's scratch arrays and values (fastDec.takeArray).
	arrays []*scratchArray
	values []*scratchValue
	// The object's name and namespace as the managedFields cut found
	// them in its metadata (named: a plain string name was found; no
	// namespace member leaves ns empty); they point into the input.
	named    bool
	ns, name []byte
}

var scratchPool = sync.Pool{New: func() any { return &scratch{} }}

// cutManagedFields returns data without metadata.managedFields, in the
// scratch buffer when something was cut (data itself otherwise). It reads
// the top-level members only up to metadata, which the apiserver writes
// first, and leaves malformed bytes to the decoder to report.
func (sc *scratch) cutManagedFields(data []byte) []byte {
	sc.named, sc.ns, sc.name = false, nil, nil
	i := jsonx.SkipWS(data, 0)
	if i >= len(data) || data[i] != '{' {
		return data
	}
	for i++; ; {
		i = jsonx.SkipWS(data, i)
		if i < len(data) && data[i] == ',' {
			i = jsonx.SkipWS(data, i+1)
		}
		if i >= len(data) || data[i] != '"' {
			return data // the end of the object, or bytes the decoder rejects
		}
		ke, err := jsonx.SkipStringFast(data, i)
		if err != nil {
			return data
		}
		key := data[i+1 : ke-1]
		j := jsonx.SkipWS(data, ke)
		if j >= len(data) || data[j] != ':' {
			return data
		}
		vs := jsonx.SkipWS(data, j+1)
		if vs < len(data) && data[vs] == '{' && string(key) == "metadata" {
			return sc.cutIn(data, vs)
		}
		if i, err = jsonx.SkipValueFast(data, vs); err != nil {
			return data
		}
	}
}

// cutIn cuts managedFields from the metadata object at data[vs].
func (sc *scratch) cutIn(data []byte, vs int) []byte {
	meta, _, err := objectMembersInto(sc.meta[:0], data, vs, nil)
	if err != nil {
		return data
	}
	sc.meta = meta
	sc.named, sc.ns, sc.name = false, nil, nil
	for _, m := range meta {
		v := data[m.ValStart:m.End]
		if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' || bytes.IndexByte(v, '\\') >= 0 {
			continue
		}
		switch string(data[m.KeyStart:m.KeyEnd]) {
		case "name":
			sc.named, sc.name = len(v) > 2, v[1:len(v)-1]
		case "namespace":
			sc.ns = v[1 : len(v)-1]
		}
	}
	for j, m := range meta {
		if string(data[m.KeyStart:m.KeyEnd]) != "managedFields" {
			continue
		}
		from, to := m.Start, m.End
		switch {
		case j > 0:
			from = meta[j-1].End // with the comma before it
		case len(meta) > 1:
			to = meta[1].Start // with the comma after it
		}
		sc.cut = append(append(sc.cut[:0], data[:from]...), data[to:]...)
		return sc.cut
	}
	return data
}
