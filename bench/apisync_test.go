package bench_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/bench"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []int64
		want int64
	}{{nil, 0}, {[]int64{5}, 5}, {[]int64{9, 1, 5}, 5}, {[]int64{4, 1, 3, 2}, 2}, {[]int64{10, 20}, 15}} {
		if got := bench.Median(tc.xs); got != tc.want {
			t.Errorf("Median(%v) = %d, want %d", tc.xs, got, tc.want)
		}
	}
}

func sample(variant string, round int, wall, cpu time.Duration) bench.APISample {
	return bench.APISample{Round: round, SyncSample: bench.SyncSample{Variant: variant, Wall: wall, CPU: cpu, Requests: 1},
		ClientPeakRSS: uint64(cpu / time.Millisecond << 20)} // RSS in MiB = CPU in ms, for the ratio
}

// Rows keep the order in which variants first appear and hold the median
// of each figure; the table divides by the baseline's medians.
func TestSummarizeAndTable(t *testing.T) {
	ms := time.Millisecond
	samples := []bench.APISample{
		sample("client-go", 0, 1000*ms, 2000*ms), sample("kcm/x", 0, 700*ms, 800*ms),
		sample("kcm/x", 1, 300*ms, 600*ms), sample("client-go", 1, 800*ms, 2200*ms),
		sample("client-go", 2, 900*ms, 2100*ms), sample("kcm/x", 2, 500*ms, 700*ms),
	}
	rows := bench.SummarizeAPI(samples)
	if len(rows) != 2 || rows[0].Variant != "client-go" || rows[1].Variant != "kcm/x" {
		t.Fatalf("rows %+v", rows)
	}
	if r := rows[1]; r.Samples != 3 || r.Wall != 500*ms || r.CPU != 700*ms {
		t.Fatalf("kcm/x row %+v, want 3 samples, wall 500ms, CPU 700ms", r)
	}
	table := bench.APITable(rows, bench.ClientGo)
	if !strings.Contains(table, "| kcm/x | 3 | 1 | 0.500 | 0.700 | 0.56 | 0.33 | 0.000 | 0.000 | 700 | 0.33 |") {
		t.Fatalf("table:\n%s", table)
	}
	if strings.Count(table, "\n") != 4 {
		t.Fatalf("table has %d lines, want header, rule and two rows:\n%s", strings.Count(table, "\n"), table)
	}
}

func TestShapeFor(t *testing.T) {
	for _, tc := range []struct {
		pods int
		want bench.Shape
		err  bool
	}{
		{20000, bench.Shape{Namespaces: 5, Deployments: 4, Replicas: 1000}, false},
		{3000, bench.Shape{Namespaces: 3, Deployments: 1, Replicas: 1000}, false},
		{200, bench.Shape{Namespaces: 1, Deployments: 1, Replicas: 200}, false},
		{1500, bench.Shape{}, true},
		{0, bench.Shape{}, true},
	} {
		got, err := bench.ShapeFor(tc.pods)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ShapeFor(%d) = %+v, %v; want %+v (error %v)", tc.pods, got, err, tc.want, tc.err)
		}
		if err == nil && got.Pods() != tc.pods {
			t.Errorf("ShapeFor(%d) makes %d pods", tc.pods, got.Pods())
		}
	}
}

func TestLookupAPIVariants(t *testing.T) {
	all, err := bench.LookupAPIVariants("")
	if err != nil || len(all) != len(bench.APIVariants) || all[0].Name != bench.ClientGo {
		t.Fatalf("all variants: %v, %v", all, err)
	}
	two, err := bench.LookupAPIVariants("kcm/from-cache, client-go")
	if err != nil || len(two) != 2 || two[0].Name != "kcm/from-cache" || two[1].Name != "client-go" {
		t.Fatalf("two variants: %v, %v", two, err)
	}
	if _, err := bench.LookupAPIVariants("kcm/nope"); err == nil {
		t.Fatal("an unknown variant was accepted")
	}
}

func TestRunChildRefusesBadArguments(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"-variant", "kcm/from-cache", "-kubeconfig", "k"},
		{"-variant", "client-go,kcm/from-cache", "-kubeconfig", "k", "-pods", "3"},
		{"-variant", "kcm/nope", "-kubeconfig", "k", "-pods", "3"},
		{"-bogus"},
	} {
		var out strings.Builder
		if err := bench.RunChild(args, &out); err == nil || out.Len() != 0 {
			t.Errorf("%q: err %v, output %q; want an error and no output", args, err, out.String())
		}
	}
}

// What each variant of issue 34's pair claims to measure, which SyncOnce
// checks against the cache it filled.
func TestProtobufVariants(t *testing.T) {
	for _, tc := range []struct {
		name  string
		wire  string
		strip bool
	}{
		{"client-go", bench.WireJSON, false},
		{"client-go/protobuf", bench.WireProtobuf, false},
		{"client-go/protobuf-strip", bench.WireProtobuf, true},
		{"kcm/default", bench.WireJSON, true},
		{"kcm/protobuf", bench.WireProtobuf, true},
		{"kcm/protobuf-families", bench.WireProtobuf, true},
		{"kcm-metadata/protobuf", bench.WireProtobuf, true},
	} {
		vs, err := bench.LookupAPIVariants(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if v := vs[0]; v.Wire() != tc.wire || v.StripsManagedFields() != tc.strip {
			t.Errorf("%s: wire %q, strips %v; want %q, %v", tc.name, v.Wire(), v.StripsManagedFields(), tc.wire, tc.strip)
		}
	}
}
