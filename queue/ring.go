package queue

// ring is a FIFO of keys in a circular buffer whose capacity is a power of
// two. It grows by doubling and gives memory back after a flood has drained,
// so a queue that once held a million keys does not keep their slots forever.
type ring[K any] struct {
	// buf holds the keys buf[head], buf[head+1], ... (mod len(buf)), n of them.
	// Invariant: len(buf) is 0 or a power of two, and n ≤ len(buf). Slots
	// outside the n live ones hold the zero K, so popped keys can be collected.
	buf  []K
	head int
	n    int
}

// minRing is the capacity a ring starts with and never shrinks below.
const minRing = 16

func (r *ring[K]) len() int { return r.n }

func (r *ring[K]) push(k K) {
	if r.n == len(r.buf) {
		r.resize(max(minRing, 2*len(r.buf)))
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = k
	r.n++
}

func (r *ring[K]) pop() (K, bool) {
	var zero K
	if r.n == 0 {
		return zero, false
	}
	k := r.buf[r.head]
	r.buf[r.head] = zero
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	// Shrink only well below a quarter full, so that a ring oscillating
	// around one size does not reallocate on every push and pop.
	if c := len(r.buf); c > 64*minRing && r.n < c/8 {
		r.resize(c / 4)
	}
	return k, true
}

// resize moves the live keys, in order, to a buffer of capacity c ≥ n.
func (r *ring[K]) resize(c int) {
	buf := make([]K, c)
	if r.n > 0 {
		tail := min(r.n, len(r.buf)-r.head)
		copy(buf, r.buf[r.head:r.head+tail])
		copy(buf[tail:], r.buf[:r.n-tail])
	}
	r.buf, r.head = buf, 0
}
