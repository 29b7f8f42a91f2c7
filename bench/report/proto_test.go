package report_test

import (
	"math"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/bench/report"
)

// The protobuf prototype's rows read BenchmarkProtoDecodePod and
// BenchmarkProtoHeap: each pairs two of its decoders, with no target.
func TestProtoRows(t *testing.T) {
	s, err := report.Parse(strings.NewReader(`BenchmarkProtoDecodePod/protowire-scan-2  20000  3000 ns/op  3000 cpu-ns/op  2000 B/op  3 allocs/op
BenchmarkProtoDecodePod/kcm-json-raw-2    20000  9000 ns/op  9000 cpu-ns/op  2600 B/op  38 allocs/op
BenchmarkProtoDecodePod/client-go-proto-2 20000 12000 ns/op 12000 cpu-ns/op 11000 B/op 148 allocs/op
BenchmarkProtoDecodePod/client-go-json-2  20000 90000 ns/op 90000 cpu-ns/op 15000 B/op 218 allocs/op
BenchmarkProtoHeap/protowire-scan-2   3  1 ns/op  2000 B/pod
BenchmarkProtoHeap/protowire-family-2 3  1 ns/op  1000 B/pod
BenchmarkProtoHeap/kcm-json-raw-2     3  1 ns/op  1600 B/pod
BenchmarkProtoHeap/client-go-proto-2  3  1 ns/op  8000 B/pod
BenchmarkProtoHeap/client-go-json-2   3  1 ns/op  8000 B/pod
`))
	if err != nil {
		t.Fatal(err)
	}
	rows := report.Rows(s)
	for _, tc := range []struct {
		figure   string
		kcm, rat float64
	}{
		{"pod decode CPU, protobuf (kcm: protowire scan; client-go: protobuf Unmarshal)", 3000, 0.25},
		{"pod decode allocations, JSON (kcm: RawObject codec; client-go: JSON decode)", 38, 38.0 / 218},
		{"pod decode CPU, protowire scan (kcm) vs kcm's JSON RawObject (client-go column)", 3000, 1.0 / 3},
		{"heap per decoded pod, protowire (kcm) vs kcm's JSON RawObject (client-go column)", 2000, 1.25},
		{"heap per decoded pod, protowire with family deltas (kcm) vs kcm's JSON RawObject (client-go column)", 1000, 0.625},
	} {
		r := find(t, rows, tc.figure)
		if !close(r.Values[report.KCM], tc.kcm) || !close(r.Ratio, tc.rat) || r.Verdict != "" || !math.IsNaN(r.RatioStrip) {
			t.Errorf("%s: kcm %v, ratio %v, verdict %q; want %v, %v, no verdict", tc.figure, r.Values[report.KCM], r.Ratio, r.Verdict, tc.kcm, tc.rat)
		}
	}
}
