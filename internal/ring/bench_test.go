package ring_test

import (
	"testing"

	"github.com/kcmlab/kcm/internal/ring"
)

// BenchmarkPushPop: one Push and one Pop at a steady depth of 100.
func BenchmarkPushPop(b *testing.B) {
	var r ring.Ring[string]
	for range 100 {
		r.Push("ns/name")
	}
	b.ReportAllocs()
	for b.Loop() {
		r.Push("ns/name")
		r.Pop()
	}
}

// BenchmarkPushPopInto: 64 Pushes and one PopInto of 64, per op.
func BenchmarkPushPopInto(b *testing.B) {
	var r ring.Ring[string]
	dst := make([]string, 64)
	b.ReportAllocs()
	for b.Loop() {
		for range 64 {
			r.Push("ns/name")
		}
		r.PopInto(dst)
	}
}

// BenchmarkBurst: grow from empty to 100 000 elements and drain them one
// Pop at a time, so every growth and shrink is paid for.
func BenchmarkBurst(b *testing.B) {
	var r ring.Ring[string]
	b.ReportAllocs()
	for b.Loop() {
		for range 100_000 {
			r.Push("ns/name")
		}
		for r.Len() > 0 {
			r.Pop()
		}
	}
}
