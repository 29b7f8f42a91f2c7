package report_test

import (
	"os"
	"strings"

	"github.com/kcmlab/kcm/bench/report"
)

// Parse benchmark output and print the table.
func Example() {
	out := `cpu: Example CPU
BenchmarkSync/pods=1000/kcm-2          10   100000000 ns/op   80.0 cpu-ms/op
BenchmarkSync/pods=1000/client-go-2     4   300000000 ns/op  150.0 cpu-ms/op
BenchmarkSync/pods=1000/floor-2        40    40000000 ns/op   30.0 cpu-ms/op
`
	s, err := report.Parse(strings.NewReader(out))
	if err != nil {
		panic(err)
	}
	_ = report.Markdown(os.Stdout, report.Rows(s))
	// Output:
	// | figure | unit | kcm | client-go | client-go+strip | floor | floor (read only) | kcm/client-go | kcm/client-go+strip | target | verdict |
	// |---|---|--:|--:|--:|--:|--:|--:|--:|---|---|
	// | sync 1000 pods: wall | s | 0.100 | 0.300 |  | 0.040 |  | 0.33 |  | kcm/client-go ≤ 0.2 | missed |
	// | sync 1000 pods: CPU | s | 0.080 | 0.150 |  | 0.030 |  | 0.53 |  | kcm/client-go ≤ 0.2 | missed |
}
