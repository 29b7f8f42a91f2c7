package managerbench

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// A profile as runtime/pprof writes it with debug=1 (rate 512 KiB: the
// header says heap/1048576), trimmed.
const sampleHeap = `heap profile: 9: 33248 [9: 33249] @ heap/1048576
1: 480 [1: 480] @ 0x47c305 0x41e4c5 0x456a45
#	0x47c304	runtime.mallocgc+0xa4		/usr/local/go/src/runtime/malloc.go:1150
#	0x456a44	runtime.malg+0x24		/usr/local/go/src/runtime/proc.go:5274

8: 32768 [8: 32768] @ 0x47c32c 0x47f249 0x4d96c8 0x4d9693 0x44cd15 0x484081
#	0x4d96c7	main.alloc+0x47		/tmp/hp/main.go:13
#	0x4d9692	main.main+0x12		/tmp/hp/main.go:18
#	0x44cd14	runtime.main+0x2d4	/usr/local/go/src/runtime/proc.go:290

0: 0 [5: 5000] @ 0x4d96c8
#	0x4d96c7	main.gone+0x47		/tmp/hp/main.go:20

2: 2048 [2: 2048] @ 0x4d96c9
#	0x4d96c7	main.main+0x50		/tmp/hp/main.go:19


# runtime.MemStats
# Alloc = 4191136
`

// TestParseHeapProfile: in-use bytes are scaled as runtime/pprof scales
// samples (bytes / (1 - exp(-avg/rate)), rate = half the header's
// number), attributed flat to the first frame printed and cumulatively to
// every function on the stack once; freed records count nothing; the
// MemStats trailer is ignored; entries come by flat, largest first.
func TestParseHeapProfile(t *testing.T) {
	p, err := ParseHeapProfile(strings.NewReader(sampleHeap))
	if err != nil {
		t.Fatal(err)
	}
	const rate = 524288.0
	scale := func(n, b float64) int64 { return int64(b / (1 - math.Exp(-(b/n)/rate))) }
	alloc, main2, malg := scale(8, 32768), scale(2, 2048), scale(1, 480)
	want := []HeapEntry{
		{"main.alloc", alloc, alloc},
		{"main.main", main2, alloc + main2},
		{"runtime.malg", 0, malg},
		{"runtime.main", 0, alloc},
		{"runtime.mallocgc", malg, malg},
		{"main.gone", 0, 0},
	}
	// runtime.malg is second on its stack: flat goes to mallocgc, the
	// first frame printed.
	byFunc := map[string]HeapEntry{}
	for _, e := range p.Entries {
		byFunc[e.Func] = e
	}
	for _, w := range want {
		g := byFunc[w.Func]
		if abs(g.Flat-w.Flat) > 1 || abs(g.Cum-w.Cum) > 1 {
			t.Errorf("%s: flat %d cum %d, want flat %d cum %d", w.Func, g.Flat, g.Cum, w.Flat, w.Cum)
		}
	}
	if p.Entries[0].Func != "main.alloc" || p.Entries[1].Func != "main.main" {
		t.Errorf("order: %v", p.Top(3))
	}
	if got, w := p.InUse, alloc+main2+malg; abs(got-w) > 3 {
		t.Errorf("InUse %d, want %d", got, w)
	}
	// 8 sampled 4 KiB objects at a 512 KiB rate stand for about 1000.
	if alloc < 4000000 || alloc > 4400000 {
		t.Errorf("main.alloc scaled to %d bytes, want about 4.1 MB", alloc)
	}
	if n := len(p.Top(2)); n != 2 {
		t.Errorf("Top(2) has %d entries", n)
	}
}

func TestParseHeapProfileErrors(t *testing.T) {
	for _, in := range []string{
		"",
		"goroutine profile: total 3\n",
		"heap profile: 1: 2 [3: 4] @ heap/0\n",
		"heap profile: 1: 2 [3: 4] @ heap/1048576\nnot a record\n",
		"heap profile: 1: 2 [3: 4] @ heap/1048576\n1: 2 [3: 4] @ 0x1\n#\tonly\n",
	} {
		if _, err := ParseHeapProfile(strings.NewReader(in)); !errors.Is(err, ErrHeapProfile) {
			t.Errorf("%q: err %v, want ErrHeapProfile", in, err)
		}
	}
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// The report lists each kcm profile's top entries, the probe's and the
// settled one's, and nothing for a run without a profile.
func TestHeapMarkdown(t *testing.T) {
	p, err := ParseHeapProfile(strings.NewReader(sampleHeap))
	if err != nil {
		t.Fatal(err)
	}
	md := heapMarkdown([]SyncResult{
		{Manager: "kcm", Run: 1, Heap: &p, HeapSettled: &p},
		{Manager: "kube-controller-manager", Run: 1},
	})
	for _, want := range []string{"kcm's heap profile at the probe, run 1", "kcm's heap profile after the settle period, run 1",
		"forced collection", "| 4.0 ", "main.alloc"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "kube-controller-manager's heap") {
		t.Errorf("a profile for a run without one:\n%s", md)
	}
}

// TestParseHeapProfileHeapAlloc: the exact heap alloc is read from the
// MemStats trailer (the sampled total is an estimate, off by MiBs when a
// few samples make an entry), and the sampling rate from the header; a
// malformed HeapAlloc line is an error, a missing one 0.
func TestParseHeapProfileHeapAlloc(t *testing.T) {
	for _, tc := range []struct {
		name, trailer string
		want          int64
		wantErr       bool
	}{
		{"present", "# HeapAlloc = 38702832\n# HeapSys = 1\n", 38702832, false},
		{"absent", "# HeapSys = 1\n", 0, false},
		{"malformed", "# HeapAlloc = many\n", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParseHeapProfile(strings.NewReader(sampleHeap + tc.trailer))
			if tc.wantErr {
				if !errors.Is(err, ErrHeapProfile) {
					t.Fatalf("err = %v, want ErrHeapProfile", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.HeapAlloc != tc.want {
				t.Errorf("HeapAlloc = %d, want %d", p.HeapAlloc, tc.want)
			}
			if p.Rate != 524288 {
				t.Errorf("Rate = %d, want 524288 (half the header's heap/1048576)", p.Rate)
			}
		})
	}
	if got := sampleRateText(512 << 10); got != "512 KiB" {
		t.Errorf("sampleRateText(512 KiB) = %q", got)
	}
	if got := sampleRateText(512); got != "512 bytes" {
		t.Errorf("sampleRateText(512) = %q", got)
	}
}
