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
// lock-free: a slot is an atomic pointer to an immutable entry (and the
// entry's hash, compared first: see recentSlot). A value
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

// recentSlot is a slot: its entry, and the hash the entry was added
// with. A probe compares the hash first and reads the entry only when it
// matches, so a probe of a bucket that does not hold the value reads one
// cache line (a bucket's two slots share one), not the entries' memory
// too. The two words are stored one after the other, not together: a
// probe that reads a hash and an entry of different adds only misses a
// share, since the entry is compared in full before it is taken.
type recentSlot[V any] struct {
	hash  atomic.Uint64
	entry atomic.Pointer[recentEntry[V]]
}

// recentEntry is a value in a table.
type recentEntry[V any] struct {
	v   V
	hot atomic.Bool
}

// newRecentTable returns a table of buckets buckets (a power of two).
func newRecentTable[V any](buckets int) *recentTable[V] {
	return &recentTable[V]{slots: make([]recentSlot[V], 2*buckets), mask: uint64(buckets - 1)}
}

// find returns the value of hash h for which eq is true, marking it hot.
func (t *recentTable[V]) find(h uint64, eq func(V) bool) (V, bool) {
	b := (h & t.mask) * 2
	for i := range uint64(2) {
		sl := &t.slots[b+i]
		if sl.hash.Load() != h {
			continue
		}
		if e := sl.entry.Load(); e != nil && eq(e.v) {
			if !e.hot.Load() {
				e.hot.Store(true)
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
	e0, e1 := s0.entry.Load(), s1.entry.Load()
	n := &recentEntry[V]{v: v}
	switch {
	case e0 == nil:
		s0.put(h, n)
	case e1 == nil:
		s1.put(h, n)
	case !e1.hot.Load():
		s1.put(h, n)
	case !e0.hot.Load():
		s0.put(h, n)
	default:
		e0.hot.Store(false)
		e1.hot.Store(false)
		s1.put(h, n)
	}
}

// put stores e, of hash h, in the slot.
func (sl *recentSlot[V]) put(h uint64, e *recentEntry[V]) {
	sl.entry.Store(e)
	sl.hash.Store(h)
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
// maps: 3.7 MB of slots (16 bytes each: entry and hash) and at most as many
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
