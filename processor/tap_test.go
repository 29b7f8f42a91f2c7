package processor

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/tap"
)

// steppingHandler advances the clock by d inside every call, so that the
// call's reported duration is exact, and records the keys it was given.
type steppingHandler struct {
	clk  *clock.Fake
	d    time.Duration
	seen chan string
}

func (h steppingHandler) OnAdd(obj *api.Pod, _ bool) { h.clk.Step(h.d); h.seen <- obj.Key() }
func (h steppingHandler) OnUpdate(_, obj *api.Pod)   { h.clk.Step(h.d); h.seen <- obj.Key() }
func (h steppingHandler) OnDelete(obj *api.Pod, _ bool) {
	h.clk.Step(h.d)
	h.seen <- obj.Key()
}

// While the view watches, every handler call is reported twice at the
// Handler stage, named after the informer and the handler: when it begins
// (OpBegin) and when it returns (the method called, how long it took, and
// how many notifications wait behind it). The buffer is a gauge. Nobody
// watching: nothing is reported.
func TestTapReportsHandlerCalls(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	var log tap.Log
	tp := tap.New(&log, clk)
	p := mustNew(t, Options[*api.Pod]{Name: "pods", Clock: clk, Tap: tp})
	h := steppingHandler{clk: clk, d: 5 * time.Millisecond, seen: make(chan string, 10)}
	mustAdd(t, p, h, HandlerOptions{Name: "replicaset-controller"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	take := func(want string) {
		t.Helper()
		select {
		case got := <-h.seen:
			if got != want {
				t.Fatalf("handler got %s, want %s", got, want)
			}
		case <-time.After(testTimeout):
			t.Fatalf("handler never got %s", want)
		}
	}
	p.Distribute(AddNotification(pod("ns", "off", 1), false))
	take("ns/off")
	tp.SetOn(true)
	a := pod("ns", "a", 2)
	a.UID = "uid-a"
	p.Distribute(AddNotification(a, false))
	take("ns/a")
	p.Distribute(UpdateNotification(a, pod("ns", "a", 3)))
	take("ns/a")
	p.Distribute(DeleteNotification(pod("ns", "a", 3), true))
	take("ns/a")
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range log.Matching(tap.Handler, nil) {
		got = append(got, fmt.Sprintf("%s/%s %s %s %s@%s %s took=%v", e.Source, e.Handler, e.Op, e.Resource, e.Key, e.RV, e.UID, e.Took))
	}
	want := []string{
		"pods/replicaset-controller begin pods ns/a@2 uid-a took=0s",
		"pods/replicaset-controller OnAdd pods ns/a@2 uid-a took=5ms",
		"pods/replicaset-controller begin pods ns/a@3  took=0s",
		"pods/replicaset-controller OnUpdate pods ns/a@3  took=5ms",
		"pods/replicaset-controller begin pods ns/a@3  took=0s",
		"pods/replicaset-controller OnDelete pods ns/a@3  took=5ms",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("handler events\n%q\nwant\n%q", got, want)
	}
	if v, ok := log.Gauge("handler/pods/replicaset-controller/pending"); !ok || v != 0 {
		t.Fatalf("pending gauge = %d, %v (gauges %v)", v, ok, log.GaugeNames())
	}
}

func TestHandlerCallNames(t *testing.T) {
	o := pod("ns", "a", 1)
	for n, want := range map[Notification[*api.Pod]]string{
		AddNotification(o, false):   "OnAdd",
		AddNotification(o, true):    "OnAdd (initial list)",
		UpdateNotification(o, o):    "OnUpdate",
		SyncNotification(o, o):      "OnUpdate (resync)",
		DeleteNotification(o, true): "OnDelete",
		{}:                          "invalid",
	} {
		if got := handlerCall(n); got != want {
			t.Errorf("handlerCall(%v) = %q, want %q", n.Kind, got, want)
		}
	}
	var nilPod *api.Pod
	if metaOf(nilPod) != nil || metaOf(o) == nil {
		t.Error("metaOf: nil object must give nil metadata, a real one its own")
	}
}

// A call the view does not want is not reported, only announced
// (Calling), so that the view still knows a call is in progress.
func TestTapDeclinedCallsAreOnlyAnnounced(t *testing.T) {
	log := tap.Log{Decline: func(string, string) bool { return true }}
	tp := tap.New(&log, nil)
	tp.SetOn(true)
	p := mustNew(t, Options[*api.Pod]{Name: "pods", Tap: tp})
	rec := newRecorder()
	mustAdd(t, p, rec, HandlerOptions{Name: "rs"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	p.Distribute(AddNotification(pod("ns", "a", 1), false))
	rec.take(t, 1)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := len(log.Matching(tap.Handler, nil)); n != 0 {
		t.Fatalf("a declined call was reported %d times", n)
	}
	if got := fmt.Sprint(log.Calls()); got != "[true false]" || log.Declined() != 1 {
		t.Fatalf("calls announced %s, declined %d; want [true false], 1", got, log.Declined())
	}
}
