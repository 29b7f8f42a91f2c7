package informer

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/internal/promreg"
)

// The informer series client-go v0.37 exports for named informers
// (k8s.io/component-base/metrics/prometheus/clientgo/fifo, fed by
// tools/cache's RealFIFO and thread-safe store), with the same names,
// labels (name, group, version, resource) and latency buckets:
//
//   - informer_queued_items: deltas waiting in the FIFO to be popped
//     (deltafifo's Queued: not the batch being applied, which client-go's
//     RealFIFO has already taken out too). kcm reads it when the registry
//     is scraped, so the gauge costs nothing on the event path and is
//     right even while the apply loop is stuck.
//   - informer_processing_latency_seconds: how long applying what one
//     pop took out of the FIFO lasted (store write and handing it to the
//     handlers). client-go observes one item, or one batch where it
//     batches; kcm always pops batches (Options.BatchSize).
//   - informer_store_resource_version: the 15 least significant digits of
//     the store's resourceVersion (Informer.LastStoreSyncResourceVersion),
//     set whenever that moves, as client-go's thread-safe store sets it
//     with its rv: the list's once a list or relist is applied, each
//     watch event's, each bookmark's. A resourceVersion that is not a
//     number leaves it as it was (client-go's too; an empty one, which
//     client-go reports as 0, as well).
var (
	fifoLabels       = []string{"name", "group", "version", "resource"}
	queuedItemsDesc  = prometheus.NewDesc("informer_queued_items", "Number of items currently queued in the FIFO.", fifoLabels, nil)
	latencyBuckets   = []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}
	errFIFOCollector = errors.New("informer: registering the FIFO series")
)

// fifoSeries are one informer's series; a nil *fifoSeries records nothing.
type fifoSeries struct {
	latency prometheus.Observer
	storeRV prometheus.Gauge
}

// processed records how long applying one pop took.
func (s *fifoSeries) processed(took time.Duration) {
	if s != nil {
		s.latency.Observe(took.Seconds())
	}
}

// storeResourceVersion records the store's resourceVersion, when rv is a
// decimal number.
func (s *fifoSeries) storeResourceVersion(rv string) {
	if s == nil || rv == "" {
		return
	}
	if v, err := rvForMetric(rv); err == nil {
		s.storeRV.Set(float64(v))
	}
}

// rvForMetric is client-go's parseRVForMetricsWithTruncation: the last 15
// digits, so that the value is exact in a float64.
func rvForMetric(rv string) (int64, error) {
	if len(rv) > 15 {
		rv = rv[len(rv)-15:]
	}
	return strconv.ParseInt(rv, 10, 64)
}

// queuedCollector reports informer_queued_items for every informer of one
// registry, reading each FIFO's length at collection time.
type queuedCollector struct {
	mu     sync.Mutex
	lens   map[[4]string]func() int // by label values; the first informer of a name and resource wins
	series []([4]string)            // registration order, for a stable output
}

func (c *queuedCollector) Describe(ch chan<- *prometheus.Desc) { ch <- queuedItemsDesc }

func (c *queuedCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range c.series {
		ch <- prometheus.MustNewConstMetric(queuedItemsDesc, prometheus.GaugeValue, float64(c.lens[l]()), l[:]...)
	}
}

func (c *queuedCollector) add(labels [4]string, length func() int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.lens[labels]; ok {
		return
	}
	c.lens[labels] = length
	c.series = append(c.series, labels)
}

// newFIFOSeries registers the three families with reg (or finds those an
// informer registered there before) and returns the series of the
// informer with these label values, whose FIFO length is length. A nil reg
// means no metrics.
func newFIFOSeries(reg prometheus.Registerer, labels [4]string, length func() int) (*fifoSeries, error) {
	if reg == nil {
		return nil, nil
	}
	queued, err := register(reg, &queuedCollector{lens: map[[4]string]func() int{}})
	if err != nil {
		return nil, err
	}
	latency, err := register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Subsystem: "informer", Name: "processing_latency_seconds",
		Help: "Time taken to process events after popping from the queue.", Buckets: latencyBuckets,
	}, fifoLabels))
	if err != nil {
		return nil, err
	}
	storeRV, err := register(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Subsystem: "informer", Name: "store_resource_version",
		Help: "The 15 least significant digits of the resource version of the store.",
	}, fifoLabels))
	if err != nil {
		return nil, err
	}
	queued.add(labels, length)
	return &fifoSeries{latency: latency.WithLabelValues(labels[:]...), storeRV: storeRV.WithLabelValues(labels[:]...)}, nil
}

// register is promreg.Register with the failure marked errFIFOCollector.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	got, err := promreg.Register(reg, c)
	if err != nil {
		return got, fmt.Errorf("%w: %w", errFIFOCollector, err)
	}
	return got, nil
}
