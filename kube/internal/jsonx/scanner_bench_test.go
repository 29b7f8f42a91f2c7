package jsonx

import (
	"os"
	"testing"
)

// BenchmarkScannerPod frames one pod as a list's item scanner does: the
// pod of testdata/pod.json (podgen's, managedFields included).
func BenchmarkScannerPod(b *testing.B) {
	d, err := os.ReadFile("testdata/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(d)))
	for range b.N {
		var s Scanner
		if _, err := s.Scan(d); err != nil {
			b.Fatal(err)
		}
	}
}
