//go:build unix

package podgen

import "syscall"

// offHeap returns n bytes outside the Go heap (an anonymous private
// mapping) and the function that returns them to the system. The Server
// keeps its pre-encoded responses there, so that heap measurements and the
// garbage collector's pacing in a benchmark see only the client under test.
func offHeap(n int) ([]byte, func()) {
	if n == 0 {
		return nil, func() {}
	}
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n), func() {}
	}
	return b, func() { _ = syscall.Munmap(b) }
}
