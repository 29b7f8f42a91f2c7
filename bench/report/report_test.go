package report_test

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/bench/report"
)

func load(t *testing.T) *report.Set {
	t.Helper()
	f, err := os.Open("testdata/run.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := report.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParse(t *testing.T) {
	s := load(t)
	if got := s.Header["cpu"]; got != "Example CPU @ 2.0GHz" {
		t.Errorf("cpu header = %q", got)
	}
	tests := []struct {
		name  string
		procs int
		unit  string
		want  float64
	}{
		{"Sync/pods=1000/kcm", 2, "ns/op", 1e8},
		{"Sync/pods=1000/kcm-typed", 2, "allocs/op", 443793},
		// The result printed after client-go's log line still counts.
		{"Sync/pods=1000/client-go", 2, "cpu-ms/op", 150},
		// No -P suffix: GOMAXPROCS 1; three runs: the median.
		{"StoreRead/Get/kcm", 1, "ns/op", 60},
		{"StoreRead/Get/kcm", 2, "ns/op", 40},
	}
	for _, tc := range tests {
		got, ok := s.Median(tc.name, tc.procs, tc.unit)
		if !ok || got != tc.want {
			t.Errorf("Median(%s, %d, %s) = %v, %v; want %v", tc.name, tc.procs, tc.unit, got, ok, tc.want)
		}
	}
	if _, ok := s.Median("Sync/pods=1000/kcm", 1, "ns/op"); ok {
		t.Error("found a GOMAXPROCS 1 result that was not run")
	}
	if got := s.Params("Sync/", "pods"); len(got) != 1 || got[0] != 1000 {
		t.Errorf("Params(Sync/, pods) = %v", got)
	}
	if got := s.Procs("StoreRead/"); len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("Procs(StoreRead/) = %v", got)
	}
}

func TestParseRejectsBrokenLine(t *testing.T) {
	_, err := report.Parse(strings.NewReader("BenchmarkX-2 \t 10\t 12 ns/op\t 3\n"))
	if err == nil {
		t.Fatal("a result whose values and units do not pair up parsed")
	}
}

func find(t *testing.T, rows []report.Row, figure string) report.Row {
	t.Helper()
	for _, r := range rows {
		if r.Figure == figure {
			return r
		}
	}
	t.Fatalf("no row %q", figure)
	return report.Row{}
}

func TestRows(t *testing.T) {
	rows := report.Rows(load(t))
	tests := []struct {
		figure      string
		kcm         float64
		ratio       float64 // NaN: none
		ratioStrip  float64
		verdict     string
		targetMatch string
	}{
		// 0.1 s against 0.3 s: 0.33, not the 0.2 the design asks.
		{"sync 1000 pods: wall", 0.1, 1.0 / 3, 0.25, "missed", "≤ 0.2"},
		{"sync 1000 pods: wall (kcm-typed)", 0.15, 0.5, 0.375, "missed", "≤ 0.2"},
		{"watch 20000 events over 10000 pods", 10000, 5, math.NaN(), "missed", "≥ 8"},
		{"watch: CPU per event", 80, 0.2, math.NaN(), "missed", "≤ 0.125"},
		// Heap is judged against client-go with the strip transform.
		{"heap per pod, 1000 pods", 5000, math.NaN(), 0.5, "missed", "strip ≤ 0.4"},
		// After the updates: RawObject against ≤ 0.4, typed against ≤ 0.5.
		{"heap per pod, 10000 pods, after 20000 updates (every 2nd relabels)", 3000, math.NaN(), 0.375, "met", "strip ≤ 0.4"},
		{"heap per pod, 10000 pods, after 20000 updates (every 2nd relabels) (kcm-typed)", 5000, math.NaN(), 0.625, "missed", "strip ≤ 0.5"},
		{"heap per pod, 10000 pods, synced before those updates (kcm-typed)", 4000, math.NaN(), 0.5, "met", "strip ≤ 0.5"},
		{"peak/steady live heap, 1000 pods", 1.091, math.NaN(), 1.091 / 2.074, "met", "kcm ≤ 1.3"},
		// 1e9/60 ns at 1 proc has no target; at 2 procs 200/40 = 5×.
		{"store Get under writes, 1 procs", 1e9 / 60, math.NaN(), math.NaN(), "", ""},
		{"store Get under writes, 2 procs", 1e9 / 40, 5, math.NaN(), "met", "≥ 1.5"},
		{"writer rate kept with 16 readers, 2 procs", 0.5, 0.5 / 0.1, math.NaN(), "missed", "kcm ≥ 0.8"},
		{"AddAfter (repeat keys) allocs, 2 procs", 0, 0, math.NaN(), "met", "kcm ≤ 1"},
	}
	for _, tc := range tests {
		r := find(t, rows, tc.figure)
		if !close(r.Values[report.KCM], tc.kcm) {
			t.Errorf("%s: kcm = %v, want %v", tc.figure, r.Values[report.KCM], tc.kcm)
		}
		if !close(r.Ratio, tc.ratio) || !close(r.RatioStrip, tc.ratioStrip) {
			t.Errorf("%s: ratios = %v, %v; want %v, %v", tc.figure, r.Ratio, r.RatioStrip, tc.ratio, tc.ratioStrip)
		}
		if r.Verdict != tc.verdict || !strings.Contains(r.Target, tc.targetMatch) {
			t.Errorf("%s: target %q verdict %q; want target with %q, verdict %q",
				tc.figure, r.Target, r.Verdict, tc.targetMatch, tc.verdict)
		}
	}
	for _, r := range rows {
		if _, ok := r.Values[report.KCM]; !ok {
			t.Errorf("row %q has no kcm value", r.Figure)
		}
	}
}

func close(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-4*math.Max(1, math.Abs(b))
}

func TestNum(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{{0, "0.00"}, {0.0123, "0.012"}, {1.5, "1.50"}, {42.42, "42.4"}, {512, "512"}, {12345, "12.3k"},
		{123456, "123k"}, {1234567, "1.23M"}, {12345678, "12.3M"}} {
		if got := report.Num(tc.v); got != tc.want {
			t.Errorf("Num(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
