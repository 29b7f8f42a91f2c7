package bench

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// APIRow is one variant's medians over its samples.
type APIRow struct {
	Variant          string
	Samples          int
	Requests         int64
	Wall, CPU        time.Duration
	ServerCPU        time.Duration
	EtcdCPU          time.Duration
	ClientPeakRSS    uint64
	HeapLive         uint64
	ServerPeakGrowth uint64
}

// Median returns the median of xs (the mean of the two middle values for
// an even count); zero for none.
func Median[T ~int64 | ~uint64](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return s[m-1] + (s[m]-s[m-1])/2
}

// SummarizeAPI returns one row per variant, in the order variants first
// appear in samples, each field the median of that variant's samples.
func SummarizeAPI(samples []APISample) []APIRow {
	var order []string
	by := map[string][]APISample{}
	for _, s := range samples {
		if _, ok := by[s.Variant]; !ok {
			order = append(order, s.Variant)
		}
		by[s.Variant] = append(by[s.Variant], s)
	}
	rows := make([]APIRow, 0, len(order))
	for _, name := range order {
		ss := by[name]
		med := func(f func(APISample) int64) int64 {
			xs := make([]int64, len(ss))
			for i, s := range ss {
				xs[i] = f(s)
			}
			return Median(xs)
		}
		rows = append(rows, APIRow{
			Variant: name, Samples: len(ss),
			Requests:         med(func(s APISample) int64 { return s.Requests }),
			Wall:             time.Duration(med(func(s APISample) int64 { return int64(s.Wall) })),
			CPU:              time.Duration(med(func(s APISample) int64 { return int64(s.CPU) })),
			ServerCPU:        time.Duration(med(func(s APISample) int64 { return int64(s.ServerCPU) })),
			EtcdCPU:          time.Duration(med(func(s APISample) int64 { return int64(s.EtcdCPU) })),
			ClientPeakRSS:    uint64(med(func(s APISample) int64 { return int64(s.ClientPeakRSS) })),
			HeapLive:         uint64(med(func(s APISample) int64 { return int64(s.HeapLive) })),
			ServerPeakGrowth: uint64(med(func(s APISample) int64 { return int64(s.ServerPeakGrowth) })),
		})
	}
	return rows
}

// APITable renders rows as a Markdown table, with the wall, client CPU
// and client peak RSS of each row over those of the row named baseline
// (blank when it is missing).
func APITable(rows []APIRow, baseline string) string {
	var base *APIRow
	for i := range rows {
		if rows[i].Variant == baseline {
			base = &rows[i]
		}
	}
	ratio := func(a, b float64) string {
		if base == nil || b <= 0 {
			return ""
		}
		return fmt.Sprintf("%.2f", a/b)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| variant | n | requests | wall s | client CPU s | wall / %[1]s | CPU / %[1]s | apiserver CPU s | etcd CPU s | client peak RSS MiB | RSS / %[1]s | client live heap MiB | apiserver RSS rise MiB |\n", baseline)
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range rows {
		var rw, rc, rr string
		if base != nil {
			rw, rc = ratio(r.Wall.Seconds(), base.Wall.Seconds()), ratio(r.CPU.Seconds(), base.CPU.Seconds())
			rr = ratio(float64(r.ClientPeakRSS), float64(base.ClientPeakRSS))
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %.3f | %.3f | %s | %s | %.3f | %.3f | %.0f | %s | %.0f | %.0f |\n",
			r.Variant, r.Samples, r.Requests, r.Wall.Seconds(), r.CPU.Seconds(), rw, rc,
			r.ServerCPU.Seconds(), r.EtcdCPU.Seconds(), float64(r.ClientPeakRSS)/(1<<20), rr,
			float64(r.HeapLive)/(1<<20), float64(r.ServerPeakGrowth)/(1<<20))
	}
	return b.String()
}
