package report

import (
	"fmt"
	"math"
)

// Engine names, as the benchmarks name their sub-benchmarks.
const (
	KCM           = "kcm"
	KCMTyped      = "kcm-typed"
	ClientGo      = "client-go"
	ClientGoStrip = "client-go-strip"
	Floor         = "floor"
	FloorRead     = "floor-read"
)

// Columns are the engines a row has a value for, in table order. The kcm
// column holds kcm-typed in the rows about the typed informer.
var Columns = []string{KCM, ClientGo, ClientGoStrip, Floor, FloorRead}

// Row is one figure of the table.
type Row struct {
	Figure string
	Unit   string
	// Values by column; a missing engine has no entry.
	Values map[string]float64
	// Ratio is kcm / client-go and RatioStrip kcm / client-go-strip, NaN
	// when either is missing.
	Ratio, RatioStrip float64
	// Target is the design target in words ("" when none applies) and
	// Verdict "met", "missed" or "" (no target, or no value to judge).
	Target, Verdict string
}

// target is a design target: its wording and its test on a row.
type target struct {
	text string
	// met reports whether r meets the target; ok is false when r lacks
	// the values to tell.
	met func(r Row) (met, ok bool)
}

var none = target{}

func ratioAtMost(limit float64) target {
	return target{fmt.Sprintf("kcm/client-go ≤ %g", limit), func(r Row) (bool, bool) {
		return r.Ratio <= limit, !math.IsNaN(r.Ratio)
	}}
}

func ratioAtLeast(limit float64) target {
	return target{fmt.Sprintf("kcm/client-go ≥ %g", limit), func(r Row) (bool, bool) {
		return r.Ratio >= limit, !math.IsNaN(r.Ratio)
	}}
}

func stripRatioAtMost(limit float64) target {
	return target{fmt.Sprintf("kcm/client-go-strip ≤ %g", limit), func(r Row) (bool, bool) {
		return r.RatioStrip <= limit, !math.IsNaN(r.RatioStrip)
	}}
}

func kcmAtMost(limit float64, text string) target {
	return target{text, func(r Row) (bool, bool) {
		v, ok := r.Values[KCM]
		return v <= limit, ok
	}}
}

func kcmAtLeast(limit float64, text string) target {
	return target{text, func(r Row) (bool, bool) {
		v, ok := r.Values[KCM]
		return v >= limit, ok
	}}
}

// valueFunc reads an engine's value for a row from a set.
type valueFunc func(s *Set, engine string) (float64, bool)

// metric reads unit of bench/<engine> at procs, scaled.
func metric(bench string, procs int, unit string, scale func(float64) float64) valueFunc {
	return func(s *Set, engine string) (float64, bool) {
		v, ok := s.Median(bench+"/"+engine, procs, unit)
		if !ok {
			return 0, false
		}
		if scale != nil {
			v = scale(v)
		}
		return v, true
	}
}

// row builds a row from one value per column. kcmEngine is the engine
// shown in the kcm column.
func row(s *Set, figure, unit, kcmEngine string, value valueFunc, t target) Row {
	r := Row{Figure: figure, Unit: unit, Values: map[string]float64{}, Target: t.text}
	for _, col := range Columns {
		engine := col
		if col == KCM {
			engine = kcmEngine
		}
		if v, ok := value(s, engine); ok {
			r.Values[col] = v
		}
	}
	r.Ratio = ratio(r.Values, KCM, ClientGo)
	r.RatioStrip = ratio(r.Values, KCM, ClientGoStrip)
	if t.met != nil {
		if met, ok := t.met(r); ok {
			r.Verdict = map[bool]string{true: "met", false: "missed"}[met]
		}
	}
	return r
}

func ratio(v map[string]float64, a, b string) float64 {
	x, okx := v[a]
	y, oky := v[b]
	if !okx || !oky || y == 0 {
		return math.NaN()
	}
	return x / y
}

// hasKCM reports whether r has a kcm value: a row without one is left out.
func hasKCM(r Row) bool {
	_, ok := r.Values[KCM]
	return ok
}

func seconds(ns float64) float64     { return ns / 1e9 }
func perSecond(nsop float64) float64 { return 1e9 / nsop }
func msToS(ms float64) float64       { return ms / 1000 }

// both appends the kcm row and the kcm-typed row of a figure.
func both(rows []Row, s *Set, figure, unit string, value valueFunc, t target) []Row {
	rows = append(rows, row(s, figure, unit, KCM, value, t))
	return append(rows, row(s, figure+" (kcm-typed)", unit, KCMTyped, value, t))
}

// Rows builds the table from a set: every figure the set has results for.
func Rows(s *Set) []Row {
	var rows []Row
	for _, n := range s.Params("Sync/", "pods") {
		b := fmt.Sprintf("Sync/pods=%d", n)
		p := procsOf(s, b)
		rows = both(rows, s, fmt.Sprintf("sync %d pods: wall", n), "s", metric(b, p, "ns/op", seconds), ratioAtMost(0.2))
		rows = both(rows, s, fmt.Sprintf("sync %d pods: CPU", n), "s", metric(b, p, "cpu-ms/op", msToS), ratioAtMost(0.2))
	}
	for _, n := range s.Params("Watch/", "events") {
		pods := s.Params("Watch/", "pods")
		if len(pods) == 0 {
			break
		}
		b := fmt.Sprintf("Watch/pods=%d/events=%d", pods[0], n)
		p := procsOf(s, b)
		rows = both(rows, s, fmt.Sprintf("watch %d events over %d pods", n, pods[0]), "events/s",
			metric(b, p, "events/s", nil), ratioAtLeast(8))
		perEvent := func(ms float64) float64 { return ms * 1000 / float64(n) }
		rows = both(rows, s, "watch: CPU per event", "µs", metric(b, p, "cpu-ms/op", perEvent), ratioAtMost(0.125))
	}
	for _, n := range s.Params("Heap/", "pods") {
		b := fmt.Sprintf("Heap/pods=%d", n)
		p := procsOf(s, b)
		rows = both(rows, s, fmt.Sprintf("heap per pod, %d pods", n), "B", metric(b, p, "B/pod", nil), stripRatioAtMost(0.4))
		rows = both(rows, s, fmt.Sprintf("peak/steady live heap, %d pods", n), "×", metric(b, p, "peak-live/steady", nil),
			kcmAtMost(1.3, "kcm ≤ 1.3"))
		rows = append(rows, row(s, fmt.Sprintf("peak/steady heap in use, %d pods", n), "×", KCM,
			metric(b, p, "peak-inuse/steady", nil), none))
	}
	rows = append(rows, heapUpdatedRows(s)...)
	rows = append(rows, storeRows(s)...)
	rows = append(rows, queueRows(s)...)
	rows = append(rows, listerRows(s)...)
	rows = append(rows, protoRows(s)...)
	out := rows[:0]
	for _, r := range rows {
		if hasKCM(r) {
			out = append(out, r)
		}
	}
	return out
}

// procsOf is the GOMAXPROCS the informer benchmark bench ran at (the
// highest, if several).
func procsOf(s *Set, bench string) int {
	ps := s.Procs(bench + "/")
	if len(ps) == 0 {
		return 1
	}
	return ps[len(ps)-1]
}

// storeTarget: reads under writes ≥ 1.5× client-go at 2 cores, ≥ 4× at 16.
func storeTarget(procs int) target {
	switch {
	case procs >= 16:
		return ratioAtLeast(4)
	case procs == 2:
		return ratioAtLeast(1.5)
	}
	return none
}

func storeRows(s *Set) []Row {
	var rows []Row
	for _, p := range s.Procs("StoreRead/") {
		for _, op := range []string{"Get", "ByNamespace", "ByLabel", "List"} {
			rows = append(rows, row(s, fmt.Sprintf("store %s under writes, %d procs", op, p), "reads/s", KCM,
				metric("StoreRead/"+op, p, "ns/op", perSecond), storeTarget(p)))
		}
	}
	for _, p := range s.Procs("StoreWriter/") {
		alone := metric("StoreWriter/readers=0", p, "writes/s", nil)
		rows = append(rows, row(s, fmt.Sprintf("writer alone, %d procs", p), "writes/s", KCM, alone, none))
		for _, r := range s.Params("StoreWriter/", "readers") {
			if r == 0 {
				continue
			}
			busy := metric(fmt.Sprintf("StoreWriter/readers=%d", r), p, "writes/s", nil)
			t := none
			if r >= 16 {
				t = kcmAtLeast(0.8, "kcm ≥ 0.8")
			}
			rows = append(rows,
				row(s, fmt.Sprintf("writer with %d readers, %d procs", r, p), "writes/s", KCM, busy, none),
				row(s, fmt.Sprintf("writer rate kept with %d readers, %d procs", r, p), "×", KCM,
					func(s *Set, e string) (float64, bool) {
						a, ok1 := alone(s, e)
						b, ok2 := busy(s, e)
						return b / a, ok1 && ok2 && a > 0
					}, t))
		}
	}
	return rows
}

// queueTarget: ≥ 2× client-go's throughput at 1, 2 and 16 cores (issue 13
// asks 1 and 2, the design card 16); cpu selects the form for a time per op
// (CPU, or AddAfter's ns/op): ≤ 0.5× client-go's.
func queueTarget(procs int, cpu bool) target {
	if procs > 2 && procs < 16 {
		return none
	}
	if cpu {
		return ratioAtMost(0.5)
	}
	return ratioAtLeast(2)
}

// queueShape is one queue benchmark of queueRows: its name, the figure's
// words, the unit of its rate and what its CPU row is per.
type queueShape struct{ bench, figure, unit, per string }

// queueRows: for each GOMAXPROCS value, each queue shape's rate and CPU per
// op (held to queueTarget), then AddAfter's time, CPU and allocations.
// Controller: 4 handler goroutines re-adding keys of 10 000 objects while
// 4 workers Get/Done them; Retry: the same with every 8th key retried with
// AddRateLimited.
func queueRows(s *Set) []Row {
	var rows []Row
	for _, p := range s.Procs("Queue/") {
		var shapes []queueShape
		for _, w := range s.Params("Queue/AddGetDone/", "workers") {
			shapes = append(shapes, queueShape{fmt.Sprintf("Queue/AddGetDone/workers=%d", w),
				fmt.Sprintf("queue Add/Get/Done, %d workers", w), "keys/s", "op"})
		}
		shapes = append(shapes,
			queueShape{"Queue/Parallel", "queue Add+Get+Done per goroutine", "cycles/s", "op"},
			queueShape{"Queue/Controller", "queue, 4 handlers over 10k keys, 4 workers", "adds/s", "add"},
			queueShape{"Queue/Retry", "queue with retries (1 in 8 AddRateLimited), 4 handlers, 4 workers", "adds/s", "add"})
		for _, sh := range shapes {
			rows = append(rows,
				row(s, fmt.Sprintf("%s, %d procs", sh.figure, p), sh.unit, KCM,
					metric(sh.bench, p, "ns/op", perSecond), queueTarget(p, false)),
				row(s, fmt.Sprintf("%s: CPU per %s, %d procs", sh.figure, sh.per, p), "ns", KCM,
					metric(sh.bench, p, "cpu-ns/op", nil), queueTarget(p, true)))
		}
		for _, mode := range []string{"new", "repeat"} {
			b := "Queue/AddAfter/" + mode
			rows = append(rows,
				row(s, fmt.Sprintf("AddAfter (%s keys), %d procs", mode, p), "ns/op", KCM, metric(b, p, "ns/op", nil), queueTarget(p, true)),
				row(s, fmt.Sprintf("AddAfter (%s keys): CPU per op, %d procs", mode, p), "ns", KCM,
					metric(b, p, "cpu-ns/op", nil), queueTarget(p, true)),
				row(s, fmt.Sprintf("AddAfter (%s keys) allocs, %d procs", mode, p), "allocs/op", KCM,
					metric(b, p, "allocs/op", nil), kcmAtMost(1, "kcm ≤ 1 (design: 0 amortised)")))
		}
	}
	return rows
}

// heapUpdatedRows: the heap per pod after a burst of updates
// (BenchmarkHeapUpdated), and once synced in the same run, held to the
// targets of the heap rows: RawObject ≤ 0.4× client-go-strip, typed ≤ 0.5×.
func heapUpdatedRows(s *Set) []Row {
	var rows []Row
	for _, n := range s.Params("HeapUpdated/", "pods") {
		for _, ev := range s.Params(fmt.Sprintf("HeapUpdated/pods=%d/", n), "events") {
			b := fmt.Sprintf("HeapUpdated/pods=%d/events=%d", n, ev)
			p := procsOf(s, b)
			for _, f := range []struct{ figure, unit string }{
				{fmt.Sprintf("heap per pod, %d pods, after %d updates (every 2nd relabels)", n, ev), "B/pod"},
				{fmt.Sprintf("heap per pod, %d pods, synced before those updates", n), "synced-B/pod"},
			} {
				rows = append(rows,
					row(s, f.figure, "B", KCM, metric(b, p, f.unit, nil), stripRatioAtMost(0.4)),
					row(s, f.figure+" (kcm-typed)", "B", KCMTyped, metric(b, p, f.unit, nil), stripRatioAtMost(0.5)))
			}
		}
	}
	return rows
}
