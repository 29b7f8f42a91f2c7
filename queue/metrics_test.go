package queue

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/kcmlab/kcm/clock"
)

// histogram returns the sample count and sum of the named histogram series
// of queue "q" in reg.
func histogram(t *testing.T, reg *prometheus.Registry, name string) (uint64, float64) {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if labelIs(m, "name", "q") {
				h := m.GetHistogram()
				return h.GetSampleCount(), h.GetSampleSum()
			}
		}
	}
	t.Fatalf("no series %s{name=q}", name)
	return 0, 0
}

func labelIs(m *dto.Metric, name, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name && l.GetValue() == value {
			return true
		}
	}
	return false
}

func TestMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(t0)
	refreshed := make(chan struct{}, 1)
	q := newWithHooks(Config[string]{Name: "q", Clock: clk, Metrics: m,
		RateLimiter: NewItemExponential[string](time.Second, time.Minute)},
		hooks{refreshed: func() { refreshed <- struct{}{} }})
	defer q.ShutDown()
	ctx := testCtx(t)
	series := func(v *prometheus.GaugeVec) prometheus.Gauge { return v.WithLabelValues("q") }

	q.Add("a")
	q.Add("b")
	q.Add("a") // duplicate: not an add
	// An Add or Done that finds the lock busy (the loop's goroutine takes
	// it) is posted and applied by the holder just after its release
	// (combine.go), so the metrics are read after a call that takes the
	// lock: the lock applies every posted operation first.
	settle := func() { q.Len() }
	settle()
	if got := testutil.ToFloat64(m.adds.WithLabelValues("q")); got != 2 {
		t.Fatalf("workqueue_adds_total = %v, want 2", got)
	}
	if got := testutil.ToFloat64(series(m.depth)); got != 2 {
		t.Fatalf("workqueue_depth = %v, want 2", got)
	}

	clk.Step(2 * time.Second)
	<-refreshed // the ticker fired once during the step
	k, _ := q.Get(ctx)
	if n, sum := histogram(t, reg, "workqueue_queue_duration_seconds"); n != 1 || sum != 2 {
		t.Fatalf("queue_duration count %d sum %v, want 1 and 2s", n, sum)
	}
	if got := testutil.ToFloat64(series(m.depth)); got != 1 {
		t.Fatalf("workqueue_depth after Get = %v, want 1", got)
	}

	// The loop refreshes the in-flight gauges on its 500 ms ticker; each
	// step delivers one tick.
	clk.Step(3 * time.Second) // a held for 3 s
	<-refreshed
	if got := testutil.ToFloat64(series(m.unfinished)); got != 3 {
		t.Fatalf("unfinished_work_seconds = %v, want 3", got)
	}
	k2, _ := q.Get(ctx) // b, held from t0+5s
	clk.Step(time.Second)
	<-refreshed
	if got := testutil.ToFloat64(series(m.unfinished)); got != 4+1 {
		t.Fatalf("unfinished_work_seconds = %v, want 5 (4 s + 1 s)", got)
	}
	if got := testutil.ToFloat64(series(m.longest)); got != 4 {
		t.Fatalf("longest_running_processor_seconds = %v, want 4", got)
	}

	q.Done(k)
	q.Done(k2)
	settle()
	if n, sum := histogram(t, reg, "workqueue_work_duration_seconds"); n != 2 || sum != 5 {
		t.Fatalf("work_duration count %d sum %v, want 2 and 5s", n, sum)
	}
	q.AddRateLimited("a")
	if got := testutil.ToFloat64(m.retries.WithLabelValues("q")); got != 1 {
		t.Fatalf("workqueue_retries_total = %v, want 1", got)
	}
	// Exposition uses client-go's names and the label "name".
	want := []string{"workqueue_depth", "workqueue_adds_total", "workqueue_queue_duration_seconds",
		"workqueue_work_duration_seconds", "workqueue_unfinished_work_seconds",
		"workqueue_longest_running_processor_seconds", "workqueue_retries_total"}
	n, err := testutil.GatherAndCount(reg, want...)
	if err != nil || n != len(want) {
		t.Fatalf("gathered %d of %d families (%v)", n, len(want), err)
	}
}

func TestNewMetricsTwiceOnOneRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	m1, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := NewMetrics(reg)
	if err != nil {
		t.Fatalf("second NewMetrics on the same registry: %v", err)
	}
	m1.adds.WithLabelValues("x").Inc()
	if got := testutil.ToFloat64(m2.adds.WithLabelValues("x")); got != 1 {
		t.Fatalf("second Metrics does not share the registered series (got %v)", got)
	}
	if _, err := NewMetrics(nil); err == nil {
		t.Fatal("NewMetrics(nil) succeeded")
	}
}

func TestUnnamedQueueRecordsNoMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, _ := NewMetrics(reg)
	q := New(Config[int]{Metrics: m, Clock: clock.NewFake(t0)})
	defer q.ShutDown()
	q.Add(1)
	if q.m != nil {
		t.Fatal("unnamed queue records metrics")
	}
	if n, _ := testutil.GatherAndCount(reg, "workqueue_adds_total"); n != 0 {
		t.Fatalf("unnamed queue exported %d series", n)
	}
}

// A family registered under a workqueue name with other labels is a
// conflict NewMetrics reports (the first one), instead of a queue that
// silently records nothing.
func TestNewMetricsReportsAConflictingFamily(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "workqueue_depth", Help: "other"}, []string{"queue"}))
	reg.MustRegister(prometheus.NewCounterVec(prometheus.CounterOpts{Name: "workqueue_retries_total", Help: "other"}, []string{"queue"}))
	m, err := NewMetrics(reg)
	if err == nil || m != nil {
		t.Fatalf("NewMetrics = %v, %v; want an error", m, err)
	}
	if !strings.Contains(err.Error(), "registering workqueue metrics") || !strings.Contains(err.Error(), "workqueue_depth") {
		t.Fatalf("error %q does not name the first conflicting family", err)
	}
}
