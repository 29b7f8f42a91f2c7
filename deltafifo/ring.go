package deltafifo

// ring is a FIFO of elements in a circular buffer whose capacity is a power
// of two. It grows by doubling and shrinks again once a burst has drained, so
// the queue of a 50k-item initial list does not keep 50k slots forever.
type ring[E any] struct {
	// buf holds the live elements buf[head], buf[head+1], ... (mod len(buf)),
	// n of them. Invariant: len(buf) is 0 or a power of two and n ≤ len(buf);
	// slots outside the live ones hold the zero E, so consumed objects can be
	// garbage collected.
	buf  []E
	head int
	n    int
}

const (
	// minRing is the capacity a ring starts with.
	minRing = 16
	// keepRing is the capacity up to which a ring never shrinks.
	keepRing = 1024
)

func (r *ring[E]) len() int { return r.n }

// push appends e at the back.
func (r *ring[E]) push(e E) {
	if r.n == len(r.buf) {
		r.resize(max(minRing, 2*len(r.buf)))
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = e
	r.n++
}

// at returns the i-th oldest element (0 ≤ i < n), to read or overwrite.
func (r *ring[E]) at(i int) *E {
	return &r.buf[(r.head+i)&(len(r.buf)-1)]
}

// popInto moves the min(len(dst), n) oldest elements into dst, in order, and
// returns how many it moved.
func (r *ring[E]) popInto(dst []E) int {
	k := min(len(dst), r.n)
	var zero E
	for i := 0; i < k; i++ {
		j := (r.head + i) & (len(r.buf) - 1)
		dst[i] = r.buf[j]
		r.buf[j] = zero
	}
	if k > 0 {
		r.head = (r.head + k) & (len(r.buf) - 1)
		r.n -= k
		r.maybeShrink()
	}
	return k
}

// maybeShrink gives memory back well below a quarter full, so that a ring
// oscillating around one size does not reallocate on every push and pop.
func (r *ring[E]) maybeShrink() {
	for c := len(r.buf); c > keepRing && r.n < c/8; c = len(r.buf) {
		r.resize(c / 4)
	}
}

// resize moves the live elements, in order, to a buffer of capacity c ≥ n.
func (r *ring[E]) resize(c int) {
	buf := make([]E, c)
	if r.n > 0 {
		tail := min(r.n, len(r.buf)-r.head)
		copy(buf, r.buf[r.head:r.head+tail])
		copy(buf[tail:], r.buf[:r.n-tail])
	}
	r.buf, r.head = buf, 0
}

// capacity is len(buf), for tests and memory accounting.
func (r *ring[E]) capacity() int { return len(r.buf) }
