package decode_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// processCPU returns the CPU time (user + system) the process used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
	raw, typed := decode.StrippingManagedFields(decode.Raw()), decode.StrippingManagedFields(decode.Typed[api.Pod]())
	run("strip", func(d []byte) error { _, err := decode.StripManagedFields(d); return err })
	run("raw-stripped", func(d []byte) error { _, err := raw.Decode(d); return err })
	run("typed-stripped", func(d []byte) error { _, err := typed.Decode(d); return err })
}
