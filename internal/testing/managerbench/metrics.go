package managerbench

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// GoHeapMetrics are the Go runtime's memory series that explain a Go
// manager's resident memory (client_golang's Go collector): the bytes of
// live and not yet collected objects, the heap in use, the size at which
// the next collection starts (with GOGC=100, about twice the live heap
// after the last one), and everything obtained from the OS.
var GoHeapMetrics = []string{
	"go_memstats_heap_alloc_bytes",
	"go_memstats_heap_inuse_bytes",
	"go_memstats_next_gc_bytes",
	"go_memstats_sys_bytes",
}

// ParseMetrics reads the values of the named unlabelled series from a
// Prometheus text exposition. Series not found are absent from the map.
func ParseMetrics(r io.Reader, names ...string) (map[string]float64, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, " ")
		if !ok || !want[name] {
			continue
		}
		v, err := strconv.ParseFloat(strings.Fields(value)[0], 64)
		if err != nil {
			return nil, fmt.Errorf("managerbench: metric line %q: %w", line, err)
		}
		out[name] = v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("managerbench: reading metrics: %w", err)
	}
	return out, nil
}

// scrapeGoHeap fetches GoHeapMetrics from a manager's /metrics over a
// connection configured by cfg (see Proc.ClientTLS).
func scrapeGoHeap(ctx context.Context, cfg *tls.Config, url string) (map[string]float64, error) {
	tr := &http.Transport{TLSClientConfig: cfg}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("managerbench: %w", err)
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return nil, fmt.Errorf("managerbench: GET %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("managerbench: GET %s: HTTP %d", url, resp.StatusCode)
	}
	return ParseMetrics(io.LimitReader(resp.Body, 16<<20), GoHeapMetrics...)
}
