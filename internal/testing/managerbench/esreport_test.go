package managerbench

import (
	"math"
	"strings"
	"testing"
	"time"
)

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// The lag from the last pod Ready to the last write, and writes per pod
// update, including the cases with nothing to divide.
func TestESArithmetic(t *testing.T) {
	lags := []struct {
		write, ready time.Duration
		want         time.Duration
		ok           bool
	}{
		{secs(12.5), secs(10), secs(2.5), true},
		{secs(10), secs(10), 0, true},
		{0, secs(10), 0, false}, // nothing written
		{secs(9), secs(10), secs(-1), true},
	}
	for _, tt := range lags {
		if got, ok := lag(tt.write, tt.ready); got != tt.want || ok != tt.ok {
			t.Errorf("lag(%v, %v) = %v, %v; want %v, %v", tt.write, tt.ready, got, ok, tt.want, tt.ok)
		}
	}
	pers := []struct {
		writes, updates int
		want            float64
		ok              bool
	}{
		{20, 50, 0.4, true},
		{30, 50, 0.6, true},
		{0, 50, 0, true},
		{5, 0, 0, false},
	}
	for _, tt := range pers {
		if got, ok := perUpdate(tt.writes, tt.updates); math.Abs(got-tt.want) > 1e-12 || ok != tt.ok {
			t.Errorf("perUpdate(%d, %d) = %v, %v; want %v, %v", tt.writes, tt.updates, got, ok, tt.want, tt.ok)
		}
	}
}

func esResult(manager string, run int, slices bool, lastReady, lastEP, lastSlice float64, roll WriteCounts, rssMiB int64) EndpointsResult {
	r := EndpointsResult{Manager: manager, Run: run, Slices: slices, Controllers: []string{EndpointsController},
		LastReady: secs(lastReady), LastEndpoints: secs(lastEP), LastSlice: secs(lastSlice), Rollout: roll,
		AtEnd: Sample{RSS: rssMiB << 20, HWM: (rssMiB + 10) << 20, CPU: secs(2)}}
	if slices {
		r.Controllers = EndpointControllers
	}
	return r
}

// summarizeES takes each manager's runs only, and medians over them; a
// manager without slices gets no slice numbers.
func TestSummarizeES(t *testing.T) {
	rs := []EndpointsResult{
		esResult("kcm", 1, false, 10, 11, 0, WriteCounts{PodEvents: 50, Endpoints: 20}, 30),
		esResult("kube-controller-manager", 1, true, 10, 12, 13, WriteCounts{PodEvents: 50, Endpoints: 20, Slices: 30}, 100),
		esResult("kube-controller-manager", 2, true, 10, 14, 15, WriteCounts{PodEvents: 40, Endpoints: 20, Slices: 30}, 120),
		esResult("kcm", 2, false, 10, 13, 0, WriteCounts{PodEvents: 50, Endpoints: 10}, 34),
	}
	tests := []struct {
		manager                           string
		runs                              int
		slices                            bool
		epLag, sliceLag, perEP, perS, rss float64
		sliceN                            int
	}{
		{"kcm", 2, false, 2, 0, 0.3, 0, 32, 0},
		{"kube-controller-manager", 2, true, 3, 4, (0.4 + 0.5) / 2, (0.6 + 0.75) / 2, 110, 2},
		{"nobody", 0, false, 0, 0, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		s := summarizeES(rs, tt.manager)
		near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
		if s.Runs != tt.runs || s.Slices != tt.slices || !near(s.EndpointsLag.Median, tt.epLag) ||
			!near(s.SliceLag.Median, tt.sliceLag) || s.SliceLag.N != tt.sliceN || !near(s.EndpointsPerUpdate.Median, tt.perEP) ||
			!near(s.SlicesPerUpdate.Median, tt.perS) || !near(s.RSSEnd.Median, tt.rss) {
			t.Errorf("%s: runs %d slices %v lag %v/%v (n %d) per update %v/%v rss %v; want %d %v %v/%v (n %d) %v/%v %v",
				tt.manager, s.Runs, s.Slices, s.EndpointsLag.Median, s.SliceLag.Median, s.SliceLag.N,
				s.EndpointsPerUpdate.Median, s.SlicesPerUpdate.Median, s.RSSEnd.Median,
				tt.runs, tt.slices, tt.epLag, tt.sliceLag, tt.sliceN, tt.perEP, tt.perS, tt.rss)
		}
	}
}

// The ratio lines: kcm over kube-controller-manager, or the reason there
// is none — never a number for slices kcm does not write.
func TestESRatio(t *testing.T) {
	kcm := esSummary{Manager: "kcm", Runs: 1, EndpointsLag: Summarize([]float64{1}), SliceLag: Summarize([]float64{2})}
	kube := esSummary{Manager: "kube-controller-manager", Runs: 1, Slices: true,
		EndpointsLag: Summarize([]float64{4}), SliceLag: Summarize([]float64{4})}
	withSlices := kcm
	withSlices.Slices = true
	ep := func(s esSummary) Summary { return s.EndpointsLag }
	sl := func(s esSummary) Summary { return s.SliceLag }
	tests := []struct {
		name      string
		kcm, kube esSummary
		pick      func(esSummary) Summary
		slices    bool
		target    string
		want      string
	}{
		{"Endpoints", kcm, kube, ep, false, "≤ 1.00x", "- x: 0.25x (target ≤ 1.00x)\n"},
		{"slices, kcm has none", kcm, kube, sl, true, "", "- x: kcm: no endpointslice-controller\n"},
		{"slices, both have", withSlices, kube, sl, true, "", "- x: 0.50x\n"},
		{"slices, kube-controller-manager has none", withSlices, kcm, sl, true, "", "- x: kcm: no endpointslice-controller\n"},
		{"nothing measured", esSummary{Manager: "kcm"}, kube, ep, false, "", "- x: -\n"},
		{"zero divisor", kcm, esSummary{Manager: "kube-controller-manager", EndpointsLag: Summarize([]float64{0})}, ep, false, "", "- x: -\n"},
	}
	for _, tt := range tests {
		if got := esRatio("x", tt.kcm, tt.kube, tt.pick, tt.slices, tt.target); got != tt.want {
			t.Errorf("%s: esRatio = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// The report's endpoints section: the slice cells of a manager without an
// endpointslice-controller say so instead of carrying a time, and the
// ratios are kcm's over kube-controller-manager's medians.
func TestEndpointsMarkdown(t *testing.T) {
	rep := &Report{Config: Config{QPS: 20, Burst: 30, Settle: 10 * time.Second,
		ESWorkload: ESWorkload{Services: 1000, PodsPerService: 10}}}
	rep.Endpoints = []EndpointsResult{
		esResult("kcm", 1, false, 10, 11, 0, WriteCounts{PodEvents: 50, Endpoints: 20}, 30),
		esResult("kube-controller-manager", 1, true, 10, 12, 13, WriteCounts{PodEvents: 50, Endpoints: 20, Slices: 30}, 120),
	}
	md := rep.endpointsMarkdown()
	for _, want := range []string{
		"### Endpoints and EndpointSlices: 1000 Services × 10 pods on 50 kwok nodes (--kube-api-qps=20 --kube-api-burst=30)",
		"- last pod Ready → last Endpoints write: 0.50x (target ≤ 1.00x)",
		"- last pod Ready → last slice write: kcm: no endpointslice-controller (target ≤ 1.00x)",
		"- Endpoints writes per pod update (rollout): 1.00x (target ≤ 1.00x)",
		"- RSS at end (steady): 0.25x (target ≤ 0.50x)",
		"The managers ran different controllers (kcm: endpoints-controller;",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the section lacks %q:\n%s", want, md)
		}
	}
	// The fill and rollout tables have two slice columns each: both say
	// why for kcm, neither for kube-controller-manager.
	fill, rest, _ := strings.Cut(md, "Rolling update of one Service's pods:")
	roll, _, _ := strings.Cut(rest, "Memory and CPU:")
	for name, table := range map[string]string{"fill": fill, "rollout": roll} {
		rows := 0
		for _, line := range strings.Split(table, "\n") {
			n := strings.Count(line, "kcm: no endpointslice-controller")
			switch {
			case strings.HasPrefix(line, "| kcm "):
				rows++
				if n != 2 {
					t.Errorf("%s table, kcm row: %d no-controller cells, want 2: %s", name, n, line)
				}
			case strings.HasPrefix(line, "| kube-controller-manager "):
				rows++
				if n != 0 {
					t.Errorf("%s table, kube-controller-manager row: %s", name, line)
				}
			}
		}
		if rows != 2 {
			t.Errorf("%s table: %d manager rows, want 2:\n%s", name, rows, table)
		}
	}
}

// With the like-for-like reference run, its ratios follow the others,
// against its own medians.
func TestEndpointsMarkdownSameReference(t *testing.T) {
	rep := &Report{Config: Config{QPS: 20, Burst: 30, ESWorkload: ESWorkload{Services: 20, PodsPerService: 10}}}
	rep.Endpoints = []EndpointsResult{
		esResult("kcm", 1, false, 10, 11, 0, WriteCounts{PodEvents: 50, Endpoints: 20}, 30),
		esResult("kube-controller-manager", 1, true, 10, 12, 13, WriteCounts{PodEvents: 50, Endpoints: 20, Slices: 30}, 120),
		esResult(ESSameLabel, 1, false, 10, 14, 0, WriteCounts{PodEvents: 50, Endpoints: 25}, 60),
	}
	md := rep.endpointsMarkdown()
	_, like, ok := strings.Cut(md, "Like for like, kcm / kube-controller-manager (kcm's set) (endpoints-controller), medians:")
	if !ok {
		t.Fatalf("no like-for-like section:\n%s", md)
	}
	for _, want := range []string{
		"- last pod Ready → last Endpoints write: 0.25x (target ≤ 1.00x)",
		"- Endpoints writes per pod update (rollout): 0.80x (target ≤ 1.00x)",
		"- RSS at end (steady): 0.50x (target ≤ 0.50x)",
	} {
		if !strings.Contains(like, want) {
			t.Errorf("the like-for-like section lacks %q:\n%s", want, like)
		}
	}
}
