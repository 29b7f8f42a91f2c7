package report_test

import (
	"strings"
	"testing"

	"github.com/kcmlab/kcm/bench/report"
)

// The lister rows read BenchmarkLister: kcm (raw) and kcm-typed against
// client-go, ns/op judged against kcm/client-go ≤ 1, allocs/op shown
// without a target.
func TestListerRows(t *testing.T) {
	s, err := report.Parse(strings.NewReader(`BenchmarkLister/All/kcm-2         	  1000	      5000 ns/op	  1816 B/op	       3 allocs/op
BenchmarkLister/All/kcm-typed-2   	  1000	     20000 ns/op	  1816 B/op	       3 allocs/op
BenchmarkLister/All/client-go-2   	  1000	     10000 ns/op	168312 B/op	      10 allocs/op
BenchmarkLister/Namespace/kcm-2   	  1000	      3000 ns/op	  1848 B/op	       4 allocs/op
BenchmarkLister/Namespace/client-go-2	  1000	      6000 ns/op	  3832 B/op	       7 allocs/op
`))
	if err != nil {
		t.Fatal(err)
	}
	rows := report.Rows(s)
	for _, tc := range []struct {
		figure   string
		kcm, rat float64
		verdict  string
	}{
		{"lister List(app=X) over all 10k pods", 5000, 0.5, "met"},
		{"lister List(app=X) over all 10k pods (kcm-typed)", 20000, 2, "missed"},
		{"lister List(app=X) over all 10k pods: allocations", 3, 0.3, ""},
		{"lister Pods(ns).List(app=Y), 50 namespaces", 3000, 0.5, "met"},
	} {
		r := find(t, rows, tc.figure)
		if !close(r.Values[report.KCM], tc.kcm) || !close(r.Ratio, tc.rat) || r.Verdict != tc.verdict {
			t.Errorf("%s: kcm %v, ratio %v, verdict %q; want %v, %v, %q", tc.figure, r.Values[report.KCM], r.Ratio, r.Verdict,
				tc.kcm, tc.rat, tc.verdict)
		}
	}
}
