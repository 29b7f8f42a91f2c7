package api

import (
	"hash/maphash"
	"maps"
	"math/bits"
	"sync/atomic"
	"unsafe"
)

// The tables of recently seen values that sharing (share.go) looks parts
// up in: strings, values (a pointer's target or a slice's elements) and
// map[string]string.
//
// Each is a fixed number of buckets of two slots, found by a hash, and
// lock-free: a slot is an atomic pointer to an immutable entry (and a tag
// of the entry's hash, compared first: see recentSlot). A value
// found again is marked hot. A new value takes an empty slot, else a cold
// one; when both are hot, both turn cold and the second is replaced (a
// second chance). So values that keep coming back — a namespace, a
// ReplicaSet's labels — stay, while values seen once — a name, a uid,
// which the decoder still offers now and then (see internCounted) — only
// pass through the cold slot. Memory is bounded by the slots whatever the
// cache holds, and a collision costs a missed share, never a wrong one.

// recentTable is one table of values of type V.
type recentTable[V any] struct {
	slots []recentSlot[V]
	mask  uint64 // buckets - 1
}

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

// newRecentTable returns a table of buckets buckets (a power of two).
func newRecentTable[V any](buckets int) *recentTable[V] {
	return &recentTable[V]{slots: make([]recentSlot[V], 2*buckets), mask: uint64(buckets - 1)}
}

// find returns the value of hash h for which eq is true, marking it hot.
func (t *recentTable[V]) find(h uint64, eq func(V) bool) (V, bool) {
	b := (h & t.mask) * 2
	for i := range uint64(2) {
		sl := &t.slots[b+i]
		tag := sl.tag.Load()
		if tag|hotBit != h|hotBit {
			continue
		}
		if e := sl.entry.Load(); e != nil && eq(e.v) {
			if tag&hotBit == 0 {
				sl.tag.CompareAndSwap(tag, tag|hotBit) // lost to a racing add: no matter
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
	b := (h & t.mask) * 2
	s0, s1 := &t.slots[b], &t.slots[b+1]
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

// Table sizes, in buckets of two: about 130k strings, 64k values and 32k
// maps: 3.7 MB of slots (16 bytes each: entry and tag) and at most as many
// entries, whatever the cache holds.
const (
	stringBuckets = 1 << 16
	valueBuckets  = 1 << 15
	mapBuckets    = 1 << 14
)

var (
	shareSeed   = maphash.MakeSeed()
	stringTable = newRecentTable[string](stringBuckets)
	valueTable  = newRecentTable[valueEntry](valueBuckets)
	mapTable    = newRecentTable[map[string]string](mapBuckets)
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
