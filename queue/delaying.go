package queue

import (
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/tap"
)

// AddAfter adds k once d has passed. Until then k waits in the delay heap;
// if k is already waiting there, the earlier deadline wins. A d ≤ 0 adds at
// once. After ShutDown, AddAfter does nothing.
//
// However many keys wait, one timer on the queue's goroutine serves them
// all: AddAfter starts no goroutine and, once the heap has grown to its
// working size, allocates nothing.
func (q *Queue[K]) AddAfter(k K, d time.Duration) { q.addAfter(k, d, "AddAfter") }

// addAfter is AddAfter, reported to the tap as op.
func (q *Queue[K]) addAfter(k K, d time.Duration, op string) {
	if d <= 0 {
		q.lock()
		if q.shuttingDown {
			q.unlock()
			return
		}
		counted := q.addLocked(k, false)
		if q.tap.On() && q.tap.Want("", keyString(k)) {
			q.reportLocked(k, q.addedOpLocked(k, counted, op), d)
			return
		}
		q.unlock()
		return
	}
	at := q.clock.Now().Add(d)
	q.lock()
	if q.shuttingDown {
		q.unlock()
		return
	}
	pushed := q.delayed.push(k, at)
	if pushed {
		select {
		case q.wake <- struct{}{}:
		default: // the loop has a nudge pending already
		}
	}
	if q.tap.On() && q.tap.Want("", keyString(k)) {
		if !pushed {
			op += " (an earlier wait is kept)"
		}
		q.reportLocked(k, op, d)
		return
	}
	q.unlock()
}

// reportLocked reports an add of k to the tap, under the lock like
// AddWithPriority, and unlocks the queue.
func (q *Queue[K]) reportLocked(k K, op string, d time.Duration) {
	q.tap.Emit(tap.Event{Op: op, Key: keyString(k), Delay: d, Depth: q.s.ready, Retries: q.limiter.NumRequeues(k)})
	q.unlock()
}

// loop is the queue's goroutine: it moves delayed keys into the queue when
// they are due and, with metrics on, refreshes the in-flight gauges on every
// tick. It returns when ShutDown closes stop.
func (q *Queue[K]) loop(tick clock.Ticker) {
	defer close(q.loopDone)
	var tickC <-chan time.Time
	if tick != nil {
		defer tick.Stop()
		tickC = tick.C()
	}
	t := deadlineTimer{clock: q.clock}
	defer t.stop()
	for {
		t.set(q.flushDue())
		select {
		case <-q.stop:
			return
		case <-q.wake:
		case <-t.c():
			t.fired()
		case <-tickC:
			q.refreshMetrics()
			if q.hooks.refreshed != nil {
				q.hooks.refreshed()
			}
		}
	}
}

// flushDue adds every delayed key whose deadline has passed and returns the
// next deadline; ok is false when nothing waits.
func (q *Queue[K]) flushDue() (next time.Time, ok bool) {
	now := q.clock.Now()
	q.lock()
	defer q.unlock()
	if q.shuttingDown {
		return time.Time{}, false
	}
	for {
		k, due := q.delayed.popDue(now)
		if !due {
			break
		}
		counted := q.addLocked(k, false)
		if q.tap.On() && q.tap.Want("", keyString(k)) {
			q.tap.Emit(tap.Event{Op: q.addedOpLocked(k, counted, "Add (wait over)"), Key: keyString(k), Depth: q.s.ready})
		}
	}
	return q.delayed.next()
}

func (q *Queue[K]) refreshMetrics() {
	q.lock()
	defer q.unlock()
	q.m.refreshLocked()
}

// deadlineTimer is the loop's one timer, re-armed only when the deadline it
// should fire at changes.
type deadlineTimer struct {
	clock clock.Clock
	t     clock.Timer
	// at is the deadline t is armed for; armed is false when t is stopped
	// or has fired.
	at    time.Time
	armed bool
}

// set arms the timer for next, or stops it when !ok. The deadline is armed
// as an absolute time, so time that passes after flushDue cannot delay it.
func (d *deadlineTimer) set(next time.Time, ok bool) {
	if !ok {
		d.stop()
		return
	}
	if d.armed && d.at.Equal(next) {
		return
	}
	if d.t == nil {
		d.t = clock.NewTimerAt(d.clock, next)
	} else {
		clock.ResetAt(d.clock, d.t, next)
	}
	d.at, d.armed = next, true
}

// c returns the channel to wait on, nil (never ready) when not armed.
func (d *deadlineTimer) c() <-chan time.Time {
	if !d.armed {
		return nil
	}
	return d.t.C()
}

func (d *deadlineTimer) fired() { d.armed = false }

func (d *deadlineTimer) stop() {
	if d.armed {
		d.t.Stop()
		d.armed = false
	}
}
