package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Result is one benchmark line.
type Result struct {
	// Name is the benchmark's name without "Benchmark" and without the
	// GOMAXPROCS suffix, e.g. "Sync/pods=1000/kcm".
	Name  string
	Procs int
	N     int
	// Metrics maps a unit ("ns/op", "B/op", "events/s") to its value.
	Metrics map[string]float64
}

// Set is a parsed run: every result and the header lines (goos, goarch,
// pkg, cpu).
type Set struct {
	Results []Result
	Header  map[string]string
}

// Parse reads `go test -bench` output. Lines that are not results or
// headers are ignored; a result line that does not parse is an error.
func Parse(r io.Reader) (*Set, error) {
	s := &Set{Header: map[string]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	// pending is the name of a benchmark whose result line was cut by
	// output the benchmark wrote; its figures follow on a later line.
	pending := ""
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if k, v, ok := strings.Cut(text, ": "); ok && slices.Contains([]string{"goos", "goarch", "pkg", "cpu"}, k) {
			s.Header[k] = strings.TrimSpace(v)
			continue
		}
		switch {
		case strings.HasPrefix(text, "Benchmark"):
			pending = ""
		case pending != "" && text != "" && text[0] >= '0' && text[0] <= '9':
			text = pending + " " + text
		default:
			continue
		}
		res, ok, err := parseLine(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if ok {
			s.Results = append(s.Results, res)
			pending = ""
		} else if f := strings.Fields(text); len(f) > 0 {
			pending = f[0]
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read benchmark output: %w", err)
	}
	return s, nil
}

// parseLine reads "BenchmarkX/y-2  10  123 ns/op  4.5 unit ...". A line
// holding a name and no figures (the testing package prints the name, then
// whatever the benchmark logged, then the figures) reports ok false.
func parseLine(text string) (Result, bool, error) {
	f := strings.Fields(text)
	if len(f) < 4 {
		return Result{}, false, nil
	}
	n, err := strconv.Atoi(f[1])
	if err != nil {
		return Result{}, false, nil
	}
	if len(f)%2 != 0 {
		return Result{}, false, fmt.Errorf("%q: values and units do not pair up", text)
	}
	name, procs := splitProcs(strings.TrimPrefix(f[0], "Benchmark"))
	res := Result{Name: name, Procs: procs, N: n, Metrics: map[string]float64{}}
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return Result{}, false, fmt.Errorf("%q: value %q: %w", text, f[i], err)
		}
		res.Metrics[f[i+1]] = v
	}
	return res, true, nil
}

// splitProcs splits the "-P" GOMAXPROCS suffix off a benchmark name; a
// name without one ran with GOMAXPROCS 1.
func splitProcs(name string) (string, int) {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return name, 1
	}
	p, err := strconv.Atoi(name[i+1:])
	if err != nil || p <= 0 {
		return name, 1
	}
	return name[:i], p
}

// Median returns the median of unit over every result named name at
// procs, and whether there was one.
func (s *Set) Median(name string, procs int, unit string) (float64, bool) {
	var vs []float64
	for _, r := range s.Results {
		if r.Name != name || r.Procs != procs {
			continue
		}
		if v, ok := r.Metrics[unit]; ok {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return 0, false
	}
	slices.Sort(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2], true
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2, true
}

// Procs returns the GOMAXPROCS values the results named with prefix ran
// at, ascending.
func (s *Set) Procs(prefix string) []int {
	var out []int
	for _, r := range s.Results {
		if strings.HasPrefix(r.Name, prefix) && !slices.Contains(out, r.Procs) {
			out = append(out, r.Procs)
		}
	}
	slices.Sort(out)
	return out
}

// Params returns the distinct values of the path element key=value among
// results named with prefix, in numeric order ("pods" → 1000, 10000).
func (s *Set) Params(prefix, key string) []int {
	var out []int
	for _, r := range s.Results {
		if !strings.HasPrefix(r.Name, prefix) {
			continue
		}
		for _, el := range strings.Split(r.Name, "/") {
			if v, ok := strings.CutPrefix(el, key+"="); ok {
				if n, err := strconv.Atoi(v); err == nil && !slices.Contains(out, n) {
					out = append(out, n)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}
