package ring_test

import (
	"fmt"

	"github.com/kcmlab/kcm/internal/ring"
)

// A ring is a FIFO: the zero value is ready, Push appends, Pop and PopInto
// take the oldest elements, and At reaches any element in place.
func Example() {
	var r ring.Ring[string]
	for _, k := range []string{"ns/a", "ns/b", "ns/c", "ns/d"} {
		r.Push(k)
	}
	first, _ := r.Pop()
	*r.At(0) = "ns/B" // replace ns/b where it waits

	batch := make([]string, 2)
	n := r.PopInto(batch)
	fmt.Println(first, batch[:n], r.Len(), r.Cap())

	// A burst grows the ring; draining it gives the memory back, down to
	// KeepCap.
	for i := range 100_000 {
		r.Push(fmt.Sprint(i))
	}
	grown := r.Cap()
	for r.Len() > 0 {
		r.Pop()
	}
	fmt.Println(grown, r.Cap())
	// Output:
	// ns/a [ns/B ns/c] 1 16
	// 131072 1024
}
