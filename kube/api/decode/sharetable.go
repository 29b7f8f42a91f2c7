package decode

import (
	"hash/maphash"
	"maps"
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"
)

// The tables of recently seen values that sharing (share.go) looks parts
// up in: strings, values (a pointer's target or a slice's elements) and
// map[string]string.
//
// Each is a number of buckets of two slots, found by a hash, and
// lock-free: a slot is an atomic pointer to an immutable entry (and a tag
// of the entry's hash, compared first: see recentSlot). A value
// found again is marked hot. A new value takes an empty slot, else a cold
// one; when both are hot, both turn cold and the second is replaced (a
// second chance). So values that keep coming back — a namespace, a
// ReplicaSet's labels — stay, while values seen once — a name, a uid,
// which the decoder still offers now and then (see internCounted) — only
// pass through the cold slot.
//
// A table starts small and doubles while it is both useful and full:
// when, over a window of as many adds as it has slots (so as many new
// values as it holds came in), at least one find in growPressure hit, up
// to a maximum number of buckets; a stream of values that never recur
// (names, uids) does not grow it. So a process that caches a few hundred objects pays
// a few tens of KiB of slots, not the megabytes a large cluster's
// recurring values need, and memory is bounded by the maximum whatever
// the cache holds. A value's bucket is the top bits of its hash, which
// its tag keeps, so a grow moves every entry to its bucket in the larger
// table (two old slots land in two new buckets: they always fit). An add
// that races with a grow may be lost, and a collision costs a missed
// share, never a wrong one.

// recentTable is one table of values of type V.
type recentTable[V any] struct {
	cur        atomic.Pointer[recentSlots[V]]
	maxBuckets int
	growMu     sync.Mutex // held by the one goroutine that grows
}

// recentSlots is a table's slots at one size, and the counts that decide
// when it grows.
type recentSlots[V any] struct {
	slots []recentSlot[V]
	shift uint // 64 - log2(buckets): a hash's bucket is h >> shift
	// adds and hits count the adds and the finds that hit of the
	// current window, apart from the slots' cache lines. Like useCount
	// they are a load and a store, not a locked add: racing decoders may
	// lose counts, which only blurs when a table grows.
	_          [64]byte
	adds, hits atomic.Uint64
}

// growPressure: a table doubles when a window's hits are at least one
// in growPressure of its adds.
const growPressure = 8

// recentSlot is a slot: its entry, and a tag — the hash the entry was
// added with, whose lowest bit says instead whether the entry is hot. A
// probe compares the tag first and reads the entry only when it matches,
// and an add reads only the tags to choose its slot, so neither reads
// the entries' memory of a bucket that does not hold the value: one
// cache line (a bucket's two slots share one). The words are stored one
// after the other, not together: a probe that reads a tag and an entry
// of different adds only misses a share, since the entry is compared in
// full before it is taken.
type recentSlot[V any] struct {
	tag   atomic.Uint64
	entry atomic.Pointer[recentEntry[V]]
}

// hotBit is the bit of a tag that marks its entry hot.
const hotBit = 1

// recentEntry is a value in a table.
type recentEntry[V any] struct{ v V }

// newRecentTable returns a table of buckets buckets that grows up to
// maxBuckets (both powers of two, buckets ≤ maxBuckets).
func newRecentTable[V any](buckets, maxBuckets int) *recentTable[V] {
	t := &recentTable[V]{maxBuckets: maxBuckets}
	t.cur.Store(newRecentSlots[V](buckets))
	return t
}

// newRecentSlots returns empty slots for buckets buckets (a power of two).
func newRecentSlots[V any](buckets int) *recentSlots[V] {
	return &recentSlots[V]{slots: make([]recentSlot[V], 2*buckets), shift: uint(64 - bits.TrailingZeros(uint(buckets)))}
}

// buckets returns the table's number of buckets now.
func (t *recentTable[V]) buckets() int { return len(t.cur.Load().slots) / 2 }

// find returns the value of hash h for which eq is true, marking it hot.
func (t *recentTable[V]) find(h uint64, eq func(V) bool) (V, bool) {
	ts := t.cur.Load()
	b := (h >> ts.shift) * 2
	for i := range uint64(2) {
		sl := &ts.slots[b+i]
		tag := sl.tag.Load()
		if tag|hotBit != h|hotBit {
			continue
		}
		if e := sl.entry.Load(); e != nil && eq(e.v) {
			if tag&hotBit == 0 {
				sl.tag.CompareAndSwap(tag, tag|hotBit) // lost to a racing add: no matter
			}
			if len(ts.slots)/2 < t.maxBuckets {
				ts.hits.Store(ts.hits.Load() + 1)
			}
			return e.v, true
		}
	}
	var zero V
	return zero, false
}

// add puts v, of hash h, in its bucket: in an empty slot, else a cold
// one, else (both hot: both turn cold) in the second.
func (t *recentTable[V]) add(h uint64, v V) {
	ts := t.cur.Load()
	b := (h >> ts.shift) * 2
	s0, s1 := &ts.slots[b], &ts.slots[b+1]
	n := &recentEntry[V]{v: v}
	h &^= hotBit // a new entry is cold
	switch {
	case s0.entry.Load() == nil:
		s0.put(h, n)
	case s1.entry.Load() == nil:
		s1.put(h, n)
	case s1.tag.Load()&hotBit == 0:
		s1.put(h, n)
	case s0.tag.Load()&hotBit == 0:
		s0.put(h, n)
	default:
		s0.tag.And(^uint64(hotBit))
		s1.put(h, n)
	}
	if len(ts.slots)/2 < t.maxBuckets {
		t.count(ts)
	}
}

// count counts an add to ts and, at the end of a window of as many adds
// as ts has slots, grows the table when the window's finds that hit were
// at least one in growPressure of its adds: the table keeps values that
// come back, and as many new ones as it has slots came in.
func (t *recentTable[V]) count(ts *recentSlots[V]) {
	n := ts.adds.Load() + 1
	if n < uint64(len(ts.slots)) {
		ts.adds.Store(n)
		return
	}
	hits := ts.hits.Load()
	ts.adds.Store(0)
	ts.hits.Store(0)
	if hits*growPressure >= n {
		t.grow(ts)
	}
}

// grow replaces ts, the current slots, by twice as many, each entry in
// its bucket there; another goroutine growing already, or a ts no longer
// current, makes it a no-op. Adds to ts while it copies may be lost.
func (t *recentTable[V]) grow(ts *recentSlots[V]) {
	if !t.growMu.TryLock() {
		return
	}
	defer t.growMu.Unlock()
	if t.cur.Load() != ts {
		return
	}
	next := newRecentSlots[V](len(ts.slots)) // twice the buckets
	for i := range ts.slots {
		sl := &ts.slots[i]
		e := sl.entry.Load()
		if e == nil {
			continue
		}
		tag := sl.tag.Load()
		b := (tag >> next.shift) * 2
		if to := &next.slots[b]; to.entry.Load() == nil {
			to.put(tag, e)
		} else {
			next.slots[b+1].put(tag, e)
		}
	}
	t.cur.Store(next)
}

// put stores e, of tag tag, in the slot.
func (sl *recentSlot[V]) put(tag uint64, e *recentEntry[V]) {
	sl.entry.Store(e)
	sl.tag.Store(tag)
}

// valueEntry is a shared value: the n bytes at ptr of a value of plan
// plan (a pointer's target, or a slice of length len).
type valueEntry struct {
	plan *sharePlan
	ptr  unsafe.Pointer
	n    uintptr
	len  int
}

// Table sizes, in buckets of two. Each starts at initialBuckets (32 KiB
// of slots: 16 bytes each, entry and tag) and grows by use up to about
// 130k strings, 64k values and 32k maps: 3.5 MiB of slots and at most as
// many entries, whatever the cache holds.
const (
	initialBuckets = 1 << 10
	stringBuckets  = 1 << 16
	valueBuckets   = 1 << 15
	mapBuckets     = 1 << 14
)

var (
	shareSeed   = maphash.MakeSeed()
	stringTable = newRecentTable[string](initialBuckets, stringBuckets)
	valueTable  = newRecentTable[valueEntry](initialBuckets, valueBuckets)
	mapTable    = newRecentTable[map[string]string](initialBuckets, mapBuckets)
)

// planHashSalt mixes a plan's address into a value's hash.
const planHashSalt = 0x9E3779B97F4A7C15

// shareString returns the string in the table equal to s, or s, which
// takes a slot.
func shareString(s string) string {
	out, _ := shareBytes(unsafe.Slice(unsafe.StringData(s), len(s)), s)
	return out
}

// shareBytes returns the string in the table whose bytes are b and true;
// or own (a string of b made now when own is empty), which takes a slot,
// and false. b is not kept.
func shareBytes(b []byte, own string) (string, bool) {
	h := maphash.Bytes(shareSeed, b)
	if s, ok := stringTable.find(h, func(s string) bool { return s == string(b) }); ok {
		return s, true
	}
	if own == "" {
		own = string(b)
	}
	stringTable.add(h, own)
	return own, false
}

// shareValue returns the value in the table whose n bytes equal those at
// ptr (same plan and length), or the value keep returns (ptr when keep is
// nil), which takes a slot.
func shareValue(plan *sharePlan, ptr unsafe.Pointer, n uintptr, length int, keep func() unsafe.Pointer) unsafe.Pointer {
	mem := unsafe.Slice((*byte)(ptr), n)
	h := maphash.Bytes(shareSeed, mem) ^ uint64(uintptr(unsafe.Pointer(plan)))*planHashSalt
	e, ok := valueTable.find(h, func(e valueEntry) bool {
		return e.plan == plan && e.n == n && e.len == length && string(unsafe.Slice((*byte)(e.ptr), n)) == string(mem)
	})
	if ok {
		return e.ptr
	}
	if keep != nil {
		ptr = keep()
	}
	valueTable.add(h, valueEntry{plan: plan, ptr: ptr, n: n, len: length})
	return ptr
}

// shareMapValue returns the map in the table equal to m, or m, which
// takes a slot. m's strings are shared already, so the hash can be of
// their addresses (an order-independent sum of mixed entries).
func shareMapValue(m map[string]string) map[string]string {
	var h uint64
	for k, v := range m {
		e := uint64(uintptr(unsafe.Pointer(unsafe.StringData(k))))*planHashSalt ^
			bits.RotateLeft64(uint64(uintptr(unsafe.Pointer(unsafe.StringData(v)))), 29)
		e ^= uint64(len(k))<<48 ^ uint64(len(v))<<40
		e *= 0xff51afd7ed558ccd
		h += e ^ e>>33
	}
	h ^= h >> 31
	if found, ok := mapTable.find(h, func(t map[string]string) bool { return maps.Equal(t, m) }); ok {
		return found
	}
	mapTable.add(h, m)
	return m
}
