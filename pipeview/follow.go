package pipeview

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kcmlab/kcm/tap"
)

// target is the object a browser follows.
type target struct {
	Resource string `json:"resource"`
	Key      string `json:"key"`
}

// maxSteps bounds one trail; older steps are dropped first (and counted).
const maxSteps = 300

// trail is the path of one object through the pipeline and on through the
// controller loop, built from the events the stages keep:
//
//  1. the object's own events: its watch event on the socket (with the
//     API write that caused it, if a controller made it), the FIFO, the
//     store write with the index entries it moved, each handler call;
//  2. the keys those handler calls added to a controller's queue
//     (credited by the correlator);
//  3. the syncs of those keys that follow, until one succeeds, with
//     their results;
//  4. the API writes those syncs made;
//  5. the watch events those writes caused — the loop closes there: the
//     trail does not follow them further.
type trail struct {
	target target
	// scanned is, per stage, the newest event seq examined: each stage's
	// events are kept in seq order, so the next update starts after it.
	scanned map[*point]uint64
	steps   []step
	dropped int // steps dropped from the front (maxSteps)
	gaps    int // updates at which some stage had overwritten unexamined events

	queued map[qkey]bool      // controller queue keys the object caused, awaiting their sync
	syncs  map[uint64]bool    // syncs on the trail, by number
	writes map[wkey]time.Time // writes of those syncs awaiting their watch event, and when they were seen
	// early holds the newest watch events not on the trail, in case one
	// turns out to be caused by a write of the trail reported after it: the
	// apiserver may send the watch event before the writing client has
	// read its answer.
	early *earlyEvents
}

// qkey is a key in one controller's queue.
type qkey struct{ controller, key string }

// step is one line of the trail.
type step struct {
	ID     string  `json:"id"`    // the stage's id in the view
	T      int64   `json:"t"`     // Unix ms
	Since  float64 `json:"since"` // ms since the previous step (0 for the first)
	Stage  string  `json:"stage"`
	Where  string  `json:"where"` // informer, informer/handler, controller or client
	Op     string  `json:"op"`
	Key    string  `json:"key,omitempty"`
	RV     string  `json:"rv,omitempty"`
	Detail string  `json:"detail,omitempty"`
	// Loop marks the watch event caused by a write of the trail's own
	// syncs: the controller loop closing.
	Loop bool `json:"loop,omitempty"`
	at   time.Time
}

// trailView is what a browser following an object receives.
type trailView struct {
	Target  target `json:"target"`
	Steps   []step `json:"steps"`
	Dropped int    `json:"dropped"`
	Gaps    int    `json:"gaps"`
}

func newTrail(t target) *trail {
	return &trail{target: t, scanned: map[*point]uint64{}, queued: map[qkey]bool{}, syncs: map[uint64]bool{}, writes: map[wkey]time.Time{},
		early: newEarlyEvents(earlyCap)}
}

// update examines every kept event newer than the last update, in the
// order they were kept, and extends the trail. writes resolves the watch
// events whose write was reported after them.
//
// Only events that may belong to the trail are copied out of the stages,
// in the order of the chain that links them: the adds credited to the
// object (and the loop's retries of keys it caused), then the syncs of
// those keys, then the writes of those syncs, then the object's own events
// and the watch events those writes may have caused. Each pass keeps a
// superset of what examine accepts, so a stage busy with other objects
// costs a walk over its ring, not a copy of it.
func (tr *trail) update(points []*point, writes *recentWrites) {
	var news []entry
	lost := false
	take := func(stage tap.Stage, keep func(*entry) bool) {
		for _, p := range points {
			if p.id.stage != stage {
				continue
			}
			after := tr.scanned[p]
			es, newest, gone := p.since(after, keep)
			lost = lost || (gone && after > 0)
			tr.scanned[p] = newest
			news = append(news, es...)
		}
	}
	keys := map[qkey]bool{}
	for q := range tr.queued {
		keys[q] = true
	}
	take(tap.Enqueue, func(e *entry) bool {
		q := qkey{e.Source, e.Key}
		if tr.causedBy(e) {
			keys[q] = true
			return true
		}
		return keys[q] && !handlerAdd(e.Op)
	})
	seqs := map[uint64]bool{}
	for s := range tr.syncs {
		seqs[s] = true
	}
	take(tap.Sync, func(e *entry) bool {
		if keys[qkey{e.Source, e.Key}] || seqs[e.Sync.Seq] {
			seqs[e.Sync.Seq] = true
			return true
		}
		return false
	})
	written := map[wkey]bool{}
	for k := range tr.writes {
		written[k] = true
	}
	fresh := map[wkey]bool{} // this update's writes
	take(tap.Write, func(e *entry) bool {
		if e.Sync.Seq == 0 || !seqs[e.Sync.Seq] {
			return false
		}
		k := wkey{resource: e.Resource, key: e.Key, rv: e.RV}
		if e.Op == "DELETE" {
			k.rv = ""
		}
		written[k], fresh[k] = true, true
		return true
	})
	isWatch := func(e *entry, among map[wkey]bool) bool {
		k, ok := watchKey(*e)
		return ok && among[k]
	}
	// A fresh write's watch event may have been examined by an earlier
	// update already (the apiserver sent it before the client read the
	// write's answer): look for it behind the stage's watermark.
	if len(fresh) > 0 {
		for _, p := range points {
			if p.id.stage == tap.Socket {
				news = append(news, p.upTo(tr.scanned[p], func(e *entry) bool { return !tr.own(e) && isWatch(e, fresh) })...)
			}
		}
	}
	take(tap.Socket, func(e *entry) bool { return tr.own(e) || isWatch(e, written) })
	for _, st := range []tap.Stage{tap.FIFO, tap.Store, tap.Handler} {
		take(st, tr.own)
	}
	if lost {
		tr.gaps++
	}
	slices.SortFunc(news, func(a, b entry) int {
		switch {
		case a.seq < b.seq:
			return -1
		case a.seq > b.seq:
			return 1
		}
		return 0
	})
	for _, e := range news {
		if e.Stage == tap.Socket && e.by == nil {
			e.by = writes.find(e.Event)
		}
		tr.examine(e)
	}
	tr.expireWrites()
}

// own reports whether e is an event of the followed object itself.
func (tr *trail) own(e *entry) bool {
	return e.Key == tr.target.Key && e.Resource == tr.target.Resource
}

// causedBy reports whether e is an add credited to the followed object.
func (tr *trail) causedBy(e *entry) bool {
	return e.cause != nil && e.cause.Resource == tr.target.Resource && e.cause.Key == tr.target.Key
}

// writeWait bounds how long a write of the trail waits for its watch
// event (one that never comes — the watch was not running — must not keep
// the trail busy for ever).
const writeWait = time.Minute

// expireWrites forgets writes that waited longer than writeWait.
func (tr *trail) expireWrites() {
	if len(tr.writes) == 0 {
		return
	}
	now := time.Now()
	for k, at := range tr.writes {
		if now.Sub(at) > writeWait {
			delete(tr.writes, k)
		}
	}
}

// examine adds e to the trail if it belongs there.
func (tr *trail) examine(e entry) {
	own := e.Resource == tr.target.Resource && e.Key == tr.target.Key
	switch e.Stage {
	case tap.Socket:
		if own {
			tr.add(e, false)
			return
		}
		if k, ok := watchKey(e); ok {
			if _, ok := tr.writes[k]; ok {
				delete(tr.writes, k)
				tr.add(e, true)
				return
			}
			tr.early.put(k, e)
		}
	case tap.FIFO, tap.Store, tap.Handler:
		if own {
			tr.add(e, false)
		}
	case tap.Enqueue:
		if e.cause != nil && e.cause.Resource == tr.target.Resource && e.cause.Key == tr.target.Key {
			tr.queued[qkey{e.Source, e.Key}] = true
			tr.add(e, false)
		} else if tr.queued[qkey{e.Source, e.Key}] && !handlerAdd(e.Op) {
			tr.add(e, false) // the loop's retry of a key on the trail
		}
	case tap.Sync:
		q := qkey{e.Source, e.Key}
		switch {
		case e.Op == tap.OpBegin && tr.queued[q]:
			tr.syncs[e.Sync.Seq] = true
			tr.add(e, false)
		case e.Op != tap.OpBegin && tr.syncs[e.Sync.Seq]:
			tr.add(e, false)
			delete(tr.syncs, e.Sync.Seq) // its writes were reported before its end
			if strings.HasPrefix(e.Op, "success") {
				delete(tr.queued, q)
			}
		}
	case tap.Write:
		if e.Sync.Seq != 0 && tr.syncs[e.Sync.Seq] {
			tr.add(e, false)
			if e.Err != "" || e.Key == "" {
				return
			}
			k := wkey{resource: e.Resource, key: e.Key, rv: e.RV}
			if w, ok := tr.early.take(k); ok { // it came back before the client read the answer
				w.by = &writeRef{Client: e.Source, Op: e.Op, Sync: e.Sync, At: e.At}
				tr.add(w, true)
				return
			}
			tr.writes[k] = time.Now()
		}
	}
}

// watchKey is what a watch event is matched on with the write that
// caused it; ok is false for events no write causes (LIST, BOOKMARK).
// A DELETED event matches a delete by key alone.
func watchKey(e entry) (wkey, bool) {
	switch e.Op {
	case "ADDED", "MODIFIED":
		return wkey{resource: e.Resource, key: e.Key, rv: e.RV}, true
	case "DELETED":
		return wkey{resource: e.Resource, key: e.Key}, true
	}
	return wkey{}, false
}

// earlyCap bounds a trail's memory of watch events not on it.
const earlyCap = 1024

// earlyEvents is a bounded map of recent watch events by wkey, the oldest
// forgotten first.
type earlyEvents struct {
	m     map[wkey]entry
	order []wkey
	next  int
}

func newEarlyEvents(n int) *earlyEvents {
	return &earlyEvents{m: make(map[wkey]entry, n), order: make([]wkey, n)}
}

func (q *earlyEvents) put(k wkey, e entry) {
	if old := q.order[q.next]; old != (wkey{}) {
		delete(q.m, old)
	}
	q.order[q.next] = k
	q.next = (q.next + 1) % len(q.order)
	q.m[k] = e
}

// take returns and forgets the event kept under k.
func (q *earlyEvents) take(k wkey) (entry, bool) {
	e, ok := q.m[k]
	if ok {
		delete(q.m, k)
	}
	return e, ok
}

func (tr *trail) add(e entry, loop bool) {
	s := step{ID: stageID(pointID{stage: e.Stage, source: e.Source, handler: e.Handler}), T: e.At.UnixMilli(), Stage: e.Stage.String(), Where: e.Source, Op: e.Op, Key: e.Key, RV: e.RV,
		Detail: detail(e), Loop: loop, at: e.At}
	if e.Handler != "" {
		s.Where += " → " + e.Handler
	}
	if e.Stage == tap.Sync && e.Op == tap.OpBegin && len(tr.steps) > 0 {
		s.Detail = strings.TrimSuffix(s.Detail+", "+waitedText(tr.steps, e), ", ")
	}
	if n := len(tr.steps); n > 0 {
		s.Since = float64(e.At.Sub(tr.steps[n-1].at).Microseconds()) / 1000
		if s.Since < 0 {
			s.Since = 0
		}
	}
	tr.steps = append(tr.steps, s)
	if len(tr.steps) > maxSteps {
		drop := len(tr.steps) - maxSteps
		tr.steps = slices.Delete(tr.steps, 0, drop)
		tr.dropped += drop
	}
}

// waitedText says how long the key waited in the queue: from the newest
// add of it on the trail to the sync's start.
func waitedText(steps []step, e entry) string {
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i].Stage == tap.Enqueue.String() && steps[i].Where == e.Source && steps[i].Key == e.Key {
			return fmt.Sprintf("waited %s in the queue", ms(e.At.Sub(steps[i].at)))
		}
	}
	return ""
}

func (tr *trail) view() trailView {
	steps := make([]step, len(tr.steps))
	copy(steps, tr.steps)
	return trailView{Target: tr.target, Steps: steps, Dropped: tr.dropped, Gaps: tr.gaps}
}
