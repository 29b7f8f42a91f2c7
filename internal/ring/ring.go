package ring

import (
	"fmt"
	"math/bits"
)

const (
	// StartCap is the capacity of a ring's first backing array.
	StartCap = 16
	// KeepCap is the capacity a ring keeps: it shrinks only while its
	// capacity is larger than KeepCap, so a ring that never held more than
	// KeepCap elements never reallocates once it has grown.
	KeepCap = 1024
)

// Ring is a FIFO of elements in a circular array that doubles when full and
// shrinks when at most an eighth full, never below KeepCap. The zero value
// is an empty ring that has allocated nothing. A Ring is a plain data
// structure: it takes no locks, and its owner guards it.
type Ring[E any] struct {
	// buf holds the elements at positions head, head+1, ..., head+n-1
	// (mod len(buf)). Invariant: len(buf) is 0 or a power of two ≥
	// StartCap, and every slot outside that window holds the zero E, so
	// that a popped element is not kept alive for the garbage collector.
	buf []E
	// head is the position of the oldest element. Invariant: 0 ≤ head <
	// len(buf) whenever len(buf) > 0, and head is 0 when len(buf) is 0.
	head int
	// n is the number of elements. Invariant: 0 ≤ n ≤ len(buf).
	n int
}

// Len returns the number of elements.
func (r *Ring[E]) Len() int { return r.n }

// Cap returns the length of the backing array: 0 before the first Push.
func (r *Ring[E]) Cap() int { return len(r.buf) }

// Push appends e as the newest element, doubling the capacity first when
// the ring is full.
func (r *Ring[E]) Push(e E) {
	if r.n == len(r.buf) {
		r.resize(max(StartCap, 2*len(r.buf)))
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = e
	r.n++
}

// Pop removes and returns the oldest element; ok is false when the ring is
// empty. It shrinks the ring as described in the package documentation.
func (r *Ring[E]) Pop() (e E, ok bool) {
	if r.n == 0 {
		return e, false
	}
	var zero E
	e = r.buf[r.head]
	r.buf[r.head] = zero
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	r.shrink()
	return e, true
}

// PopInto moves the min(len(dst), Len()) oldest elements, oldest first, to
// dst[0:], and returns how many it moved. It shrinks like Pop.
func (r *Ring[E]) PopInto(dst []E) int {
	k := min(len(dst), r.n)
	// The k elements are buf[head:end] and, when they wrap past the end
	// of buf, buf[:k-a] after it.
	end := min(r.head+k, len(r.buf))
	a := copy(dst, r.buf[r.head:end])
	clear(r.buf[r.head:end])
	copy(dst[a:], r.buf[:k-a])
	clear(r.buf[:k-a])
	r.head = (r.head + k) & (len(r.buf) - 1)
	r.n -= k
	r.shrink()
	return k
}

// At returns a pointer to the i-th oldest element (At(0) is the next one
// Pop returns), so that the owner can read or replace it in place. The
// pointer is valid until the next Push, Pop, PopInto, Reserve or Reset.
// At panics unless 0 ≤ i < Len().
func (r *Ring[E]) At(i int) *E {
	if uint(i) >= uint(r.n) {
		panic(fmt.Sprintf("ring: At(%d) with Len() %d", i, r.n))
	}
	return &r.buf[(r.head+i)&(len(r.buf)-1)]
}

// Reserve makes room for k more elements, so that the next k Pushes do not
// grow the ring.
func (r *Ring[E]) Reserve(k int) {
	if need := r.n + k; need > len(r.buf) {
		r.resize(max(StartCap, 1<<bits.Len(uint(need-1))))
	}
}

// Reset drops every element and the backing array.
func (r *Ring[E]) Reset() {
	r.buf, r.head, r.n = nil, 0, 0
}

// shrink gives memory back once the ring is larger than KeepCap and at
// most an eighth full: the new capacity is the smallest power of two that
// leaves the ring at least half empty (twice Len() or more), never below
// KeepCap. It reallocates at most once, however far PopInto drained.
func (r *Ring[E]) shrink() {
	if r.n > len(r.buf)/8 || len(r.buf) <= KeepCap {
		return
	}
	c := KeepCap
	for c < 2*r.n {
		c *= 2
	}
	r.resize(c)
}

// resize moves the elements, oldest first, to a new backing array of
// capacity c, which must be a power of two ≥ Len().
func (r *Ring[E]) resize(c int) {
	buf := make([]E, c)
	// The window may wrap: copy the part up to the end of buf, then the
	// part from its start.
	k := copy(buf, r.buf[r.head:min(r.head+r.n, len(r.buf))])
	copy(buf[k:], r.buf[:r.n-k])
	r.buf, r.head = buf, 0
}
