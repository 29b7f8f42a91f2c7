package pipeview_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/internal/testing/browser"
	"github.com/kcmlab/kcm/pipeview"
	"github.com/kcmlab/kcm/tap"
)

// synthetic reports, through tp, a manager's pipeline over a cache of
// objects pods (gauges included), emit's n watch events at a time: every
// event passes socket, FIFO, store, the ReplicaSet controller's handler
// and queue, and every tenth a sync and a write; every hundredth is for
// pod ns-0/hot.
type synthetic struct {
	tp                                                            *tap.Tap
	socket, fifo, store, handler, enqueue, syncs, write, rsSocket *tap.Point
	objects, i, rv                                                int
}

func newSynthetic(tp *tap.Tap, objects int) *synthetic {
	s := &synthetic{tp: tp, objects: objects, rv: 100_000,
		socket:   tp.Point(tap.Socket, "pods", ""),
		fifo:     tp.Point(tap.FIFO, "pods", ""),
		store:    tp.Point(tap.Store, "pods", ""),
		handler:  tp.Point(tap.Handler, "pods", "replicaset-controller"),
		enqueue:  tp.Point(tap.Enqueue, "replicaset-controller", ""),
		syncs:    tp.Point(tap.Sync, "replicaset-controller", ""),
		write:    tp.Point(tap.Write, "kcm/v0 (replicaset-controller)", ""),
		rsSocket: tp.Point(tap.Socket, "replicasets.apps", ""),
	}
	s.store.Gauge("objects", func() int64 { return int64(objects) })
	s.fifo.Gauge("depth", func() int64 { return 3 })
	return s
}

// emit reports n watch events and what follows from them.
func (s *synthetic) emit(n int) {
	for range n {
		s.i++
		s.rv++
		key := fmt.Sprintf("ns-%d/web-%d", s.i%20, s.i%s.objects)
		if s.i%100 == 0 {
			key = "ns-0/hot" // the one the test follows
		}
		rs := fmt.Sprintf("ns-%d/web-rs", s.i%20)
		r := fmt.Sprint(s.rv)
		s.socket.Emit(tap.Event{Op: "MODIFIED", Resource: "pods", Key: key, RV: r, Bytes: 3400})
		s.fifo.Emit(tap.Event{Op: "Updated", Resource: "pods", Key: key, RV: r, Depth: 2})
		s.store.Emit(tap.Event{Op: "Updated", Resource: "pods", Key: key, RV: r, Index: []string{"+label:rev=" + r}})
		s.handler.Emit(tap.Event{Op: tap.OpBegin, Resource: "pods", Key: key})
		s.enqueue.Emit(tap.Event{Op: "Add", Key: rs, Depth: 1})
		s.handler.Emit(tap.Event{Op: "OnUpdate", Resource: "pods", Key: key, Took: 20 * time.Microsecond})
		if s.i%10 == 0 {
			ref := tap.SyncRef{Controller: "replicaset-controller", Key: rs, Seq: s.tp.NextSeq()}
			s.syncs.Emit(tap.Event{Op: tap.OpBegin, Key: rs, Sync: ref})
			s.rv++
			s.write.Emit(tap.Event{Op: "PUT status", Resource: "replicasets.apps", Key: rs, RV: fmt.Sprint(s.rv), Sync: ref})
			s.syncs.Emit(tap.Event{Op: "success", Key: rs, Sync: ref, Took: time.Millisecond})
			s.rsSocket.Emit(tap.Event{Op: "MODIFIED", Resource: "replicasets.apps", Key: rs, RV: fmt.Sprint(s.rv)})
		}
	}
}

// artifacts is where browser tests leave their screenshots: $KCM_ARTIFACTS,
// else a new directory under the system's temporary directory (kept, and
// printed, so that a failure can be looked at).
func artifacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("KCM_ARTIFACTS")
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "kcm-browser-"); err != nil {
			t.Fatal(err)
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", dir)
	return dir
}

// In a real headless Chromium the page keeps up while the pipeline passes
// 1000 events a second over a cache of 50 000 objects: it renders every
// update the hub sends (two a second), shows the socket's rate exactly
// (1000/s), follows a busy key through its syncs, keeps its document the
// same size however many objects and events pass (what keeps rendering
// cheap), and raises no error (a CSP violation would be one).
//
// The hub runs on a fake clock and the test is the pipeline: each period
// it reports 500 events, steps the clock 500 ms and waits for the page to
// render the update. Nothing depends on how fast this machine is; the
// render times the page measures (20 ms median on an idle 2-core machine)
// are logged, not asserted: wall-clock figures on a machine other tests
// share are not a rule.
func TestPageStaysResponsiveUnderLoad(t *testing.T) {
	const (
		period    = 500 * time.Millisecond // the hub's default Period
		perPeriod = 500                    // 1000 events a second
		objects   = 50_000
	)
	path, err := browser.Find()
	if err != nil {
		t.Fatal(err) // make test installs Chromium; a missing one fails, never skips
	}
	clk := clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	hub := pipeview.New(pipeview.Options{Clock: clk, Period: period})
	mux := http.NewServeMux()
	hub.Install(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	// A bound that only turns a hang into a failure.
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	wg.Add(1)
	go func() { defer wg.Done(); _ = hub.Run(runCtx) }()
	gen := newSynthetic(hub.Tap(), objects)

	b, err := browser.Launch(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	page, err := b.NewPage(ctx, 1600, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if err := page.Navigate(ctx, srv.URL+pipeview.Path); err != nil {
		t.Fatal(err)
	}
	if err := page.Eval(ctx, `(() => { window.longTasks = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.longTasks.push(e.duration) }).observe({type: 'longtask', buffered: true}); return true })()`, nil); err != nil {
		t.Fatal(err)
	}
	failed := func(err error) {
		t.Helper()
		var state string
		_ = page.Eval(ctx, `document.body.dataset.updates + ' | ' + document.getElementById('status').textContent + ' | ' + document.getElementById('trail').innerText.slice(0, 2000)`, &state)
		png, _ := page.Screenshot(ctx)
		_ = os.WriteFile(filepath.Join(artifacts(t), "failed.png"), png, 0o644)
		t.Fatalf("%v; page: %s; problems %q", err, state, page.Problems())
	}
	// The update the hub sends a browser that joins.
	if err := page.WaitFor(ctx, `document.querySelector('[data-stage="store:pods"] [data-gauge="objects"]')?.textContent === 'objects 50000'`); err != nil {
		failed(err)
	}
	if err := page.Type(ctx, "#key", "ns-0/hot"); err != nil {
		t.Fatal(err)
	}
	if err := page.Click(ctx, `#follow button[type="submit"]`); err != nil {
		t.Fatal(err)
	}
	if err := page.WaitFor(ctx, `document.querySelector('#trail')?.innerText.includes('ns-0/hot')`); err != nil {
		failed(err) // the update that answers the follow
	}
	rendered := func() int {
		t.Helper()
		var n int
		if err := page.Eval(ctx, `+document.body.dataset.updates`, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	elements := func() int {
		t.Helper()
		var n int
		if err := page.Eval(ctx, `document.getElementsByTagName('*').length`, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// One period: the pipeline's events, the hub's periodic update, the
	// page's rendering of it. Were an update lost, the wait would hang
	// until ctx's bound.
	advance := func() {
		t.Helper()
		gen.emit(perPeriod)
		before := rendered()
		if err := clk.BlockUntilWaiters(ctx, 1); err != nil { // Run's period timer
			t.Fatal(err)
		}
		clk.Step(period)
		if err := page.WaitFor(ctx, fmt.Sprintf(`+document.body.dataset.updates > %d`, before)); err != nil {
			failed(err)
		}
	}
	const periods = 20
	for range periods / 2 {
		advance()
	}
	half := elements()
	for range periods / 2 {
		advance()
	}
	if err := page.WaitFor(ctx, `document.querySelectorAll('#trail tr.loop').length > 0`); err != nil {
		failed(fmt.Errorf("the followed pod's syncs never showed in the trail: %w", err))
	}
	var long []float64
	if err := page.Eval(ctx, `window.longTasks`, &long); err != nil {
		t.Fatal(err)
	}
	var renders []float64
	if err := page.Eval(ctx, `window.kcmRenderMs`, &renders); err != nil {
		t.Fatal(err)
	}
	slices.Sort(renders)
	var rate float64
	if err := page.Eval(ctx, `parseFloat(document.querySelector('[data-stage="socket:pods"] .rate').textContent)`, &rate); err != nil {
		t.Fatal(err)
	}
	end := elements()
	t.Logf("%d periods of %d events rendered; %d elements in the document (%d half-way); rendering an update: median %.1f ms, slowest %.1f ms; long tasks (ms): %v",
		periods, perPeriod, end, half, renders[len(renders)/2], renders[len(renders)-1], long)
	// Every event the pipeline reported over the window, per second of the
	// hub's clock.
	if want := float64(perPeriod) / period.Seconds(); rate != want {
		t.Errorf("the socket shows %.0f events/s, want %.0f", rate, want)
	}
	// The page draws a bounded view: 5000 more events and a few hundred
	// more keys must not grow it (a table per object or a row per event
	// would, and is what made pages stall).
	if end > half {
		t.Errorf("the document grew from %d to %d elements over %d periods: the view is not bounded", half, end, periods/2)
	}
	png, err := page.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(artifacts(t), "pipeline-under-load.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	if p := page.Problems(); len(p) > 0 {
		t.Fatalf("the page reported errors: %q", p)
	}
}
