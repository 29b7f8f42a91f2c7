package reflector_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/kcmlab/kcm/internal/testing/fakelw"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
)

// samples gathers reg into "name{label=value,…} value" lines; a histogram
// gives its sample count and sum.
func samples(t *testing.T, reg *prometheus.Registry) string {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, l.GetName()+"="+l.GetValue())
			}
			name := mf.GetName() + "{" + strings.Join(ls, ",") + "}"
			switch mf.GetType() {
			case dto.MetricType_HISTOGRAM:
				out = append(out, fmt.Sprintf("%s count=%d sum=%g", name, m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()))
			case dto.MetricType_COUNTER:
				out = append(out, fmt.Sprintf("%s %g", name, m.GetCounter().GetValue()))
			case dto.MetricType_GAUGE:
				out = append(out, fmt.Sprintf("%s %g", name, m.GetGauge().GetValue()))
			}
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// awaitBackoff returns once the reflector waits on its clock (it has
// handled the failure before).
func (h *harness) awaitBackoff() {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), fakelw.Patience)
	defer cancel()
	if err := h.clk.BlockUntilWaiters(ctx, 1); err != nil {
		h.t.Fatalf("the reflector did not back off: %v", err)
	}
}

func withMetrics(t *testing.T, o reflector.Options) (reflector.Options, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := reflector.NewMetrics(reg, "pods")
	if err != nil {
		t.Fatal(err)
	}
	o.Metrics = m
	return o, reg
}

// The reflector's series (client-go's reflector metric names): a paged list
// is one list with all its items; each watch is counted with its length
// and events; a watch refused with 403 counts as an error with its Status
// reason, a very short watch as a short watch; a normal end is no error.
func TestMetricsCountListsAndWatches(t *testing.T) {
	o, reg := withMetrics(t, reflector.Options{DisableWatchList: true, PageSize: 2})
	h := run(t, o)
	h.lw.ExpectList().List(rest.ListMeta{ResourceVersion: "100", Continue: "c"}, pod("a", "90"), pod("b", "91"))
	h.clk.Step(2 * time.Second)
	h.lw.ExpectList().List(rest.ListMeta{ResourceVersion: "100"}, pod("c", "92"))
	w := h.watchFrom("100")
	w.Event(rest.Added, pod("d", "101"))
	w.Event(rest.Modified, pod("d", "102"))
	h.clk.Step(30 * time.Second)
	w.End(io.EOF)
	w = h.watchFrom("102")
	h.clk.Step(10 * time.Millisecond)
	w.End(io.EOF) // very short, no event: backed off
	h.expectWait(800 * time.Millisecond)
	h.lw.ExpectWatch().Fail(statusErr(http.StatusForbidden, "Forbidden"))
	h.awaitBackoff()
	h.stop()
	want := strings.Join([]string{
		`reflector_errors_total{name=pods,op=watch,reason=Forbidden} 1`,
		`reflector_items_per_list{name=pods} count=1 sum=3`,
		`reflector_items_per_watch{name=pods} count=2 sum=2`,
		`reflector_last_resource_version{name=pods} 102`,
		`reflector_list_duration_seconds{name=pods} count=1 sum=2`,
		`reflector_lists_total{name=pods} 1`,
		`reflector_short_watches_total{name=pods} 1`,
		`reflector_watch_duration_seconds{name=pods} count=2 sum=30.01`,
		`reflector_watches_total{name=pods} 3`,
	}, "\n")
	if got := samples(t, reg); got != want {
		t.Fatalf("metrics:\n%s\nwant:\n%s", got, want)
	}
}

// A WatchList stream is a list until its end bookmark (items_per_list
// counts its initial events) and a watch after it; a 410 on it is an error
// of the watch, a server's made-up Status reason is labelled by its code.
func TestMetricsOfAWatchList(t *testing.T) {
	o, reg := withMetrics(t, reflector.Options{InitialList: reflector.ListStream})
	h := run(t, o)
	w := h.lw.ExpectWatch().Open()
	w.Event(rest.Added, pod("a", "95"))
	w.Event(rest.Added, pod("b", "90"))
	h.clk.Step(3 * time.Second)
	w.Send(bookmark("100", true))
	h.awaitRV("100") // the list's end is timed before the clock moves on
	w.Event(rest.Added, pod("c", "101"))
	h.clk.Step(5 * time.Second)
	w.End(statusErr(http.StatusInternalServerError, "MadeUpReason\n"))
	h.awaitBackoff()
	h.stop()
	got := samples(t, reg)
	for _, want := range []string{
		`reflector_errors_total{name=pods,op=watch,reason=500} 1`,
		`reflector_items_per_list{name=pods} count=1 sum=2`,
		`reflector_items_per_watch{name=pods} count=1 sum=1`,
		`reflector_list_duration_seconds{name=pods} count=1 sum=3`,
		`reflector_watch_duration_seconds{name=pods} count=1 sum=5`,
		`reflector_last_resource_version{name=pods} 101`,
		`reflector_lists_total{name=pods} 1`,
		`reflector_watches_total{name=pods} 1`,
	} {
		if !strings.Contains(got, want+"\n") && !strings.HasSuffix(got, want) {
			t.Errorf("missing %s in\n%s", want, got)
		}
	}
}

// Two reflectors on one registry share the families (the second finds the
// first's), and a family of the same name but another type is an error.
func TestNewMetricsSharesFamilies(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := reflector.NewMetrics(reg, "pods"); err != nil {
		t.Fatal(err)
	}
	if _, err := reflector.NewMetrics(reg, "nodes"); err != nil {
		t.Fatalf("second reflector: %v", err)
	}
	if m, err := reflector.NewMetrics(nil, "x"); m != nil || err != nil {
		t.Fatalf("nil registry: %v, %v", m, err)
	}
	other := prometheus.NewRegistry()
	other.MustRegister(prometheus.NewGauge(prometheus.GaugeOpts{Name: "reflector_lists_total", Help: "x"}))
	if _, err := reflector.NewMetrics(other, "pods"); err == nil {
		t.Fatal("a conflicting family was accepted")
	}
}

// A LIST cut off by the client's page deadline (a trickling body) is a
// timeout, like an idle one: reason="timeout", not "other".
func TestMetricsListPageTimeoutIsATimeout(t *testing.T) {
	o, reg := withMetrics(t, reflector.Options{DisableWatchList: true})
	h := run(t, o)
	h.lw.ExpectList().Fail(fmt.Errorf("list pods: the page took longer than 2m0s: %w", rest.ErrListPageTimeout))
	h.awaitBackoff()
	h.stop()
	if got, want := samples(t, reg), `reflector_errors_total{name=pods,op=list,reason=timeout} 1`; !strings.Contains(got, want) {
		t.Fatalf("missing %s in\n%s", want, got)
	}
}
