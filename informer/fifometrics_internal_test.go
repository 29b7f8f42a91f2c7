package informer

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// informer_queued_items reads each FIFO's length when scraped; informers
// on one registry share the families, and a second informer with the same
// name and resource does not add a series (client-go's first one wins).
func TestQueuedItemsReadAtScrape(t *testing.T) {
	reg := prometheus.NewRegistry()
	n := 3
	pods := [4]string{"pods", "", "v1", "pods"}
	if _, err := newFIFOSeries(reg, pods, func() int { return n }); err != nil {
		t.Fatal(err)
	}
	if _, err := newFIFOSeries(reg, [4]string{"deployments.apps", "apps", "v1", "deployments"}, func() int { return 1 }); err != nil {
		t.Fatal(err)
	}
	if _, err := newFIFOSeries(reg, pods, func() int { return 100 }); err != nil {
		t.Fatal(err)
	}
	if got := testutil.CollectAndCount(reg, "informer_queued_items"); got != 2 {
		t.Fatalf("%d informer_queued_items series, want 2", got)
	}
	n = 7
	want := `# HELP informer_queued_items Number of items currently queued in the FIFO.
# TYPE informer_queued_items gauge
informer_queued_items{group="",name="pods",resource="pods",version="v1"} 7
informer_queued_items{group="apps",name="deployments.apps",resource="deployments",version="v1"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "informer_queued_items"); err != nil {
		t.Fatal(err)
	}
	if v, err := rvForMetric("1234567890123456789"); err != nil || v != 567890123456789 {
		t.Fatalf("rvForMetric = %d, %v", v, err)
	}
	if _, err := rvForMetric("abc"); err == nil {
		t.Fatal("rvForMetric accepted a non-number")
	}
}
