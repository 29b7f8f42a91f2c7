package pipeview

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/lease"
	"github.com/kcmlab/kcm/tap"
)

// Options configure a Hub. Zero values mean the defaults noted.
type Options struct {
	// Clock stamps events and paces updates; nil: real time.
	Clock  clock.Clock
	Logger zerolog.Logger
	// Period is the time between two updates sent to the browsers;
	// default 500 ms. However many events pass, a browser gets one update
	// per Period, of bounded size.
	Period time.Duration
	// Recent is how many of each stage's newest events an update carries;
	// default 6. The stage a browser selected carries Detail; default 40.
	Recent, Detail int
	// History is how many events each stage keeps for following an
	// object; default 1024. Following starts from what is still kept.
	History int
	// ClientBuffer is how many updates may wait for one browser; default
	// 4. A browser that falls further behind loses updates (they are
	// counted and shown); the pipeline never waits for it.
	ClientBuffer int
	// WriteTimeout bounds the sending of one update; a browser that takes
	// longer is disconnected. Default 10 s.
	WriteTimeout time.Duration
	// LoopbackOnly refuses requests whose Host header is not a loopback
	// name or address (kcm dev serves the view on plain HTTP on
	// 127.0.0.1: this keeps web pages from reaching it through DNS
	// rebinding).
	LoopbackOnly bool
}

func (o Options) withDefaults() Options {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Period <= 0 {
		o.Period = 500 * time.Millisecond
	}
	if o.Recent <= 0 {
		o.Recent = 6
	}
	if o.Detail <= 0 {
		o.Detail = 40
	}
	if o.History <= 0 {
		o.History = 1024
	}
	if o.ClientBuffer <= 0 {
		o.ClientBuffer = 4
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 10 * time.Second
	}
	return o
}

// Hub collects what the pipeline reports and serves it to browsers: it is
// the tap.Sink of the manager's Tap (Hub.Tap), and Handler serves the page
// and its WebSocket. While no browser is connected the Tap is off and the
// Hub does nothing.
type Hub struct {
	o   Options
	tap *tap.Tap
	// seq orders every kept event across stages.
	seq    atomic.Uint64
	corr   correlator
	writes recentWrites
	wants  wants

	mu      sync.Mutex
	points  map[pointID]*point // guarded by mu
	order   []*point           // registration order; guarded by mu
	lease   func() lease.Status
	clients map[*client]struct{} // guarded by mu
	stopped bool                 // Run has ended; guarded by mu
	// wake asks Run for an update now (a browser joined or asked for
	// another object).
	wake chan struct{}
	// conns counts the goroutines of connected browsers.
	conns sync.WaitGroup
}

// New returns a Hub with its Tap (off until a browser connects).
func New(o Options) *Hub {
	o = o.withDefaults()
	h := &Hub{o: o, points: map[pointID]*point{}, clients: map[*client]struct{}{}, wake: make(chan struct{}, 1)}
	h.writes.init(recentWriteCap)
	h.tap = tap.New(h, o.Clock)
	return h
}

// Tap is what the pipeline reports to (ctrl.Config.Tap, rest.WithTap).
func (h *Hub) Tap() *tap.Tap { return h.tap }

// SetLease shows the leader election read from status (an Elector's
// Status); nil: none.
func (h *Hub) SetLease(status func() lease.Status) {
	h.mu.Lock()
	h.lease = status
	h.mu.Unlock()
}

// Recorder is part of tap.Sink: the point of one stage, made at its first
// request and shared afterwards (a manager that leads again builds its
// informers and controllers anew; their counts go on).
func (h *Hub) Recorder(stage tap.Stage, source, handler string) tap.Recorder {
	id := pointID{stage: stage, source: source, handler: handler}
	h.mu.Lock()
	defer h.mu.Unlock()
	if p, ok := h.points[id]; ok {
		return p
	}
	p := &point{h: h, id: id}
	h.points[id] = p
	h.order = append(h.order, p)
	if stage == tap.Handler {
		h.corr.register(p)
	}
	return p
}

// Run sends an update to every connected browser each Period (and at
// once when one joins or follows another object) until ctx ends; then it
// disconnects every browser and returns once their goroutines have
// stopped. While no browser is connected it only waits.
func (h *Hub) Run(ctx context.Context) error {
	defer h.shutdown()
	for {
		var tick <-chan time.Time
		var timer clock.Timer
		if h.connected() > 0 {
			timer = h.o.Clock.NewTimer(h.o.Period)
			tick = timer.C()
		}
		select {
		case <-ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return nil
		case <-h.wake:
			if timer != nil {
				timer.Stop()
			}
		case <-tick:
		}
		h.publish()
	}
}

// poke asks Run for an update now.
func (h *Hub) poke() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

func (h *Hub) connected() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.clients)
}

// join adds a browser; it fails once Run has ended.
func (h *Hub) join(c *client) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped {
		return false
	}
	h.clients[c] = struct{}{}
	h.tap.SetOn(true)
	h.conns.Add(1)
	return true
}

// leave removes a browser; the last one switches the Tap off.
func (h *Hub) leave(c *client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.clients[c]; !ok {
		return
	}
	delete(h.clients, c)
	if len(h.clients) == 0 {
		h.tap.SetOn(false)
	}
	h.refreshFollowsLocked()
}

// refreshFollows tells the reporting sites which objects browsers follow.
func (h *Hub) refreshFollows() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.refreshFollowsLocked()
}

func (h *Hub) refreshFollowsLocked() {
	var targets []target
	for c := range h.clients {
		if t, ok := c.following(); ok {
			targets = append(targets, t)
		}
	}
	h.wants.setFollowed(targets)
}

// shutdown disconnects every browser and waits for their goroutines.
func (h *Hub) shutdown() {
	h.mu.Lock()
	h.stopped = true
	cs := make([]*client, 0, len(h.clients))
	for c := range h.clients {
		cs = append(cs, c)
	}
	h.mu.Unlock()
	for _, c := range cs {
		c.close()
	}
	h.conns.Wait()
	h.tap.SetOn(false)
}

// clientList returns the connected browsers.
func (h *Hub) clientList() []*client {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*client, 0, len(h.clients))
	for c := range h.clients {
		out = append(out, c)
	}
	return out
}

// pointList returns the points in registration order.
func (h *Hub) pointList() []*point {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*point(nil), h.order...)
}

func (h *Hub) leaseStatus() func() lease.Status {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lease
}
