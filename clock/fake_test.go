package clock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/kcmlab/kcm/clock"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// recv returns the pending value of c, or false when none is pending.
func recv(c <-chan time.Time) (time.Time, bool) {
	select {
	case v := <-c:
		return v, true
	default:
		return time.Time{}, false
	}
}

func TestFakeNowSinceStep(t *testing.T) {
	f := clock.NewFake(t0)
	f.Step(1500 * time.Millisecond)
	if got := f.Since(t0); got != 1500*time.Millisecond {
		t.Fatalf("Since = %v, want 1.5s", got)
	}
	f.SetTime(t0.Add(-time.Hour))
	if got := f.Now(); !got.Equal(t0.Add(-time.Hour)) {
		t.Fatalf("Now after SetTime backwards = %v", got)
	}
}

func TestFakeTimerFiresAtDeadline(t *testing.T) {
	tests := []struct {
		name   string
		d      time.Duration
		steps  []time.Duration
		fired  bool
		firedV time.Duration // deadline relative to t0
	}{
		{"before deadline", 10 * time.Second, []time.Duration{9 * time.Second}, false, 0},
		{"exactly at deadline", 10 * time.Second, []time.Duration{10 * time.Second}, true, 10 * time.Second},
		{"past deadline in two steps", 10 * time.Second, []time.Duration{6 * time.Second, 6 * time.Second}, true, 10 * time.Second},
		{"zero duration fires at once", 0, nil, true, 0},
		{"negative duration fires at once", -time.Second, nil, true, -time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := clock.NewFake(t0)
			tm := f.NewTimer(tc.d)
			for _, s := range tc.steps {
				f.Step(s)
			}
			v, ok := recv(tm.C())
			if ok != tc.fired {
				t.Fatalf("fired = %v, want %v", ok, tc.fired)
			}
			if ok && !v.Equal(t0.Add(tc.firedV)) {
				t.Fatalf("value = %v, want t0+%v", v.Sub(t0), tc.firedV)
			}
			wantWaiters := 1
			if tc.fired {
				wantWaiters = 0
			}
			if f.Waiters() != wantWaiters {
				t.Fatalf("Waiters = %d, want %d", f.Waiters(), wantWaiters)
			}
		})
	}
}

func TestFakeStepFiresEveryDueTimerWithItsDeadline(t *testing.T) {
	f := clock.NewFake(t0)
	deadlines := []time.Duration{3 * time.Second, time.Second, 2 * time.Second, 2 * time.Second, 9 * time.Second}
	timers := make([]clock.Timer, len(deadlines))
	for i, d := range deadlines {
		timers[i] = f.NewTimer(d)
	}
	f.Step(5 * time.Second)
	for i, tm := range timers {
		v, ok := recv(tm.C())
		if due := deadlines[i] <= 5*time.Second; ok != due {
			t.Fatalf("timer %d (deadline %v): fired = %v, want %v", i, deadlines[i], ok, due)
		}
		if ok && !v.Equal(t0.Add(deadlines[i])) {
			t.Fatalf("timer %d value = t0+%v, want t0+%v", i, v.Sub(t0), deadlines[i])
		}
	}
	if f.Waiters() != 1 {
		t.Fatalf("Waiters = %d, want 1 (the 9s timer)", f.Waiters())
	}
}

func TestFakeStopAndReset(t *testing.T) {
	f := clock.NewFake(t0)
	tm := f.NewTimer(time.Second)
	if !tm.Stop() {
		t.Fatal("Stop of armed timer = false, want true")
	}
	if tm.Stop() {
		t.Fatal("second Stop = true, want false")
	}
	f.Step(2 * time.Second)
	if _, ok := recv(tm.C()); ok {
		t.Fatal("stopped timer fired")
	}

	// Fired but not received: Reset discards the stale value (Go 1.23 rule)
	// and reports that it stopped something.
	if tm.Reset(time.Second) {
		t.Fatal("Reset of a stopped timer = true, want false")
	}
	f.Step(time.Second)
	if !tm.Reset(5 * time.Second) {
		t.Fatal("Reset of fired-but-unreceived timer = false, want true")
	}
	if _, ok := recv(tm.C()); ok {
		t.Fatal("stale value received after Reset")
	}
	f.Step(5 * time.Second)
	v, ok := recv(tm.C())
	if !ok || !v.Equal(t0.Add(8*time.Second)) {
		t.Fatalf("after Reset got (%v, %v), want t0+8s", v.Sub(t0), ok)
	}
	if tm.Stop() {
		t.Fatal("Stop after value received = true, want false")
	}
}

func TestFakeTicker(t *testing.T) {
	f := clock.NewFake(t0)
	tk := f.NewTicker(time.Second)
	f.Step(time.Second)
	if v, ok := recv(tk.C()); !ok || !v.Equal(t0.Add(time.Second)) {
		t.Fatalf("first tick (%v, %v)", v.Sub(t0), ok)
	}
	// A long step delivers one tick; the ticker stays armed on its grid.
	f.Step(10 * time.Second)
	if _, ok := recv(tk.C()); !ok {
		t.Fatal("no tick after long step")
	}
	if _, ok := recv(tk.C()); ok {
		t.Fatal("more than one tick from one step")
	}
	f.Step(500 * time.Millisecond)
	if _, ok := recv(tk.C()); ok {
		t.Fatal("tick off the 1s grid")
	}
	f.Step(500 * time.Millisecond)
	if v, ok := recv(tk.C()); !ok || !v.Equal(t0.Add(12*time.Second)) {
		t.Fatalf("grid tick (%v, %v), want t0+12s", v.Sub(t0), ok)
	}
	tk.Reset(3 * time.Second)
	f.Step(2 * time.Second)
	if _, ok := recv(tk.C()); ok {
		t.Fatal("tick before new period")
	}
	f.Step(time.Second)
	if _, ok := recv(tk.C()); !ok {
		t.Fatal("no tick at new period")
	}
	tk.Stop()
	if f.HasWaiters() {
		t.Fatal("stopped ticker still a waiter")
	}
	f.Step(time.Hour)
	if _, ok := recv(tk.C()); ok {
		t.Fatal("stopped ticker ticked")
	}
}

func TestFakeTickerPanicsOnNonPositive(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("NewTicker(0) did not panic")
		}
	}()
	clock.NewFake(t0).NewTicker(0)
}

func TestBlockUntilWaiters(t *testing.T) {
	f := clock.NewFake(t0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-f.After(time.Minute)
	}()
	if err := f.BlockUntilWaiters(ctx, 1); err != nil {
		t.Fatal(err)
	}
	f.Step(time.Minute)
	<-done

	short, cancelShort := context.WithCancel(context.Background())
	cancelShort()
	err := f.BlockUntilWaiters(short, 1)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("BlockUntilWaiters on cancelled ctx = %v, want context.Canceled", err)
	}
}

func TestRealClock(t *testing.T) {
	var c clock.Clock = clock.Real{}
	start := c.Now()
	tm := c.NewTimer(time.Millisecond)
	<-tm.C()
	if c.Since(start) < time.Millisecond {
		t.Fatal("real timer fired early")
	}
	if tm.Stop() {
		t.Fatal("Stop after receive = true")
	}
	tk := c.NewTicker(time.Millisecond)
	<-tk.C()
	tk.Stop()
	<-c.After(time.Millisecond)
}

func TestTimerAtIsAbsolute(t *testing.T) {
	f := clock.NewFake(t0)
	deadline := t0.Add(10 * time.Second)
	tm := clock.NewTimerAt(f, deadline)
	// A Step between computing a deadline and re-arming must not move it.
	f.Step(4 * time.Second)
	if clock.ResetAt(f, tm, deadline) != true {
		t.Fatal("ResetAt of an armed timer = false, want true")
	}
	f.Step(6 * time.Second)
	if v, ok := recv(tm.C()); !ok || !v.Equal(deadline) {
		t.Fatalf("fired (%v, %v), want at t0+10s", v.Sub(t0), ok)
	}
	// A deadline already passed fires at once.
	late := clock.NewTimerAt(f, t0)
	if _, ok := recv(late.C()); !ok {
		t.Fatal("timer at a past time did not fire at once")
	}
}

func TestRealTimerAt(t *testing.T) {
	c := clock.Real{}
	tm := clock.NewTimerAt(c, c.Now().Add(time.Hour))
	clock.ResetAt(c, tm, c.Now().Add(time.Millisecond))
	<-tm.C()
}

// Jump moves Now by d either way but leaves every armed timer the time it
// had left: nothing fires early on a jump forward, nothing is delayed by a
// jump backward.
func TestFakeJumpKeepsTimersRemainingTime(t *testing.T) {
	f := clock.NewFake(t0)
	timer := f.NewTimer(10 * time.Second)
	tick := f.NewTicker(4 * time.Second)
	defer tick.Stop()
	f.Jump(time.Hour)
	if !f.Now().Equal(t0.Add(time.Hour)) {
		t.Fatalf("Now after a jump forward = %v", f.Now())
	}
	if _, ok := recv(timer.C()); ok {
		t.Fatal("a jump forward fired a timer")
	}
	f.Jump(-2 * time.Hour)
	f.Step(4 * time.Second)
	if v, ok := recv(tick.C()); !ok || !v.Equal(t0.Add(-time.Hour+4*time.Second)) {
		t.Fatalf("ticker after 4 s across two jumps: %v %v, want a tick at its shifted deadline", v, ok)
	}
	f.Step(6*time.Second - time.Nanosecond)
	if _, ok := recv(timer.C()); ok {
		t.Fatal("the timer fired before its 10 s")
	}
	f.Step(time.Nanosecond)
	if _, ok := recv(timer.C()); !ok {
		t.Fatal("a jump backward delayed the timer past its 10 s")
	}
}
