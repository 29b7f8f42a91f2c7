package pipeview

import (
	"fmt"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/tap"
)

// report is what a reporting site does: ask, then emit if wanted.
func report(p *tap.Point, ns, name string, e tap.Event) bool {
	if !p.On() || !p.Want(ns, name) {
		return false
	}
	p.Emit(e)
	return true
}

// A busy stage keeps a sample — about sampleTarget events per update
// period, spread over it — and counts the rest: its total stays exact.
func TestBusyStagesAreSampledTotalsStayExact(t *testing.T) {
	clk := clock.NewFake(t0)
	h := newHub(clk, Options{History: 4096})
	h.Tap().SetOn(true)
	socket := h.Tap().Point(tap.Socket, "pods", "")
	kept := 0
	for i := range 10_000 {
		if report(socket, "ns", fmt.Sprint("p-", i), tap.Event{Op: "MODIFIED", Resource: "pods", Key: fmt.Sprint("ns/p-", i)}) {
			kept++
		}
	}
	if kept != 10_000 {
		t.Fatalf("before any update every event is wanted: kept %d", kept)
	}
	h.buildView(clk.Now(), nil) // the update sets the sampling from this period's 10000
	kept = 0
	for i := range 10_000 {
		if report(socket, "ns", fmt.Sprint("q-", i), tap.Event{Op: "MODIFIED", Resource: "pods", Key: fmt.Sprint("ns/q-", i)}) {
			kept++
		}
	}
	if kept < sampleTarget-1 || kept > sampleTarget+1 {
		t.Fatalf("a period of 10000 events kept %d, want about %d", kept, sampleTarget)
	}
	clk.Step(time.Second)
	if v := h.buildView(clk.Now(), nil); v.Informers[0].Socket.Total != 20_000 {
		t.Fatalf("total %d, want 20000 (kept and counted)", v.Informers[0].Socket.Total)
	}
	h.buildView(clk.Now(), nil) // a quiet period: everything is wanted again
	if !report(socket, "ns", "r", tap.Event{Op: "ADDED"}) {
		t.Fatal("a quiet stage still samples")
	}
}

// However busy the stages, a followed object's events are all wanted, and
// so is the work it causes: the add its handler call makes, the syncs of
// that key, every watch event while such a sync runs, the writes, and the
// later events of the objects those syncs wrote.
func TestAFollowedObjectAndItsWorkAreAlwaysWanted(t *testing.T) {
	clk := clock.NewFake(t0)
	h := newHub(clk, Options{})
	h.Tap().SetOn(true)
	p := newPipeline(h.Tap())
	for _, pt := range []*tap.Point{p.socket, p.fifo, p.store, p.rsHandler, p.enqueue, p.sync, p.rsSocket} {
		pt.Want("", "warm-up")
	}
	for _, pt := range h.pointList() {
		pt.resample(1_000_000) // as busy as it gets: one in 10000 sampled
	}
	h.wants.setFollowed([]target{{Resource: "pods", Key: "ns/web-1"}})
	other := func(pt *tap.Point, ns, name string) {
		t.Helper()
		for range 50 { // 50 draws: a 1-in-10000 sample takes none (counters start at 1)
			if pt.Want(ns, name) {
				t.Fatalf("%s/%s wanted without cause", ns, name)
			}
		}
	}
	for _, pt := range []*tap.Point{p.socket, p.fifo, p.store, p.rsHandler} {
		if !pt.Want("ns", "web-1") {
			t.Fatal("a stage does not want the followed object's event")
		}
	}
	other(p.socket, "ns", "web-2")
	other(p.enqueue, "", "ns/web-rs") // no followed call in progress
	p.rsHandler.Emit(tap.Event{Op: tap.OpBegin, Resource: "pods", Key: "ns/web-1"})
	if !p.enqueue.Want("", "ns/web-rs") {
		t.Fatal("the add made in the followed object's handler call is not wanted")
	}
	p.enqueue.Emit(tap.Event{Op: "Add", Key: "ns/web-rs"})
	p.rsHandler.Emit(tap.Event{Op: "OnAdd", Resource: "pods", Key: "ns/web-1"})
	other(p.enqueue, "", "ns/other-rs")
	if !p.sync.Want("", "ns/web-rs") || !p.enqueue.Want("", "ns/web-rs") {
		t.Fatal("the key the followed object caused is not hot: its sync and retries are not wanted")
	}
	other(p.sync, "", "ns/other-rs")
	s := tap.SyncRef{Controller: "replicaset-controller", Key: "ns/web-rs", Seq: 9}
	p.sync.Emit(tap.Event{Op: tap.OpBegin, Key: "ns/web-rs", Sync: s})
	if !p.socket.Want("ns", "web-7") { // while the hot sync runs: its write's event may come first
		t.Fatal("a watch event during a hot sync is not wanted")
	}
	if !p.write.Want("ns", "anything") {
		t.Fatal("a write is not wanted")
	}
	p.write.Emit(tap.Event{Op: "POST", Resource: "pods", Key: "ns/web-7", RV: "5", Sync: s})
	p.sync.Emit(tap.Event{Op: "success", Key: "ns/web-rs", Sync: s})
	if !p.socket.Want("ns", "web-7") {
		t.Fatal("after the sync, the object it wrote is not hot")
	}
	if !p.rsSocket.Want("ns", "web-rs") {
		t.Fatal("the controller's own object (its status writes) is not hot")
	}
	other(p.socket, "ns", "web-8")
	clk.Step(hotFor + time.Second)
	h.buildView(clk.Now(), nil)
	for _, pt := range h.pointList() {
		pt.resample(1_000_000)
	}
	other(p.socket, "ns", "web-7")
	other(p.sync, "", "ns/web-rs")
}
