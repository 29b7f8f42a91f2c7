package rest_test

import (
	"bytes"
	"syscall"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// The decode half of a LIST: podgen's realistic pods streamed through
// DecodeList with each codec the informers use. Reported per pod, in wall
// time and in CPU time of the whole process (GC included): on a shared
// machine the second is the steadier figure.

// processCPU returns the CPU time (user + system) the process used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchDecodeList[T api.Object](b *testing.B, codec decode.Codec[T]) {
	const n = 5000
	body := podgen.List(n, "1")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	for range b.N {
		got := 0
		if _, err := rest.DecodeList(bytes.NewReader(body), codec, func(T) error { got++; return nil }); err != nil || got != n {
			b.Fatalf("%d items, %v", got, err)
		}
	}
	b.ReportMetric(float64((processCPU()-cpu).Nanoseconds())/float64(b.N*n), "cpu-ns/pod")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/pod")
}

func BenchmarkDecodeList(b *testing.B) {
	b.Run("raw", func(b *testing.B) { benchDecodeList(b, decode.Raw()) })
	b.Run("raw-stripped", func(b *testing.B) { benchDecodeList(b, decode.StrippingManagedFields(decode.Raw())) })
	b.Run("typed", func(b *testing.B) { benchDecodeList(b, decode.Typed[api.Pod]()) })
	b.Run("typed-stripped", func(b *testing.B) {
		benchDecodeList(b, decode.StrippingManagedFields(decode.Typed[api.Pod]()))
	})
	// What informer.For decodes a LIST with: compact pods, each compared
	// with the cached version of itself (none during a first LIST).
	b.Run("compact-cached-stripped", func(b *testing.B) {
		benchDecodeList(b, decode.StrippingManagedFields(decode.CompactCached[api.Pod](func(string, string) (*api.Pod, bool) { return nil, false })))
	})
}
