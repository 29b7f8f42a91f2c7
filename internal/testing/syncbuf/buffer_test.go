package syncbuf_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/kcmlab/kcm/internal/testing/syncbuf"
)

func Example() {
	var log syncbuf.Buffer
	fmt.Fprintln(&log, "first")
	fmt.Fprintln(&log, "second")
	fmt.Printf("%q\n", log.Lines())
	// Output: ["first" "second"]
}

// Concurrent writers lose nothing and never interleave within one write
// (run with -race).
func TestConcurrentWriters(t *testing.T) {
	var log syncbuf.Buffer
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 100 {
				fmt.Fprintf(&log, "writer %d line %d\n", w, i)
			}
		})
	}
	wg.Wait()
	lines := log.Lines()
	if len(lines) != 800 {
		t.Fatalf("%d lines, want 800", len(lines))
	}
	for _, l := range lines {
		var w, i int
		if n, err := fmt.Sscanf(l, "writer %d line %d", &w, &i); n != 2 || err != nil {
			t.Fatalf("torn line %q", l)
		}
	}
	if got := (&syncbuf.Buffer{}).Lines(); got != nil {
		t.Fatalf("empty buffer: Lines() = %q, want nil", got)
	}
}
