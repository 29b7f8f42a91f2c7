package pipeview

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/tap"
)

// playPodPath reports, through p, what the manager does when the
// ReplicaSet controller creates pod ns/web-1 for ReplicaSet ns/web-rs,
// with another pod's traffic interleaved, stepping clk between stages.
func playPodPath(clk *clock.Fake, p pipeline) {
	step := func() { clk.Step(time.Millisecond) }
	rsSync := tap.SyncRef{Controller: "replicaset-controller", Key: "ns/web-rs", Seq: 4}
	// Sync #4 creates the pod.
	p.sync.Emit(tap.Event{Op: tap.OpBegin, Key: "ns/web-rs", Sync: rsSync})
	step()
	p.write.Emit(tap.Event{Op: "POST", Resource: "pods", Key: "ns/web-1", RV: "10", UID: "u1", Sync: rsSync})
	p.sync.Emit(tap.Event{Op: "success", Key: "ns/web-rs", Sync: rsSync})
	step()
	// The pod comes back on the watch, caused by that write.
	p.socket.Emit(tap.Event{Op: "ADDED", Resource: "pods", Key: "ns/web-1", RV: "10", UID: "u1"})
	p.fifo.Emit(tap.Event{Op: "Added", Resource: "pods", Key: "ns/web-1", RV: "10"})
	p.socket.Emit(tap.Event{Op: "ADDED", Resource: "pods", Key: "ns/other", RV: "11"})
	step()
	p.store.Emit(tap.Event{Op: "Added", Resource: "pods", Key: "ns/web-1", RV: "10", Index: []string{"+owner:rs-uid"}})
	step()
	// Two handlers: the ReplicaSet controller's adds its owner's key.
	p.rsHandler.Emit(tap.Event{Op: tap.OpBegin, Resource: "pods", Key: "ns/web-1"})
	p.enqueue.Emit(tap.Event{Op: "Add", Key: "ns/web-rs", Depth: 1})
	step()
	p.rsHandler.Emit(tap.Event{Op: "OnAdd", Resource: "pods", Key: "ns/web-1", Took: time.Millisecond})
	p.depHandler.Emit(tap.Event{Op: tap.OpBegin, Resource: "pods", Key: "ns/web-1"})
	p.depHandler.Emit(tap.Event{Op: "OnAdd", Resource: "pods", Key: "ns/web-1"})
	// The other pod's handler adds another key: not on the trail.
	p.rsHandler.Emit(tap.Event{Op: tap.OpBegin, Resource: "pods", Key: "ns/other"})
	p.enqueue.Emit(tap.Event{Op: "Add", Key: "ns/other-rs"})
	p.rsHandler.Emit(tap.Event{Op: "OnAdd", Resource: "pods", Key: "ns/other"})
	step()
	// Sync #5 of the owner fails once, is retried, and writes its status.
	s5 := tap.SyncRef{Controller: "replicaset-controller", Key: "ns/web-rs", Seq: 5}
	p.sync.Emit(tap.Event{Op: tap.OpBegin, Key: "ns/web-rs", Sync: s5})
	step()
	p.sync.Emit(tap.Event{Op: "error: retry with backoff", Key: "ns/web-rs", Sync: s5, Err: "conflict"})
	p.enqueue.Emit(tap.Event{Op: "AddRateLimited", Key: "ns/web-rs", Delay: 5 * time.Millisecond, Retries: 1})
	clk.Step(5 * time.Millisecond)
	s6 := tap.SyncRef{Controller: "replicaset-controller", Key: "ns/web-rs", Seq: 6}
	p.sync.Emit(tap.Event{Op: tap.OpBegin, Key: "ns/web-rs", Sync: s6})
	step()
	p.write.Emit(tap.Event{Op: "PUT status", Resource: "replicasets.apps", Key: "ns/web-rs", RV: "12", Sync: s6})
	p.sync.Emit(tap.Event{Op: "success", Key: "ns/web-rs", Sync: s6})
	step()
	// Its watch event closes the loop; a later sync of the key does not
	// belong to the trail any more.
	p.rsSocket.Emit(tap.Event{Op: "MODIFIED", Resource: "replicasets.apps", Key: "ns/web-rs", RV: "12"})
	s7 := tap.SyncRef{Controller: "replicaset-controller", Key: "ns/web-rs", Seq: 7}
	p.sync.Emit(tap.Event{Op: tap.OpBegin, Key: "ns/web-rs", Sync: s7})
	p.sync.Emit(tap.Event{Op: "success", Key: "ns/web-rs", Sync: s7})
}

func trailLines(tv trailView) []string {
	var out []string
	for _, s := range tv.Steps {
		loop := ""
		if s.Loop {
			loop = " ⟲"
		}
		out = append(out, fmt.Sprintf("+%gms %s %s %s %s%s", s.Since, s.ID, s.Op, s.Key, s.RV, loop))
	}
	return out
}

// Following a pod shows its own path — the watch event (with the write
// that caused it), the FIFO, the store write, each handler call — then
// the key its handler added to the ReplicaSet controller's queue, the
// syncs of that key until one succeeds (a failure and its retry
// included), the writes they made, and the watch event of the last write:
// the loop closed. Other objects' traffic stays out, and so does a later
// sync the pod did not cause. Each step carries its latency since the
// previous one.
func TestFollowingAPodClosesTheLoop(t *testing.T) {
	clk := clock.NewFake(t0)
	h := newHub(clk, Options{})
	h.Tap().SetOn(true)
	p := newPipeline(h.Tap())
	tr := newTrail(target{Resource: "pods", Key: "ns/web-1"})
	playPodPath(clk, p)
	tr.update(h.pointList(), &h.writes) // started late: the stages still keep it all
	got := trailLines(tr.view())
	want := []string{
		"+0ms socket:pods ADDED ns/web-1 10",
		"+0ms fifo:pods Added ns/web-1 10",
		"+1ms store:pods Added ns/web-1 10",
		"+1ms enqueue:replicaset-controller Add ns/web-rs ",
		"+1ms handler:pods:replicaset-controller OnAdd ns/web-1 ",
		"+0ms handler:pods:deployment-controller OnAdd ns/web-1 ",
		"+1ms sync:replicaset-controller begin ns/web-rs ",
		"+1ms sync:replicaset-controller error: retry with backoff ns/web-rs ",
		"+0ms enqueue:replicaset-controller AddRateLimited ns/web-rs ",
		"+5ms sync:replicaset-controller begin ns/web-rs ",
		"+1ms write:kcm/v0 (replicaset-controller) PUT status ns/web-rs 12",
		"+0ms sync:replicaset-controller success ns/web-rs ",
		"+1ms socket:replicasets.apps MODIFIED ns/web-rs 12 ⟲",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("trail\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	steps := tr.view().Steps
	if d := steps[0].Detail; !strings.Contains(d, "← POST by kcm/v0 (replicaset-controller), sync #4 of ns/web-rs") {
		t.Errorf("the pod's arrival does not name the write that created it: %q", d)
	}
	if d := steps[2].Detail; !strings.Contains(d, "index +owner:rs-uid") {
		t.Errorf("the store write does not show the index entries it moved: %q", d)
	}
	if d := steps[3].Detail; !strings.Contains(d, "← pods ns/web-1") {
		t.Errorf("the add does not name the pod that caused it: %q", d)
	}
	if d := steps[6].Detail; !strings.Contains(d, "waited 2ms in the queue") {
		t.Errorf("the sync does not say how long the key waited: %q", d)
	}
	if d := steps[7].Detail; !strings.Contains(d, "error: conflict") {
		t.Errorf("the failed sync does not show its error: %q", d)
	}
}

// A trail is extended by later updates from where the last one stopped,
// without repeating a step.
func TestTrailGrowsWithoutRepeats(t *testing.T) {
	clk := clock.NewFake(t0)
	h := newHub(clk, Options{})
	h.Tap().SetOn(true)
	p := newPipeline(h.Tap())
	tr := newTrail(target{Resource: "pods", Key: "ns/a"})
	p.socket.Emit(tap.Event{Op: "ADDED", Resource: "pods", Key: "ns/a", RV: "1"})
	tr.update(h.pointList(), &h.writes)
	tr.update(h.pointList(), &h.writes)
	p.socket.Emit(tap.Event{Op: "MODIFIED", Resource: "pods", Key: "ns/a", RV: "2"})
	tr.update(h.pointList(), &h.writes)
	if got := trailLines(tr.view()); len(got) != 2 || !strings.Contains(got[1], "MODIFIED ns/a 2") {
		t.Fatalf("trail %q", got)
	}
}

// When a stage keeps fewer events than passed between two updates, the
// trail says some steps may be missing; and it keeps at most maxSteps.
func TestTrailReportsGapsAndStaysBounded(t *testing.T) {
	clk := clock.NewFake(t0)
	h := newHub(clk, Options{History: 8})
	h.Tap().SetOn(true)
	p := newPipeline(h.Tap())
	tr := newTrail(target{Resource: "pods", Key: "ns/a"})
	p.socket.Emit(tap.Event{Op: "ADDED", Resource: "pods", Key: "ns/a", RV: "1"})
	tr.update(h.pointList(), &h.writes)
	for i := range 20 {
		p.socket.Emit(tap.Event{Op: "MODIFIED", Resource: "pods", Key: "ns/a", RV: fmt.Sprint(i + 2)})
	}
	tr.update(h.pointList(), &h.writes)
	if v := tr.view(); v.Gaps != 1 || len(v.Steps) != 9 {
		t.Fatalf("gaps %d, %d steps; want 1 gap, 1+8 steps", v.Gaps, len(v.Steps))
	}
	big := newHub(clk, Options{History: 2 * maxSteps})
	big.Tap().SetOn(true)
	bp := newPipeline(big.Tap())
	for i := range maxSteps + 50 {
		bp.socket.Emit(tap.Event{Op: "MODIFIED", Resource: "pods", Key: "ns/a", RV: fmt.Sprint(i)})
	}
	tr = newTrail(target{Resource: "pods", Key: "ns/a"})
	tr.update(big.pointList(), &big.writes)
	if v := tr.view(); len(v.Steps) != maxSteps || v.Dropped != 50 || v.Steps[0].RV != "50" {
		t.Fatalf("%d steps, %d dropped, first rv %s", len(v.Steps), v.Dropped, v.Steps[0].RV)
	}
}

// An add is credited to a handler call only when it is the one call of
// that controller in progress, and only for the adds handlers make.
func TestCorrelatorCreditsOnlyUnambiguousHandlerAdds(t *testing.T) {
	var c correlator
	// The controller's handlers on two informers.
	onPods := &point{id: pointID{stage: tap.Handler, source: "pods", handler: "rs"}}
	onRS := &point{id: pointID{stage: tap.Handler, source: "replicasets.apps", handler: "rs"}}
	c.register(onPods)
	c.register(onRS)
	if got := c.cause("rs", "Add"); got != nil {
		t.Fatalf("no call in progress, credited to %+v", got)
	}
	c.begin(onPods, "pods", "ns/a")
	for op, credited := range map[string]bool{"Add": true, "Add (deduplicated)": true, "Add (held: ready after Done)": true,
		"Add (low priority)": true, "AddAfter": false, "AddRateLimited": false, "Add (wait over)": false} {
		if got := c.cause("rs", op); (got != nil) != credited {
			t.Errorf("%s credited %v, want %v", op, got, credited)
		}
	}
	if got := c.cause("other", "Add"); got != nil {
		t.Errorf("another controller's add credited to %+v", got)
	}
	c.begin(onRS, "replicasets.apps", "ns/b") // the other informer's handler runs at once
	if got := c.cause("rs", "Add"); got != nil {
		t.Errorf("two calls in progress, yet credited to %+v", got)
	}
	c.end(onRS) // the later call ends first: the earlier one is left
	if got := c.cause("rs", "Add"); got == nil || got.Resource != "pods" || got.Key != "ns/a" {
		t.Errorf("one call left (pods ns/a), credited to %+v", got)
	}
	c.calling(onRS, true) // a call the view did not want makes it ambiguous again
	if got := c.cause("rs", "Add"); got != nil {
		t.Errorf("a second call (not reported) in progress, yet credited to %+v", got)
	}
	c.calling(onRS, false)
	c.end(onPods)
	c.end(onPods) // an unmatched end changes nothing
	c.calling(onRS, false)
	if got := c.cause("rs", "Add"); got != nil {
		t.Errorf("no call in progress, credited to %+v", got)
	}
}

// The write index links a watch event to the write that caused it by
// resource, key and resourceVersion (a delete by key), forgets the oldest
// beyond its bound, and ignores failed writes.
func TestRecentWritesLinkWatchEvents(t *testing.T) {
	var w recentWrites
	w.init(2)
	w.put(tap.Event{Op: "POST", Source: "ua", Resource: "pods", Key: "ns/a", RV: "1"})
	w.put(tap.Event{Op: "PUT", Source: "ua", Resource: "pods", Key: "ns/b", RV: "2", Err: "409 Conflict"})
	w.put(tap.Event{Op: "DELETE", Source: "ua", Resource: "pods", Key: "ns/c"})
	if ref := w.find(tap.Event{Op: "ADDED", Resource: "pods", Key: "ns/a", RV: "1"}); ref == nil || ref.Op != "POST" {
		t.Fatalf("ADDED not linked: %+v", ref)
	}
	if ref := w.find(tap.Event{Op: "MODIFIED", Resource: "pods", Key: "ns/b", RV: "2"}); ref != nil {
		t.Fatalf("a failed write was linked: %+v", ref)
	}
	if ref := w.find(tap.Event{Op: "DELETED", Resource: "pods", Key: "ns/c", RV: "9"}); ref == nil || ref.Op != "DELETE" {
		t.Fatalf("DELETED not linked: %+v", ref)
	}
	if ref := w.find(tap.Event{Op: "BOOKMARK", Resource: "pods", Key: "ns/a", RV: "1"}); ref != nil {
		t.Fatal("a bookmark was linked")
	}
	w.put(tap.Event{Op: "POST", Source: "ua", Resource: "pods", Key: "ns/d", RV: "4"})
	if ref := w.find(tap.Event{Op: "ADDED", Resource: "pods", Key: "ns/a", RV: "1"}); ref != nil {
		t.Fatal("the oldest write was not forgotten beyond the bound")
	}
}

// The apiserver may send a write's watch event before the writing client
// has read the answer, so the write is reported after the event. The link
// is made all the same: the watch event names its write, and the trail
// closes the loop on it.
func TestWriteReportedAfterItsWatchEventStillLinks(t *testing.T) {
	clk := clock.NewFake(t0)
	h := newHub(clk, Options{})
	h.Tap().SetOn(true)
	p := newPipeline(h.Tap())
	s1 := tap.SyncRef{Controller: "replicaset-controller", Key: "ns/web-rs", Seq: 1}
	p.rsHandler.Emit(tap.Event{Op: tap.OpBegin, Resource: "pods", Key: "ns/web-1"})
	p.enqueue.Emit(tap.Event{Op: "Add", Key: "ns/web-rs"})
	p.rsHandler.Emit(tap.Event{Op: "OnAdd", Resource: "pods", Key: "ns/web-1"})
	p.sync.Emit(tap.Event{Op: tap.OpBegin, Key: "ns/web-rs", Sync: s1})
	tr := newTrail(target{Resource: "pods", Key: "ns/web-1"})
	tr.update(h.pointList(), &h.writes) // an update falls between the event and the write
	p.rsSocket.Emit(tap.Event{Op: "MODIFIED", Resource: "replicasets.apps", Key: "ns/web-rs", RV: "12"})
	tr.update(h.pointList(), &h.writes)
	p.write.Emit(tap.Event{Op: "PUT status", Resource: "replicasets.apps", Key: "ns/web-rs", RV: "12", Sync: s1})
	p.sync.Emit(tap.Event{Op: "success", Key: "ns/web-rs", Sync: s1})
	tr.update(h.pointList(), &h.writes)
	got := trailLines(tr.view())
	if len(got) != 6 || !strings.HasSuffix(got[4], "MODIFIED ns/web-rs 12 ⟲") {
		t.Fatalf("trail\n%s", strings.Join(got, "\n"))
	}
	if d := tr.view().Steps[4].Detail; !strings.Contains(d, "← PUT status by kcm/v0 (replicaset-controller), sync #1 of ns/web-rs") {
		t.Fatalf("the watch event does not name its write: %q", d)
	}
	v := h.buildView(clk.Now(), nil)
	if d := v.Informers[1].Socket.Recent[0].Detail; !strings.Contains(d, "← PUT status") {
		t.Fatalf("the stage's newest event does not name its write: %q", d)
	}
}
