package tap

import (
	"context"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kcmlab/kcm/clock"
)

// Stage names where in the pipeline an Event was observed.
type Stage uint8

// The stages, in the order an object passes them.
const (
	// Socket: the reflector read an event (or a listed item) from the
	// apiserver. Source is the informer.
	Socket Stage = iota + 1
	// FIFO: the informer queued a delta in its deltafifo.
	FIFO
	// Store: the informer popped a delta and wrote it to its store.
	Store
	// Handler: a handler's call started (OpBegin) or returned.
	Handler
	// Enqueue: a key was added to a controller's work queue.
	Enqueue
	// Sync: a controller's sync started (OpBegin) or returned.
	Sync
	// Write: the API answered a write (create, update, patch, delete).
	// Source is the client's User-Agent.
	Write
)

var stageNames = [...]string{"", "socket", "fifo", "store", "handler", "enqueue", "sync", "write"}

// String returns the stage's lower-case name ("socket", "fifo", ...).
func (s Stage) String() string {
	if int(s) < len(stageNames) && s != 0 {
		return stageNames[s]
	}
	return "stage(?)"
}

// OpBegin is the Op of the Event that opens a handler call or a sync; the
// Event that closes it carries the outcome.
const OpBegin = "begin"

// Event is one observation. It carries metadata only — never an object's
// body — and every field but Stage, Source and At is optional.
type Event struct {
	At      time.Time
	Stage   Stage
	Source  string // the informer, the controller, or the client's User-Agent
	Handler string // Handler stage: the handler's name
	// Op is what happened: the watch event type (ADDED, ...), the delta
	// type (Added, ...), the handler call (OnAdd, ...), the queue call
	// (Add, AddAfter, AddRateLimited), the sync's result, the HTTP verb.
	Op string
	// Resource and Key name the object ("pods", "default/web-0"); queue
	// and sync events carry the controller's key and no Resource.
	Resource, Key string
	RV, UID       string
	// Sync names the sync: on a Sync event the sync itself (its begin and
	// end share the number), on a Write the sync that made it (zero when
	// none).
	Sync  SyncRef
	Took  time.Duration // a handler call, a sync, a request
	Delay time.Duration // AddAfter and AddRateLimited: the wait before the key is ready
	Depth int           // what is queued behind it: FIFO deltas, handler buffer, ready keys
	Bytes int           // Socket: the event's size on the wire
	// Retries is the key's rate-limited retries on record (Enqueue, Sync).
	Retries int
	Err     string
	// Index lists, for a Store event, the index entries the write added
	// ("+label:app=web") and removed ("-owner:<uid>").
	Index []string
}

// Recorder takes the Events of one point. Every method must return at
// once.
type Recorder interface {
	// Want tells a reporting site, before it builds an Event, whether
	// the view wants this one in full: an event of the object
	// namespace/name (for a queue or a sync: "" and the key). When it says
	// no, it has counted the event, and the site reports nothing more.
	// The view wants every event of an object someone follows and of the
	// work that object causes, and a sample of the others.
	Want(namespace, name string) bool
	// Record takes an Event the view wanted. It may keep e.Index
	// (reporters pass a slice of its own each time).
	Record(e Event)
	// Calling tells that a handler call the view did not want starts
	// (true) or ends (false): the view needs to know how many calls of a
	// handler are in progress to credit a queue's adds to the right one.
	Calling(start bool)
	// Gauge registers a depth the view reads while someone watches;
	// registering a name again replaces the function.
	Gauge(name string, read func() int64)
}

// Sink hands out the Recorder of each point (the view implements it).
type Sink interface {
	Recorder(stage Stage, source, handler string) Recorder
}

// Tap connects the layers to a Sink. The zero value is not usable; a nil
// *Tap is: it hands out nil Points.
type Tap struct {
	on   atomic.Bool
	sink Sink
	clk  clock.Clock
	seq  atomic.Uint64
	// base, for the real clock, is when the Tap was made: stamps are base
	// plus the monotonic time since, one clock read instead of time.Now's
	// two (a reporting site stamps several times per event).
	base time.Time
	real bool
}

// New returns a Tap feeding sink, stamping Events with clk (nil: real
// time). It starts off.
func New(sink Sink, clk clock.Clock) *Tap {
	if clk == nil {
		clk = clock.Real{}
	}
	_, real := clk.(clock.Real)
	return &Tap{sink: sink, clk: clk, base: time.Now(), real: real}
}

// now is the Tap's clock.
func (t *Tap) now() time.Time {
	if t.real {
		return t.base.Add(time.Since(t.base))
	}
	return t.clk.Now()
}

// SetOn switches reporting on or off for every point.
func (t *Tap) SetOn(on bool) {
	if t != nil {
		t.on.Store(on)
	}
}

// On reports whether anyone watches.
func (t *Tap) On() bool { return t != nil && t.on.Load() }

// NextSeq returns a fresh sync number (never 0).
func (t *Tap) NextSeq() uint64 {
	if t == nil {
		return 0
	}
	return t.seq.Add(1)
}

// Point returns the observation point of one place: a stage of an
// informer (source), of a handler on an informer, of a controller, or of
// a client. A nil Tap returns nil.
func (t *Tap) Point(stage Stage, source, handler string) *Point {
	if t == nil {
		return nil
	}
	return &Point{t: t, rec: t.sink.Recorder(stage, source, handler), stage: stage, source: source, handler: handler}
}

// Point is one place that reports Events. All methods are safe on a nil
// *Point and do nothing there.
type Point struct {
	t               *Tap
	rec             Recorder
	stage           Stage
	source, handler string
}

// On reports whether anyone watches: check it before building an Event.
func (p *Point) On() bool { return p != nil && p.t.on.Load() }

// Tap returns the Tap the point belongs to (nil for a nil Point).
func (p *Point) Tap() *Tap {
	if p == nil {
		return nil
	}
	return p.t
}

// Now is the Tap's clock.
func (p *Point) Now() time.Time {
	if p == nil {
		return time.Time{}
	}
	return p.t.now()
}

// Want says whether to report this event in full (see Recorder.Want).
// Call it only after On returned true; a nil Point wants nothing.
func (p *Point) Want(namespace, name string) bool { return p != nil && p.rec.Want(namespace, name) }

// Calling reports the start or end of a handler call that Want declined.
func (p *Point) Calling(start bool) {
	if p != nil {
		p.rec.Calling(start)
	}
}

// Emit records e, filling in the point's Stage, Source and Handler, and At
// when zero. Call it only after On and Want returned true.
func (p *Point) Emit(e Event) {
	if p == nil {
		return
	}
	e.Stage, e.Source, e.Handler = p.stage, p.source, p.handler
	if e.At.IsZero() {
		e.At = p.t.now()
	}
	p.rec.Record(e)
}

// Gauge registers a depth read by the view (see Recorder.Gauge).
func (p *Point) Gauge(name string, read func() int64) {
	if p != nil {
		p.rec.Gauge(name, read)
	}
}

// SyncRef names one sync: the controller, the key and the sync's number.
type SyncRef struct {
	Controller, Key string
	Seq             uint64
}

type syncKey struct{}

// WithSync returns ctx carrying ref, for the REST client to attribute the
// writes made under it.
func WithSync(ctx context.Context, ref SyncRef) context.Context {
	return context.WithValue(ctx, syncKey{}, ref)
}

// SyncOf returns the sync ctx was made for by WithSync, if any.
func SyncOf(ctx context.Context) (SyncRef, bool) {
	ref, ok := ctx.Value(syncKey{}).(SyncRef)
	return ref, ok
}

// ResourceOf returns the resource an informer named source caches: its
// name without the representation suffix the informer factory adds
// ("pods(raw)" → "pods", "replicasets.apps" stays).
func ResourceOf(source string) string {
	if i := strings.IndexByte(source, '('); i > 0 {
		return source[:i]
	}
	return source
}
