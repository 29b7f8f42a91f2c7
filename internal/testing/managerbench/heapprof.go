package managerbench

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// HeapTopN is how many entries of kcm's heap profile the report lists.
const HeapTopN = 15

// HeapEntry is one function of a heap profile: the in-use bytes allocated
// by it directly (Flat: it is the innermost frame the profile prints) and
// by it or anything it called (Cum), as `go tool pprof -top` reports them.
type HeapEntry struct {
	Func      string
	Flat, Cum int64
}

// HeapProfile is the in-use part of a Go heap profile, read from
// /debug/pprof/heap?debug=1 (the text form: no protobuf decoder needed).
// Bytes are estimates of the whole heap: the runtime samples one
// allocation per MemProfileRate bytes, and each record is scaled up as
// runtime/pprof scales its protobuf form. The profile is as of the last
// garbage collection before it was taken.
type HeapProfile struct {
	InUse   int64       // in-use bytes of all records
	Entries []HeapEntry // by Flat, largest first (ties by name)
	Rate    int64       // the sampling rate, bytes (MemProfileRate; GODEBUG=memprofilerate=N sets it)
	// HeapAlloc is runtime.MemStats.HeapAlloc from the profile's trailer:
	// exact, not sampled — the bytes of live objects and of garbage not
	// yet swept when the profile was written; with gc=1, right after the
	// forced collection, the live heap (plus what the handler allocated
	// since). 0 when the trailer lacks it.
	HeapAlloc int64
}

// Top returns the first n entries.
func (p HeapProfile) Top(n int) []HeapEntry { return p.Entries[:min(n, len(p.Entries))] }

// ErrHeapProfile is wrapped by every error about a malformed profile.
var ErrHeapProfile = errors.New("managerbench: malformed heap profile")

// ParseHeapProfile reads the text heap profile runtime/pprof writes with
// debug=1:
//
//	heap profile: <objects>: <bytes> [<objects>: <bytes>] @ heap/<2×MemProfileRate>
//	<in-use objects>: <in-use bytes> [<allocated objects>: <allocated bytes>] @ <pcs>
//	#	<pc>	<function>+<offset>	<file>:<line>
//	...
//
// (runtime-internal frames above the allocating function are already left
// out) followed by a "# runtime.MemStats" section, of which only
// "# HeapAlloc = <bytes>" is read.
func ParseHeapProfile(r io.Reader) (HeapProfile, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	if !sc.Scan() {
		return HeapProfile{}, fmt.Errorf("%w: empty", ErrHeapProfile)
	}
	header := sc.Text()
	_, rateText, ok := strings.Cut(header, "@ heap/")
	rate, err := strconv.ParseFloat(strings.TrimSpace(rateText), 64)
	if !strings.HasPrefix(header, "heap profile:") || !ok || err != nil || rate <= 0 {
		return HeapProfile{}, fmt.Errorf("%w: header %q", ErrHeapProfile, header)
	}
	rate /= 2 // the header prints twice the sampling rate
	flat, cum := map[string]float64{}, map[string]float64{}
	var total float64
	var bytes float64 // the current record's scaled in-use bytes
	var frames []string
	flush := func() {
		if len(frames) > 0 {
			flat[frames[0]] += bytes
			seen := map[string]bool{}
			for _, fn := range frames {
				if !seen[fn] {
					seen[fn] = true
					cum[fn] += bytes
				}
			}
		}
		frames, bytes = frames[:0], 0
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, "# runtime.MemStats"):
			flush()
			p := heapProfile(total, rate, flat, cum)
			var err error
			p.HeapAlloc, err = memStatsHeapAlloc(sc)
			return p, err
		case strings.HasPrefix(line, "#"):
			// "#\t<pc>\t<func>+<off>\t<file>:<line>"
			f := strings.Fields(line)
			if len(f) < 3 {
				return HeapProfile{}, fmt.Errorf("%w: frame %q", ErrHeapProfile, line)
			}
			fn, _, _ := strings.Cut(f[2], "+0x")
			frames = append(frames, fn)
		default:
			flush()
			n, b, err := inUse(line)
			if err != nil {
				return HeapProfile{}, err
			}
			bytes = scaleHeap(n, b, rate)
			total += bytes
		}
	}
	if err := sc.Err(); err != nil {
		return HeapProfile{}, fmt.Errorf("managerbench: reading the heap profile: %w", err)
	}
	flush()
	return heapProfile(total, rate, flat, cum), nil
}

// sampleRateText writes a sampling rate in bytes, as KiB when whole.
func sampleRateText(rate int64) string {
	if rate >= 1024 && rate%1024 == 0 {
		return fmt.Sprintf("%d KiB", rate/1024)
	}
	return fmt.Sprintf("%d bytes", rate)
}

// memStatsHeapAlloc reads the MemStats trailer's "# HeapAlloc = <bytes>"
// (0 when absent).
func memStatsHeapAlloc(sc *bufio.Scanner) (int64, error) {
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), "# HeapAlloc = ")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%w: MemStats line %q", ErrHeapProfile, sc.Text())
		}
		return n, nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("managerbench: reading the heap profile: %w", err)
	}
	return 0, nil
}

// inUse reads "<objects>: <bytes> [...] @ ..." of a record line.
func inUse(line string) (objects, bytes float64, err error) {
	head, _, ok := strings.Cut(line, " [")
	o, b, ok2 := strings.Cut(head, ": ")
	if ok && ok2 {
		objects, err1 := strconv.ParseFloat(o, 64)
		bytes, err2 := strconv.ParseFloat(b, 64)
		if err1 == nil && err2 == nil && objects >= 0 && bytes >= 0 {
			return objects, bytes, nil
		}
	}
	return 0, 0, fmt.Errorf("%w: record %q", ErrHeapProfile, line)
}

// scaleHeap estimates the bytes a sampled record stands for: an
// allocation of s bytes is sampled with probability 1-exp(-s/rate), so
// each sampled byte counts 1/(1-exp(-avg/rate)) times (runtime/pprof's
// scaleHeapSample).
func scaleHeap(objects, bytes, rate float64) float64 {
	if objects == 0 || bytes == 0 {
		return 0
	}
	avg := bytes / objects
	return bytes / (1 - math.Exp(-avg/rate))
}

func heapProfile(total, rate float64, flat, cum map[string]float64) HeapProfile {
	p := HeapProfile{InUse: int64(total), Rate: int64(rate)}
	for fn, c := range cum {
		p.Entries = append(p.Entries, HeapEntry{Func: fn, Flat: int64(flat[fn]), Cum: int64(c)})
	}
	slices.SortFunc(p.Entries, func(a, b HeapEntry) int {
		if a.Flat != b.Flat {
			if a.Flat > b.Flat {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Func, b.Func)
	})
	return p
}

// fetchHeapProfile reads a manager's heap profile from url (its
// /debug/pprof/heap?debug=1), keeps the text in file and parses it. The
// connection is configured by cfg, as for /metrics.
func fetchHeapProfile(ctx context.Context, cfg *tls.Config, url, file string) (HeapProfile, error) {
	tr := &http.Transport{TLSClientConfig: cfg}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return HeapProfile{}, fmt.Errorf("managerbench: %w", err)
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return HeapProfile{}, fmt.Errorf("managerbench: GET %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return HeapProfile{}, fmt.Errorf("managerbench: GET %s: HTTP %d", url, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return HeapProfile{}, fmt.Errorf("managerbench: GET %s: %w", url, err)
	}
	if err := os.WriteFile(file, body, 0o600); err != nil {
		return HeapProfile{}, fmt.Errorf("managerbench: %w", err)
	}
	return ParseHeapProfile(strings.NewReader(string(body)))
}

// heapMarkdown lists the top entries of each kcm heap profile: at the
// probe and after the settle period.
func heapMarkdown(rs []SyncResult) string {
	var b strings.Builder
	for _, s := range rs {
		for _, h := range []struct {
			p            *HeapProfile
			when, asOf   string
			rss          int64
			rssSampledAt string
		}{
			{s.Heap, "at the probe", "in-use space as of the last collection", s.AtProbe.RSS, "at the probe"},
			{s.HeapSettled, "after the settle period", "live space after a forced collection (gc=1)", s.Settled.RSS, "settled"},
		} {
			if h.p == nil {
				continue
			}
			fmt.Fprintf(&b, "\n%s's heap profile %s, run %d (/debug/pprof/heap, %s, sampled and scaled: %.1f MiB in all; "+
				"Go's exact heap alloc as it was written %.1f MiB; RSS %s %.1f MiB). Top %d by flat, as `go tool pprof -top` orders them "+
				"(one sample per %s allocated on average: an entry of a few MiB is a handful of samples):\n\n",
				s.Manager, h.when, s.Run, h.asOf, MiB(h.p.InUse), MiB(h.p.HeapAlloc), h.rssSampledAt, MiB(h.rss), HeapTopN,
				sampleRateText(h.p.Rate))
			t := Table{Columns: []string{"flat, MiB", "flat %", "cum, MiB", "function"}}
			for _, e := range h.p.Top(HeapTopN) {
				if e.Flat == 0 {
					break // the rest hold memory only through their callees
				}
				t.AddRow(f(MiB(e.Flat), 1), f(100*float64(e.Flat)/math.Max(1, float64(h.p.InUse)), 1), f(MiB(e.Cum), 1), e.Func)
			}
			b.WriteString(t.Markdown())
		}
	}
	return b.String()
}
