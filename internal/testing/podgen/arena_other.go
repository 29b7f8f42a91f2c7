//go:build !unix

package podgen

// offHeap falls back to the Go heap where anonymous mappings are not
// available; see arena_unix.go.
func offHeap(n int) ([]byte, func()) { return make([]byte, n), func() {} }
