package pipeview

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/tap"
)

// The Tap is on exactly while at least one browser is connected: nobody
// watching means every reporting site costs one atomic load.
func TestTapIsOnOnlyWhileBrowsersAreConnected(t *testing.T) {
	h := newHub(clock.NewFake(t0), Options{})
	if h.Tap().On() {
		t.Fatal("on before any browser")
	}
	a, b := newFakeConn(false), newFakeConn(false)
	stopA := connect(t, h, a)
	stopB := connect(t, h, b)
	if !h.Tap().On() {
		t.Fatal("off with two browsers")
	}
	stopA()
	if !h.Tap().On() {
		t.Fatal("off with one browser left")
	}
	stopB()
	if h.Tap().On() {
		t.Fatal("on after the last browser left")
	}
}

// Deterministic: a browser that takes nothing — its connection's write
// never returns — costs the pipeline nothing. Every report returns at
// once, every update is offered without waiting: ClientBuffer updates
// wait for it, the rest are dropped and counted. Stopping the Hub
// disconnects it.
func TestABrowserThatNeverReadsNeverBlocksThePipeline(t *testing.T) {
	clk := clock.NewFake(t0)
	h := newHub(clk, Options{ClientBuffer: 3})
	c := newFakeConn(true)
	done := make(chan struct{})
	go func() { defer close(done); h.serve(c) }()
	<-c.reading
	h.publish() // the writer takes it and is stuck in WriteMessage for good
	<-c.writing
	p := newPipeline(h.Tap())
	const updates = 50
	finished := make(chan struct{})
	go func() { // the pipeline and the Hub's updates, which must never wait for the browser
		defer close(finished)
		for i := range 10_000 {
			p.socket.Emit(tap.Event{Op: "ADDED", Resource: "pods", Key: fmt.Sprintf("ns/p-%d", i), RV: fmt.Sprint(i)})
		}
		for range updates {
			h.publish()
		}
	}()
	select {
	case <-finished:
	case <-time.After(patience):
		t.Fatal("reporting or publishing waited for a browser that reads nothing")
	}
	if got, want := h.clientList()[0].dropped.Load(), uint64(updates-3); got != want {
		t.Fatalf("dropped %d updates, want %d (buffer 3, one update in the stuck write)", got, want)
	}
	if v := h.buildView(clk.Now(), nil); v.Informers[0].Socket.Total != 10_000 {
		t.Fatalf("socket total %d, want 10000", v.Informers[0].Socket.Total)
	}
	h.shutdown()
	<-done
	if h.connected() != 0 || h.Tap().On() {
		t.Fatal("the stuck browser is still connected after shutdown")
	}
}

// An update's size is set by the number of stages, not by how many
// objects or events passed: after 60 000 events (a 50 000-object list and
// 10 000 watch events) it is no bigger than after 10.
func TestUpdatesAreBoundedHoweverMuchPasses(t *testing.T) {
	clk := clock.NewFake(t0)
	h := newHub(clk, Options{})
	h.Tap().SetOn(true)
	p := newPipeline(h.Tap())
	size := func() int {
		clk.Step(500 * time.Millisecond)
		u, err := newClient(h, newFakeConn(false)).message(mustJSON(t, h.buildView(clk.Now(), nil)), h.pointList())
		if err != nil {
			t.Fatal(err)
		}
		return len(u)
	}
	emit := func(n int, op string) {
		for i := range n {
			key := fmt.Sprintf("namespace-%05d/pod-with-a-realistic-name-%06d", i%100, i)
			p.socket.Emit(tap.Event{Op: op, Resource: "pods", Key: key, RV: fmt.Sprint(1_000_000 + i), Bytes: 3500})
			p.fifo.Emit(tap.Event{Op: "Added", Resource: "pods", Key: key, RV: fmt.Sprint(i), Depth: i})
			p.store.Emit(tap.Event{Op: "Added", Resource: "pods", Key: key, RV: fmt.Sprint(i),
				Index: []string{"+label:app=web", "+namespace:ns", "+owner:0c5f3b2e-1d5e-4a57-9a41-3c3f3d2b1a00"}})
		}
	}
	emit(10, "ADDED")
	small := size()
	emit(50_000, "LIST")
	emit(10_000, "MODIFIED")
	big := size()
	if big > small+small/10 || big > 32<<10 {
		t.Fatalf("update grew from %d to %d bytes with the events that passed", small, big)
	}
	v := h.buildView(clk.Now(), nil)
	if s := v.Informers[0].Socket; s.Total != 60_010 || len(s.Recent) != 6 || s.Recent[0].Key != "namespace-00099/pod-with-a-realistic-name-009999" {
		t.Fatalf("socket: total %d, %d recent, newest %+v", s.Total, len(s.Recent), s.Recent[0])
	}
}

func mustJSON(t *testing.T, v view) []byte {
	t.Helper()
	u, err := jsonMarshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// The view groups the stages as the page draws them — each informer with
// its socket, FIFO, store and handlers, each controller with its queue
// and sync, the clients' writes — with counters, rates, gauges and the
// newest events.
func TestViewGroupsStagesWithCountersRatesAndGauges(t *testing.T) {
	clk := clock.NewFake(t0)
	h := newHub(clk, Options{Recent: 2})
	h.Tap().SetOn(true)
	p := newPipeline(h.Tap())
	depth := int64(7)
	p.fifo.Gauge("depth", func() int64 { return depth })
	h.buildView(clk.Now(), nil) // the rate window's start
	for i := range 20 {
		p.socket.Emit(tap.Event{Op: "ADDED", Resource: "pods", Key: fmt.Sprintf("ns/p%d", i), RV: fmt.Sprint(i)})
	}
	clk.Step(2 * time.Second)
	v := h.buildView(clk.Now(), map[string]bool{"socket:pods": true})
	if len(v.Informers) != 2 || v.Informers[0].Name != "pods" || v.Informers[1].Name != "replicasets.apps" {
		t.Fatalf("informers %+v", v.Informers)
	}
	pods := v.Informers[0]
	if pods.Socket.Total != 20 || pods.Socket.Rate != 10 {
		t.Fatalf("socket total %d rate %v, want 20 and 10/s", pods.Socket.Total, pods.Socket.Rate)
	}
	if len(pods.Socket.Recent) != 20 { // selected: Detail (40) rather than Recent (2)
		t.Fatalf("selected stage carries %d events", len(pods.Socket.Recent))
	}
	if g := pods.FIFO.Gauges; len(g) != 1 || g[0].Name != "depth" || g[0].Value != 7 {
		t.Fatalf("fifo gauges %+v", g)
	}
	if len(pods.Handlers) != 2 || pods.Handlers[0].Handler != "deployment-controller" || pods.Handlers[0].ID != "handler:pods:deployment-controller" {
		t.Fatalf("handlers %+v", pods.Handlers)
	}
	if len(v.Controllers) != 1 || v.Controllers[0].Enqueue == nil || v.Controllers[0].Sync == nil {
		t.Fatalf("controllers %+v", v.Controllers)
	}
	if len(v.Writers) != 1 || v.Writers[0].Source != "kcm/v0 (replicaset-controller)" {
		t.Fatalf("writers %+v", v.Writers)
	}
	if strings.Join(v.Resources, ",") != "pods,replicasets.apps" {
		t.Fatalf("resources %v", v.Resources)
	}
}

func TestRateWindow(t *testing.T) {
	var w rateWindow
	if r := w.add(t0, 100); r != 0 {
		t.Fatalf("first sample rate %v", r)
	}
	for i := 1; i <= 10; i++ {
		r := w.add(t0.Add(time.Duration(i)*500*time.Millisecond), uint64(100+50*i))
		if r != 100 {
			t.Fatalf("sample %d: rate %v, want 100/s", i, r)
		}
	}
	var still rateWindow
	still.add(t0, 1)
	if r := still.add(t0, 5); r != 0 {
		t.Fatalf("no time passed, rate %v", r)
	}
}
