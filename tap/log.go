package tap

import (
	"slices"
	"sync"
)

// Log is a Sink that wants and keeps every Event in memory, in the order
// recorded, and the gauges registered: for tests of the layers that report, and for
// small tools. It is safe for concurrent use.
type Log struct {
	// Decline, when set, makes Want say no for the events it reports
	// true for (to test the sites' path for an event the view does not
	// want).
	Decline func(namespace, name string) bool

	mu       sync.Mutex
	events   []Event
	gauges   map[string]func() int64
	declined int
	calls    []bool
}

// Recorder is part of Sink: every point records into the one log.
func (l *Log) Recorder(stage Stage, source, handler string) Recorder {
	return logPoint{l: l, name: stage.String() + "/" + source + "/" + handler}
}

// Events returns a copy of the Events recorded so far.
func (l *Log) Events() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

// Matching returns the recorded Events of one stage for which keep (nil:
// all) reports true.
func (l *Log) Matching(stage Stage, keep func(Event) bool) []Event {
	var out []Event
	for _, e := range l.Events() {
		if e.Stage == stage && (keep == nil || keep(e)) {
			out = append(out, e)
		}
	}
	return out
}

// Gauge reads the gauge registered under "stage/source/handler/name";
// ok is false when there is none.
func (l *Log) Gauge(name string) (v int64, ok bool) {
	l.mu.Lock()
	read := l.gauges[name]
	l.mu.Unlock()
	if read == nil {
		return 0, false
	}
	return read(), true
}

// GaugeNames returns the registered gauges' names, sorted.
func (l *Log) GaugeNames() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for n := range l.gauges {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

type logPoint struct {
	l    *Log
	name string
}

// Want is part of Recorder: a Log wants every event but those Decline
// names.
func (p logPoint) Want(namespace, name string) bool {
	if p.l.Decline == nil || !p.l.Decline(namespace, name) {
		return true
	}
	p.l.mu.Lock()
	p.l.declined++
	p.l.mu.Unlock()
	return false
}

// Calling is part of Recorder: it records the calls it is told of.
func (p logPoint) Calling(start bool) {
	p.l.mu.Lock()
	p.l.calls = append(p.l.calls, start)
	p.l.mu.Unlock()
}

// Declined returns how many events Want declined.
func (l *Log) Declined() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.declined
}

// Calls returns the Calling reports so far (true: a start).
func (l *Log) Calls() []bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.calls)
}

func (p logPoint) Record(e Event) {
	p.l.mu.Lock()
	p.l.events = append(p.l.events, e)
	p.l.mu.Unlock()
}

func (p logPoint) Gauge(name string, read func() int64) {
	p.l.mu.Lock()
	defer p.l.mu.Unlock()
	if p.l.gauges == nil {
		p.l.gauges = map[string]func() int64{}
	}
	p.l.gauges[p.name+"/"+name] = read
}
