package processor

// ring is a FIFO of values in a circular slice that grows when full and
// shrinks again after a burst drains. It is a plain data structure: no locks,
// no goroutines; the listener that owns one guards it with its own mutex.
//
// Capacity is always a power of two so that a position is reduced with a
// mask instead of a division. The backing array is allocated lazily on the
// first push, so a listener that never receives anything costs nothing.
type ring[E any] struct {
	// buf holds the elements at positions head, head+1, ..., head+n-1
	// (mod len(buf)). Invariant: len(buf) is 0 or a power of two >= min,
	// and every slot outside that window holds the zero E (so the ring
	// never keeps a popped object alive for the garbage collector).
	buf []E
	// head is the index of the oldest element. Invariant: 0 <= head < len(buf)
	// whenever len(buf) > 0.
	head int
	// n is the number of elements. Invariant: 0 <= n <= len(buf).
	n int
	// min is the capacity the ring starts with and never shrinks below.
	// Invariant: a power of two >= 1.
	min int
}

// newRing returns an empty ring whose first allocation will hold at least
// capacity elements (rounded up to a power of two).
func newRing[E any](capacity int) ring[E] {
	return ring[E]{min: ceilPow2(capacity)}
}

// ceilPow2 returns the smallest power of two >= n, and 1 for n < 1.
func ceilPow2(n int) int {
	p := 1
	for p < n {
		p <<= 1
	}
	return p
}

// Len returns the number of buffered elements.
func (r *ring[E]) Len() int { return r.n }

// Cap returns the size of the backing array (0 before the first push).
func (r *ring[E]) Cap() int { return len(r.buf) }

// Push appends e at the tail, doubling the capacity first when full.
func (r *ring[E]) Push(e E) {
	if r.n == len(r.buf) {
		r.resize(max(r.min, 2*len(r.buf)))
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = e
	r.n++
}

// Pop removes and returns the oldest element; ok is false when empty.
func (r *ring[E]) Pop() (e E, ok bool) {
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

// PopInto moves up to k of the oldest elements, oldest first, to the end of
// dst and returns the extended slice. It shrinks like Pop.
func (r *ring[E]) PopInto(dst []E, k int) []E {
	k = min(k, r.n)
	var zero E
	for range k {
		dst = append(dst, r.buf[r.head])
		r.buf[r.head] = zero
		r.head = (r.head + 1) & (len(r.buf) - 1)
	}
	r.n -= k
	r.shrink()
	return dst
}

// shrink halves the capacity, never below min, while the elements fill at
// most a quarter of it. Growing at full and shrinking at a quarter keeps a
// ring that hovers around one size from resizing back and forth.
func (r *ring[E]) shrink() {
	c := len(r.buf)
	for c > r.min && r.n <= c/4 {
		c /= 2
	}
	if c != len(r.buf) {
		r.resize(c)
	}
}

// Reserve makes room for at least k more elements without further growth.
func (r *ring[E]) Reserve(k int) {
	if need := r.n + k; need > len(r.buf) {
		r.resize(max(r.min, ceilPow2(need)))
	}
}

// Reset drops every element and the backing array.
func (r *ring[E]) Reset() {
	r.buf, r.head, r.n = nil, 0, 0
}

// resize moves the elements, oldest first, into a new array of size c.
// c must be a power of two >= r.n.
func (r *ring[E]) resize(c int) {
	nb := make([]E, c)
	if r.n > 0 {
		// The window may wrap: copy the part up to the end of buf, then
		// the part from its start.
		k := copy(nb, r.buf[r.head:min(r.head+r.n, len(r.buf))])
		copy(nb[k:], r.buf[:r.n-k])
	}
	r.buf, r.head = nb, 0
}
