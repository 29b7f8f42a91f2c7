package bench_test

import (
	"bytes"
	"fmt"

	"github.com/kcmlab/kcm/bench"
	"github.com/kcmlab/kcm/internal/testing/podgen"
)

// The floor scans the bytes an engine reads, once, keeping nothing.
func ExampleScanList() {
	n, err := bench.ScanList(bytes.NewReader(podgen.List(3, "7")))
	fmt.Println(n, err)
	err = bench.ScanEvents(bytes.NewReader(podgen.WatchEvents(3, 5, 7)), 5, nil)
	fmt.Println(err)
	// Output:
	// 3 <nil>
	// <nil>
}

// Pod counts for the sync and heap benchmarks, as KCM_BENCH_SIZES takes them.
func ExampleParseSizes() {
	fmt.Println(bench.ParseSizes("1000, 10k,50k"))
	fmt.Println(bench.ParseSizes("0"))
	// Output:
	// [1000 10000 50000] <nil>
	// [] KCM_BENCH_SIZES: "0" is not a positive count
}
