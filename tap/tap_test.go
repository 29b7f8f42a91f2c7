package tap

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
)

// TestNilIsOff: a layer built without a view holds nil Points; every call
// on them is a no-op and On is false.
func TestNilIsOff(t *testing.T) {
	var tp *Tap
	p := tp.Point(Socket, "pods", "")
	if p != nil || tp.On() || tp.NextSeq() != 0 {
		t.Fatalf("nil Tap: Point = %v, On = %v", p, tp.On())
	}
	tp.SetOn(true)
	if p.On() {
		t.Fatal("nil Point is On")
	}
	p.Emit(Event{Key: "a"})
	p.Gauge("depth", func() int64 { return 1 })
	if !p.Now().IsZero() || p.Tap() != nil {
		t.Fatal("nil Point has a clock or a Tap")
	}
}

// TestOnSwitchesEveryPoint: SetOn flips what On reports at every point of
// the Tap at once; Emit fills in the point's identity and the clock's time.
func TestOnSwitchesEveryPoint(t *testing.T) {
	clk := clock.NewFake(time.Unix(100, 0))
	var log Log
	tp := New(&log, clk)
	a, b := tp.Point(Socket, "pods", ""), tp.Point(Handler, "pods", "replicaset-controller")
	if a.On() || b.On() {
		t.Fatal("a new Tap is on")
	}
	tp.SetOn(true)
	if !a.On() || !b.On() || !tp.On() {
		t.Fatal("SetOn(true) did not reach every point")
	}
	b.Emit(Event{Op: "OnAdd", Key: "ns/a", Stage: Write, Source: "spoofed"})
	tp.SetOn(false)
	if a.On() || b.On() {
		t.Fatal("SetOn(false) did not reach every point")
	}
	got := log.Events()
	want := Event{At: time.Unix(100, 0), Stage: Handler, Source: "pods", Handler: "replicaset-controller", Op: "OnAdd", Key: "ns/a"}
	if len(got) != 1 || !got[0].At.Equal(want.At) || got[0].Stage != want.Stage || got[0].Source != want.Source ||
		got[0].Handler != want.Handler || got[0].Key != want.Key {
		t.Fatalf("events = %+v, want [%+v]", got, want)
	}
}

func TestGauges(t *testing.T) {
	var log Log
	tp := New(&log, nil)
	p := tp.Point(FIFO, "pods", "")
	p.Gauge("depth", func() int64 { return 3 })
	p.Gauge("depth", func() int64 { return 4 }) // replaces
	if v, ok := log.Gauge("fifo/pods//depth"); !ok || v != 4 {
		t.Fatalf("gauge = %d, %v; names %v", v, ok, log.GaugeNames())
	}
	if _, ok := log.Gauge("fifo/pods//missing"); ok {
		t.Fatal("missing gauge found")
	}
}

func TestSyncRefTravelsInContext(t *testing.T) {
	if _, ok := SyncOf(context.Background()); ok {
		t.Fatal("background context carries a sync")
	}
	ref := SyncRef{Controller: "replicaset-controller", Key: "ns/rs", Seq: 7}
	got, ok := SyncOf(WithSync(context.Background(), ref))
	if !ok || got != ref {
		t.Fatalf("SyncOf = %+v, %v", got, ok)
	}
}

func TestSeqIsFreshAndNonZero(t *testing.T) {
	tp := New(&Log{}, nil)
	a, b := tp.NextSeq(), tp.NextSeq()
	if a == 0 || b == a {
		t.Fatalf("NextSeq = %d, %d", a, b)
	}
}

func TestStageNames(t *testing.T) {
	for s, want := range map[Stage]string{Socket: "socket", FIFO: "fifo", Store: "store", Handler: "handler",
		Enqueue: "enqueue", Sync: "sync", Write: "write", 0: "stage(?)", 99: "stage(?)"} {
		if s.String() != want {
			t.Errorf("Stage(%d) = %q, want %q", s, s.String(), want)
		}
	}
}

func TestResourceOf(t *testing.T) {
	for in, want := range map[string]string{"pods": "pods", "pods(raw)": "pods", "deployments.apps(metadata)": "deployments.apps", "": ""} {
		if got := ResourceOf(in); got != want {
			t.Errorf("ResourceOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// Want asks the sink; a nil Point wants nothing; a declined call is
// reported with Calling.
func TestWant(t *testing.T) {
	var nilPoint *Point
	if nilPoint.Want("ns", "a") {
		t.Fatal("a nil Point wants")
	}
	nilPoint.Calling(true)
	log := Log{Decline: func(ns, name string) bool { return name == "busy" }}
	p := New(&log, nil).Point(Handler, "pods", "rs")
	if !p.Want("ns", "followed") || p.Want("ns", "busy") {
		t.Fatal("Want does not follow the sink's Decline")
	}
	p.Calling(true)
	p.Calling(false)
	if log.Declined() != 1 || fmt.Sprint(log.Calls()) != "[true false]" {
		t.Fatalf("declined %d, calls %v", log.Declined(), log.Calls())
	}
}
