package clock

import (
	"container/heap"
	"context"
	"fmt"
	"sync"
	"time"
)

// Fake is a Clock that moves only when a test tells it to. Timers and tickers
// created from it fire during Step or SetTime, in deadline order (ties in
// creation order), each receiving its deadline as the value.
//
// A test that drives a goroutine through a Fake typically:
//
//  1. starts the code under test,
//  2. calls BlockUntilWaiters to learn that the code has armed its timer,
//  3. calls Step to move time past the deadline,
//  4. awaits the observable effect (a channel, a queue's Get).
//
// No step needs a sleep. The zero value is not usable; call NewFake.
type Fake struct {
	mu sync.Mutex
	// now only changes in SetTime (and Step, which calls it).
	now time.Time
	// waiters are the armed timers and tickers, a min-heap on (deadline, seq).
	// Invariant: w.index is w's position here, or -1 when w is not armed.
	waiters waiterHeap
	// seq numbers arms so that equal deadlines fire in arming order.
	seq uint64
	// changed is closed (and replaced) each time len(waiters) changes;
	// BlockUntilWaiters waits on it.
	changed chan struct{}
}

var _ Clock = (*Fake)(nil)

// NewFake returns a Fake whose time starts at t0.
func NewFake(t0 time.Time) *Fake {
	return &Fake{now: t0, changed: make(chan struct{})}
}

// Now returns the fake's current time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Since returns Now().Sub(t).
func (f *Fake) Since(t time.Time) time.Duration { return f.Now().Sub(t) }

// NewTimer returns a one-shot timer that fires when the fake reaches Now()+d.
func (f *Fake) NewTimer(d time.Duration) Timer {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.newTimerLocked(f.now.Add(d))
}

func (f *Fake) newTimerLocked(at time.Time) *fakeTimer {
	t := &fakeTimer{f: f, ch: make(chan time.Time, 1), index: -1}
	f.armLocked(t, at)
	return t
}

// After returns the channel of a new timer.
func (f *Fake) After(d time.Duration) <-chan time.Time { return f.NewTimer(d).C() }

// NewTicker returns a ticker with period d. It panics if d ≤ 0.
// A ticker delivers at most one tick per Step or SetTime, however far time
// moves, just as a real ticker drops ticks that its reader is too slow for.
func (f *Fake) NewTicker(d time.Duration) Ticker {
	if d <= 0 {
		panic("clock: non-positive interval for NewTicker")
	}
	t := &fakeTimer{f: f, ch: make(chan time.Time, 1), index: -1, period: d}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.armLocked(t, f.now.Add(d))
	return fakeTicker{t}
}

// Step moves the fake forward by d and fires what became due.
func (f *Fake) Step(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.setTimeLocked(f.now.Add(d))
}

// SetTime moves the fake to t and fires what became due. Moving backwards is
// allowed and fires nothing.
func (f *Fake) SetTime(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.setTimeLocked(t)
}

// Jump steps the wall-clock reading by d, forwards or backwards, as an NTP
// step or an operator's date command does, without firing or delaying any
// timer: every armed timer and ticker keeps the time it had left, since the
// runtime's timers run on a monotonic clock that such a step does not move.
// Now() read before and after differ by d, so code that subtracts times
// across the jump sees it (unlike time.Time's monotonic readings, which
// hide it: a Fake is the stricter test).
func (f *Fake) Jump(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	for _, w := range f.waiters {
		w.deadline = w.deadline.Add(d)
	}
}

// Waiters returns the number of armed timers and tickers.
func (f *Fake) Waiters() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.waiters)
}

// HasWaiters reports whether any timer or ticker is armed.
func (f *Fake) HasWaiters() bool { return f.Waiters() > 0 }

// BlockUntilWaiters returns once at least n timers or tickers are armed, or
// with ctx's error (wrapped) when ctx is done first.
func (f *Fake) BlockUntilWaiters(ctx context.Context, n int) error {
	for {
		f.mu.Lock()
		have, changed := len(f.waiters), f.changed
		f.mu.Unlock()
		if have >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("clock: waiting for %d waiters (have %d): %w", n, have, ctx.Err())
		}
	}
}

func (f *Fake) setTimeLocked(t time.Time) {
	f.now = t
	f.fireDueLocked()
}

// fireDueLocked delivers every waiter whose deadline is not after now.
func (f *Fake) fireDueLocked() {
	for len(f.waiters) > 0 && !f.waiters[0].deadline.After(f.now) {
		w := f.waiters[0]
		select {
		case w.ch <- w.deadline:
		default: // a ticker whose reader is behind: drop, like time.Ticker
		}
		if w.period <= 0 {
			heap.Pop(&f.waiters)
			f.notifyLocked()
			continue
		}
		missed := f.now.Sub(w.deadline) / w.period
		w.deadline = w.deadline.Add((missed + 1) * w.period)
		f.seq++
		w.seq = f.seq
		heap.Fix(&f.waiters, 0)
	}
}

func (f *Fake) armLocked(w *fakeTimer, deadline time.Time) {
	w.deadline = deadline
	f.seq++
	w.seq = f.seq
	heap.Push(&f.waiters, w)
	f.notifyLocked()
	f.fireDueLocked()
}

// disarmLocked removes w from the waiters and discards an undelivered value.
// It reports whether w was armed or had a value pending, i.e. whether the
// caller stopped it before its reader saw it fire.
func (f *Fake) disarmLocked(w *fakeTimer) bool {
	stopped := false
	if w.index >= 0 {
		heap.Remove(&f.waiters, w.index)
		f.notifyLocked()
		stopped = true
	}
	select {
	case <-w.ch:
		stopped = true
	default:
	}
	return stopped
}

func (f *Fake) notifyLocked() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// fakeTimer is both the one-shot timer and, with period > 0, a ticker.
type fakeTimer struct {
	f  *Fake
	ch chan time.Time // capacity 1: at most one undelivered value
	// The fields below are guarded by f.mu.
	deadline time.Time
	period   time.Duration // 0 for a timer
	seq      uint64
	index    int // position in f.waiters, -1 when not armed
}

func (t *fakeTimer) C() <-chan time.Time { return t.ch }

func (t *fakeTimer) Stop() bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	return t.f.disarmLocked(t)
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	return t.resetLocked(t.f.now.Add(d))
}

func (t *fakeTimer) resetLocked(at time.Time) bool {
	stopped := t.f.disarmLocked(t)
	t.f.armLocked(t, at)
	return stopped
}

// fakeTicker narrows fakeTimer to the Ticker interface.
type fakeTicker struct{ t *fakeTimer }

func (k fakeTicker) C() <-chan time.Time { return k.t.ch }
func (k fakeTicker) Stop()               { k.t.Stop() }

func (k fakeTicker) Reset(d time.Duration) {
	if d <= 0 {
		panic("clock: non-positive interval for Ticker.Reset")
	}
	f := k.t.f
	f.mu.Lock()
	defer f.mu.Unlock()
	f.disarmLocked(k.t)
	k.t.period = d
	f.armLocked(k.t, f.now.Add(d))
}

// waiterHeap implements heap.Interface ordered by (deadline, seq).
type waiterHeap []*fakeTimer

func (h waiterHeap) Len() int { return len(h) }

func (h waiterHeap) Less(i, j int) bool {
	if !h[i].deadline.Equal(h[j].deadline) {
		return h[i].deadline.Before(h[j].deadline)
	}
	return h[i].seq < h[j].seq
}

func (h waiterHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}

func (h *waiterHeap) Push(x any) {
	w := x.(*fakeTimer)
	w.index = len(*h)
	*h = append(*h, w)
}

func (h *waiterHeap) Pop() any {
	old := *h
	w := old[len(old)-1]
	old[len(old)-1] = nil
	w.index = -1
	*h = old[:len(old)-1]
	return w
}
