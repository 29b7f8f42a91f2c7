package tainteviction

import (
	"sync"
	"time"
)

// keyQueue is the part of the loop's queue the controller uses: keys now,
// and keys after a delay (the queue's delay heap, on the loop's clock).
type keyQueue interface {
	Add(key string)
	AddAfter(key string, d time.Duration)
}

// scheduled is one pod's eviction waiting for its time (upstream's
// TimedWorker).
type scheduled struct {
	// createdAt is when the eviction was scheduled, fireAt when it runs.
	createdAt, fireAt time.Time
	// timed: it was scheduled for later than its creation. Cancelling it
	// is reported with an event; an immediate one is not (upstream keeps a
	// nil TimedWorker for work started at once, and CancelWork reports
	// only a real timer).
	timed bool
	// running: a worker has taken it and is deleting the pod.
	running bool
}

// timedEvictions is kube-controller-manager's TimedWorkerQueue
// (timed_workers.go) on the controller's loop: a map from pod key to its
// scheduled eviction, whose timers are the loop queue's delay heap — the
// key evictKey(pod) is added after fireAt - now — so that the injected
// clock drives them and no goroutine or timer exists per pod. A cancelled
// eviction leaves its key in the delay heap; when it comes up, take finds
// no entry (or a later one) and nothing happens.
//
// Safe for concurrent use.
type timedEvictions struct {
	q  keyQueue
	mu sync.Mutex
	m  map[string]*scheduled
}

func newTimedEvictions(q keyQueue) *timedEvictions {
	return &timedEvictions{q: q, m: map[string]*scheduled{}}
}

// add schedules pod's eviction for fireAt, created at now, unless one is
// scheduled already (upstream's AddWork, which skips an existing key).
// An eviction due now goes to the queue at once.
func (e *timedEvictions) add(pod string, now, fireAt time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.m[pod]; ok {
		return false
	}
	delay := fireAt.Sub(now)
	e.m[pod] = &scheduled{createdAt: now, fireAt: fireAt, timed: delay > 0}
	e.q.AddAfter(evictKey(pod), delay) // a delay ≤ 0 adds at once
	return true
}

// cancel forgets pod's eviction and reports whether a timed one was
// cancelled (upstream's CancelWork: an immediate or already running
// eviction is forgotten but not reported; a running one still finishes).
func (e *timedEvictions) cancel(pod string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.m[pod]
	if !ok {
		return false
	}
	delete(e.m, pod)
	return s.timed
}

// get returns pod's scheduled eviction (a copy).
func (e *timedEvictions) get(pod string) (scheduled, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.m[pod]
	if !ok {
		return scheduled{}, false
	}
	return *s, true
}

// len is the number of evictions scheduled or running.
func (e *timedEvictions) len() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.m)
}

// take is called when pod's eviction key comes out of the queue at now.
// It returns the eviction to run, marked running; or, when the eviction
// scheduled now is due later (the key came up for a cancelled, earlier
// one), the time left; or nothing when none is scheduled or one is
// already running.
func (e *timedEvictions) take(pod string, now time.Time) (s *scheduled, wait time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.m[pod]
	if !ok || s.running {
		return nil, 0
	}
	if s.fireAt.After(now) {
		return nil, s.fireAt.Sub(now)
	}
	s.running = true
	return s, 0
}

// done forgets s once its work has finished, whatever the outcome
// (upstream's wrapped worker function deletes the key after the work): a
// failed eviction is not retried until a node or pod update schedules it
// again. An eviction scheduled anew meanwhile stays.
func (e *timedEvictions) done(pod string, s *scheduled) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.m[pod] == s {
		delete(e.m, pod)
	}
}
