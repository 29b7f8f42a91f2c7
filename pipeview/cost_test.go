package pipeview_test

// The view's cost: events per second through the whole pipeline —
// reflector → deltafifo → store → processor → handler → queue → sync —
// with no view, with the view wired but closed, with the view open (a
// browser connected over a WebSocket, following a busy pod), and
// "unsampled": every site reporting every event in full with no browser
// (no update ever sets the sampling) — what the view would cost without
// Want, the upper bound. kcm's own
// figure is the open view against the closed one (target: under 5 %
// slower); "none" shows what wiring the view costs at all.
//
//	go test ./pipeview -run '^$' -bench ViewCost -benchtime 5x -count 6

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/pipeview"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/tap"
)

func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// costRun is one pipeline over a podgen server, synced and waiting for
// the server's MODIFIED events.
type costRun struct {
	updates atomic.Int64
	want    int64
	handled chan struct{} // closed when the handler saw every event
	synced  chan struct{} // closed when the sentinel key was synced
	// sentinel adds a key that is synced after every key added before it
	// has been handed to a worker.
	sentinel func()
	stop     func()
	// key is a cached pod's key, for the view to follow.
	key string
}

func startCost(b *testing.B, url string, pods, events int, tp *tap.Tap) *costRun {
	b.Helper()
	r := &costRun{want: int64(events), handled: make(chan struct{}), synced: make(chan struct{})}
	if events == 0 {
		close(r.handled)
	}
	client, err := rest.NewClient(&rest.Config{Host: url, QPS: -1}, rest.WithTap(tp))
	if err != nil {
		b.Fatal(err)
	}
	f := informer.NewFactory(client, informer.FactoryOptions{Tap: tp})
	inf := informer.ForRaw(f, rest.Pods)
	var once sync.Once
	loop := ctrl.NewLoop("cost-controller", func(_ context.Context, key string) (ctrl.Result, error) {
		if key == "sentinel" {
			once.Do(func() { close(r.synced) })
		}
		return ctrl.Result{}, nil
	}, ctrl.LoopOptions{Tap: tp, Synced: []informer.Synced{inf}})
	var adds atomic.Int64
	if _, err := inf.AddEventHandler(processor.HandlerFuncs[*api.RawObject]{
		AddFunc: func(o *api.RawObject, _ bool) { adds.Add(1); loop.Queue().Add(o.Key()) },
		UpdateFunc: func(_, o *api.RawObject) {
			loop.Queue().Add(o.Key())
			if r.updates.Add(1) == r.want {
				close(r.handled)
			}
		},
	}, processor.HandlerOptions{Name: "cost-controller"}); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.Start(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = loop.Run(ctx, 2) }()
	deadline := time.Now().Add(2 * time.Minute)
	for adds.Load() < int64(pods) || !inf.HasSynced() {
		if time.Now().After(deadline) {
			b.Fatalf("the informer did not sync: %d adds", adds.Load())
		}
		time.Sleep(time.Millisecond) // polling the sync; the timed part starts after it
	}
	r.key = inf.Store().ListKeys()[pods/2]
	r.stop = func() { cancel(); <-done; f.Shutdown(); client.CloseIdleConnections() }
	r.sentinel = func() { loop.Queue().Add("sentinel") }
	return r
}

// openView connects a browser-like client to hub, following pod key; it
// reads (and drops) every update until stop is called.
func openView(b *testing.B, hub *pipeview.Hub, key string) (stop func()) {
	b.Helper()
	mux := http.NewServeMux()
	hub.Install(mux)
	srv := httptest.NewServer(mux)
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { defer close(ran); _ = hub.Run(ctx) }()
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+pipeview.Path+"/ws", nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := ws.WriteJSON(map[string]any{"follow": map[string]string{"resource": "pods", "key": key},
		"select": "socket:pods(raw)"}); err != nil {
		b.Fatal(err)
	}
	read := make(chan struct{})
	var updates atomic.Int64
	go func() {
		defer close(read)
		for {
			if _, _, err := ws.ReadMessage(); err != nil {
				return
			}
			updates.Add(1)
		}
	}()
	for !hub.Tap().On() {
		time.Sleep(time.Millisecond) // the connection is being accepted
	}
	return func() {
		cancel()
		<-ran // disconnects the browser
		_ = ws.Close()
		<-read
		srv.Close()
		if updates.Load() == 0 {
			b.Error("the open view sent no update")
		}
	}
}

// costSize is the benchmark's pods and events: 1000 and 20000, or
// $KCM_VIEW_COST="pods,events" (an instruction count under valgrind wants
// fewer; events=0 measures the setup alone).
func costSize(b *testing.B) (pods, events int) {
	pods, events = 1000, 20000
	if v := os.Getenv("KCM_VIEW_COST"); v != "" {
		if _, err := fmt.Sscanf(v, "%d,%d", &pods, &events); err != nil {
			b.Fatalf("KCM_VIEW_COST=%q: want pods,events: %v", v, err)
		}
	}
	return pods, events
}

func BenchmarkViewCost(b *testing.B) {
	pods, events := costSize(b)
	gate := make(chan struct{})
	srv := podgen.NewServer(podgen.ServerOptions{Pods: pods, Events: events, EventsGate: gate})
	defer srv.Close()
	for _, mode := range []string{"none", "closed", "open", "unsampled"} {
		b.Run("view="+mode, func(b *testing.B) {
			var cpu, elapsed time.Duration
			b.ResetTimer()
			b.StopTimer()
			for range b.N {
				var tp *tap.Tap
				var hub *pipeview.Hub
				if mode != "none" {
					hub = pipeview.New(pipeview.Options{})
					tp = hub.Tap()
				}
				r := startCost(b, srv.URL, pods, events, tp)
				closeView := func() {}
				switch mode {
				case "open":
					closeView = openView(b, hub, r.key)
				case "unsampled": // every site reports everything, no browser: no update samples
					tp.SetOn(true)
				}
				b.StartTimer()
				t0, cpu0 := time.Now(), processCPU()
				gate <- struct{}{}
				<-r.handled
				r.sentinel()
				<-r.synced
				elapsed += time.Since(t0)
				cpu += processCPU() - cpu0
				b.StopTimer()
				closeView()
				r.stop()
			}
			b.ReportMetric(float64(events)*float64(b.N)/elapsed.Seconds(), "events/s")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(events*b.N), "cpu-ns/event")
			b.ReportMetric(0, "ns/op")
		})
	}
}
