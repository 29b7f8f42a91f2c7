package manager

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// The rest_client_* series carry client-go's names and labels: requests by
// code, host and method; latency and rate-limiter waits by host and verb.
func TestRESTClientMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := newRESTClientMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.RateLimited("GET", "10.0.0.1:6443", 50*time.Millisecond)
	m.Request("GET", "10.0.0.1:6443", "200", 20*time.Millisecond)
	m.Request("GET", "10.0.0.1:6443", "200", 30*time.Millisecond)
	m.Request("POST", "10.0.0.1:6443", "403", time.Millisecond)
	want := `
# HELP rest_client_requests_total Number of HTTP requests, partitioned by status code, method, and host.
# TYPE rest_client_requests_total counter
rest_client_requests_total{code="200",host="10.0.0.1:6443",method="GET"} 2
rest_client_requests_total{code="403",host="10.0.0.1:6443",method="POST"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "rest_client_requests_total"); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(m.latency); n != 2 {
		t.Fatalf("latency series = %d, want GET and POST", n)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "rest_client_rate_limiter_duration_seconds" {
			h := mf.GetMetric()[0].GetHistogram()
			if len(mf.GetMetric()) != 1 || h.GetSampleCount() != 1 || h.GetSampleSum() != 0.05 {
				t.Fatalf("rate limiter series: %v", mf)
			}
		}
	}
	if _, err := newRESTClientMetrics(reg); err == nil {
		t.Fatal("registering the families twice succeeded")
	}
}
