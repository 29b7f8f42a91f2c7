package kube_test

import (
	"bytes"
	"syscall"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/podgen"
	"github.com/kcmlab/kcm/kube"
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

func benchDecodeList[T kube.Object](b *testing.B, codec kube.Codec[T]) {
	const n = 5000
	body := podgen.List(n, "1")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	for range b.N {
		got := 0
		if _, err := kube.DecodeList(bytes.NewReader(body), codec, func(T) error { got++; return nil }); err != nil || got != n {
			b.Fatalf("%d items, %v", got, err)
		}
	}
	b.ReportMetric(float64((processCPU()-cpu).Nanoseconds())/float64(b.N*n), "cpu-ns/pod")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/pod")
}

func BenchmarkDecodeList(b *testing.B) {
	b.Run("raw", func(b *testing.B) { benchDecodeList(b, kube.Raw()) })
	b.Run("raw-stripped", func(b *testing.B) { benchDecodeList(b, kube.StrippingManagedFields(kube.Raw())) })
	b.Run("typed", func(b *testing.B) { benchDecodeList(b, kube.Typed[kube.Pod]()) })
	b.Run("typed-stripped", func(b *testing.B) {
		benchDecodeList(b, kube.StrippingManagedFields(kube.Typed[kube.Pod]()))
	})
}

// BenchmarkDecode isolates the codecs from the list framing.
func BenchmarkDecode(b *testing.B) {
	pod := podgen.Pod(4)
	run := func(name string, dec func([]byte) error) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := processCPU()
			for range b.N {
				if err := dec(pod); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((processCPU()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
	raw, typed := kube.StrippingManagedFields(kube.Raw()), kube.StrippingManagedFields(kube.Typed[kube.Pod]())
	run("strip", func(d []byte) error { _, err := kube.StripManagedFields(d); return err })
	run("raw-stripped", func(d []byte) error { _, err := raw.Decode(d); return err })
	run("typed-stripped", func(d []byte) error { _, err := typed.Decode(d); return err })
}
