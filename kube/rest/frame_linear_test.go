package rest

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// frChunked hands out r's bytes at most n at a time, as a network
// connection does.
type frChunked struct {
	r io.Reader
	n int
}

func (c frChunked) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// frBigObject is one JSON object of about size bytes: a long string, many
// small members and nested containers, so that every state of the scanner
// is cut by reads.
func frBigObject(size int) string {
	var b strings.Builder
	b.WriteString(`{"kind":"ConfigMap","data":{`)
	for i := 0; b.Len() < size/2; i++ {
		fmt.Fprintf(&b, `"k%d":"v\"%d\\","n%d":[%d,{"x":null}],`, i, i, i, i)
	}
	b.WriteString(`"big":"`)
	b.WriteString(strings.Repeat("a", size-b.Len()))
	b.WriteString(`"}}`)
	return b.String()
}

// TestFrameScanIsLinear: finding where a value ends must cost one pass over
// its bytes however the reads cut it. A scanner that starts again from the
// value's first byte after every read costs O(size²/read size): 4 s of CPU
// for one 16 MiB object, a minute for a 64 MiB frame that never closes.
func TestFrameScanIsLinear(t *testing.T) {
	for _, size := range []int{64 << 10, 1 << 20} {
		for _, chunk := range []int{1, 7, 512, 32 << 10} {
			if chunk == 1 && size > 64<<10 {
				continue
			}
			obj := frBigObject(size)
			fr := newFrameReader(frChunked{strings.NewReader(obj + " " + obj), chunk}, 4<<10)
			for i := range 2 {
				v, err := fr.value(true)
				if err != nil || string(v) != obj {
					t.Fatalf("size %d chunk %d: value %d: %d bytes, %v", size, chunk, i, len(v), err)
				}
			}
			if limit := 2*2*len(obj) + 64; fr.scanned > limit {
				t.Errorf("size %d, reads of %d bytes: scanned %d bytes for two values of %d, want at most %d",
					size, chunk, fr.scanned, len(obj), limit)
			}
		}
	}
}

// BenchmarkFrameLargeObject reads one object of 1 to 60 MiB arriving in
// 32 KiB reads (maxFrame is 64 MiB) and reports the time per MiB, which
// must stay flat as the object grows.
func BenchmarkFrameLargeObject(b *testing.B) {
	for _, mib := range []int{1, 4, 16, 60} {
		obj := frBigObject(mib << 20)
		b.Run(fmt.Sprintf("%dMiB", mib), func(b *testing.B) {
			b.SetBytes(int64(len(obj)))
			for b.Loop() {
				fr := newFrameReader(frChunked{strings.NewReader(obj), 32 << 10}, 32<<10)
				if v, err := fr.value(true); err != nil || len(v) != len(obj) {
					b.Fatalf("%d bytes, %v", len(v), err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(mib)/1e6, "ms/MiB")
		})
	}
}
