package pipeview

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/kcmlab/kcm/tap"
)

// pointID names one stage of one informer, handler, controller or client.
type pointID struct {
	stage           tap.Stage
	source, handler string
}

// entry is one kept event: the Event, its place in the order of all kept
// events, and what the Hub worked out about it when it arrived.
type entry struct {
	tap.Event
	seq uint64
	// cause is, for an add to a queue, the notification whose handler
	// call made it (nil when unknown).
	cause *cause
	// by is, for a watch event, the API write that caused it (nil when
	// none is known).
	by *writeRef
}

// cause names the object a handler was called for.
type cause struct {
	Resource, Key string
	obj           objKey
}

// gauge is a depth read at each update.
type gauge struct {
	name string
	read func() int64
}

// point is the Recorder of one stage. Record runs on the pipeline's
// goroutines: it takes only the point's own mutex (and, for the stages
// that correlate, the correlator's or the write index's), for O(1) work.
type point struct {
	h  *Hub
	id pointID

	mu sync.Mutex
	// total counts the events (a call's or a sync's end, not its begin).
	total uint64
	// ring keeps the newest History events; n counts all ever kept.
	ring   []entry
	n      uint64
	gauges []gauge

	// skipped counts the events the view did not want (Want); every and
	// seen draw the sample (want.go).
	skipped     atomic.Uint64
	every, seen atomic.Uint64
	// busy counts the handler calls in progress at this point, cur is the
	// object of the reported one; both guarded by the Hub's correlator.
	busy int
	cur  *cause

	// rate and lastTotal are touched by the Hub's Run goroutine only.
	rate      rateWindow
	lastTotal uint64
}

var _ tap.Recorder = (*point)(nil)

// Record is part of tap.Recorder.
func (p *point) Record(e tap.Event) {
	h := p.h
	en := entry{Event: e}
	switch e.Stage {
	case tap.Handler:
		if e.Op == tap.OpBegin {
			h.corr.begin(p, e.Resource, e.Key)
			return // a call is kept once, at its end, with its duration
		}
		h.corr.end(p)
	case tap.Enqueue:
		en.cause = h.corr.cause(p.id.source, e.Op)
		if c := en.cause; c != nil && h.wants.followed(c.obj.ns, c.obj.name) {
			h.wants.heatKey(qkey{p.id.source, e.Key}, e.At)
		}
	case tap.Sync:
		if e.Op == tap.OpBegin {
			h.wants.syncBegan(p.id.source, e.Key, e.Sync.Seq)
		} else {
			h.wants.syncEnded(e.Sync.Seq)
		}
	case tap.Write:
		h.writes.put(e)
		if e.Sync.Seq != 0 && e.Key != "" && h.wants.hotSeq(e.Sync.Seq) {
			h.wants.heatObject(splitKey(e.Key), e.At)
		}
	case tap.Socket:
		en.by = h.writes.find(e)
	}
	p.mu.Lock()
	en.seq = h.seq.Add(1) // under the lock: each point's ring is in seq order
	if p.ring == nil {
		p.ring = make([]entry, h.o.History)
	}
	p.ring[p.n%uint64(len(p.ring))] = en
	p.n++
	if e.Op != tap.OpBegin {
		p.total++
	}
	p.mu.Unlock()
}

// Gauge is part of tap.Recorder.
func (p *point) Gauge(name string, read func() int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range p.gauges {
		if p.gauges[i].name == name {
			p.gauges[i].read = read
			return
		}
	}
	p.gauges = append(p.gauges, gauge{name: name, read: read})
}

// state copies what an update needs: the total, the gauges (read later,
// outside the lock: a gauge takes the pipeline's locks, and the pipeline
// may report while holding them) and the newest n events, newest first.
func (p *point) state(n int) (total uint64, gauges []gauge, recent []entry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	gauges = append(gauges, p.gauges...)
	return p.total + p.skipped.Load(), gauges, p.newestLocked(n, 0)
}

// newestLocked returns up to n events newer than seq after, newest first.
func (p *point) newestLocked(n int, after uint64) []entry {
	var out []entry
	size := uint64(len(p.ring))
	for i := uint64(0); i < size && i < p.n && len(out) < n; i++ {
		e := p.ring[(p.n-1-i)%size]
		if e.seq <= after {
			break
		}
		out = append(out, e)
	}
	return out
}

// since returns the kept events newer than seq after for which keep (nil:
// all) reports true, oldest first; the newest seq kept (after, when none is
// newer); and whether some events newer than after were overwritten before
// this call (the ring went round).
func (p *point) since(after uint64, keep func(*entry) bool) (out []entry, newest uint64, lost bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	newest = after
	size := uint64(len(p.ring))
	n := uint64(0)
	for ; n < size && n < p.n; n++ {
		if p.ring[(p.n-1-n)%size].seq <= after {
			break
		}
	}
	lost = n == size && p.n > size && p.ring[p.n%size].seq > after+1
	for i := p.n - n; i < p.n; i++ {
		e := &p.ring[i%size]
		newest = e.seq
		if keep == nil || keep(e) {
			out = append(out, *e)
		}
	}
	return out, newest, lost
}

// upTo returns the kept events not newer than seq last for which keep
// reports true, oldest first.
func (p *point) upTo(last uint64, keep func(*entry) bool) []entry {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []entry
	size := uint64(len(p.ring))
	first := uint64(0)
	if p.n > size {
		first = p.n - size
	}
	for i := first; i < p.n; i++ {
		e := &p.ring[i%size]
		if e.seq <= last && keep(e) {
			out = append(out, *e)
		}
	}
	return out
}

// rateWindow turns a counter into events per second over the last few
// updates (about two seconds at the default period).
type rateWindow struct {
	at     [5]time.Time
	totals [5]uint64
	n      int
}

// add records total at now and returns the rate over the window.
func (w *rateWindow) add(now time.Time, total uint64) float64 {
	i := w.n % len(w.at)
	w.at[i], w.totals[i] = now, total
	w.n++
	if w.n < 2 {
		return 0
	}
	oldest := (w.n - min(w.n, len(w.at))) % len(w.at)
	dt := now.Sub(w.at[oldest]).Seconds()
	if dt <= 0 {
		return 0
	}
	return float64(total-w.totals[oldest]) / dt
}
