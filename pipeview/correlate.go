package pipeview

import (
	"strings"
	"sync"
	"time"

	"github.com/kcmlab/kcm/tap"
)

// correlator tells which notification an add to a queue came from.
//
// A controller's handlers are registered under the controller's name and
// add to the queue of the same name, synchronously, inside the handler
// call. So an add to queue Q made while exactly one handler call named Q
// is in progress came from that call: the Hub credits it to the object
// that call was for. When two calls of Q's handlers run at once (the
// controller watches two informers) or none does (a sync adding to its
// own queue), the add is left uncredited rather than guessed. Adds that
// only the loop makes (AddAfter, AddRateLimited, the end of a wait) are
// never credited to a handler. Calls the view did not want in full are
// still counted (tap.Recorder.Calling), so that they make an add
// ambiguous too.
type correlator struct {
	mu sync.Mutex
	// byName holds the handler points by handler (= controller) name;
	// each point's busy and cur fields are guarded by mu too.
	byName map[string][]*point
}

// register adds a handler point.
func (c *correlator) register(p *point) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byName == nil {
		c.byName = map[string][]*point{}
	}
	c.byName[p.id.handler] = append(c.byName[p.id.handler], p)
}

// begin notes a reported call at p for resource/key.
func (c *correlator) begin(p *point, resource, key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p.busy++
	p.cur = &cause{Resource: resource, Key: key, obj: splitKey(key)}
}

// end notes the end of the reported call at p.
func (c *correlator) end(p *point) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.busy > 0 {
		p.busy--
	}
	p.cur = nil
}

// calling notes the start or end of a call at p the view did not want.
func (c *correlator) calling(p *point, start bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case start:
		p.busy++
	case p.busy > 0:
		p.busy--
	}
}

// singleLocked returns the one handler point named queue with a call in
// progress, when exactly one call of that name is in progress.
func (c *correlator) singleLocked(queue string) *point {
	var one *point
	n := 0
	for _, p := range c.byName[queue] {
		n += p.busy
		if p.busy > 0 {
			one = p
		}
	}
	if n != 1 {
		return nil
	}
	return one
}

// cause returns the notification behind an add op to queue, or nil.
func (c *correlator) cause(queue, op string) *cause {
	if !handlerAdd(op) {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.singleLocked(queue); p != nil && p.cur != nil {
		cs := *p.cur
		return &cs
	}
	return nil
}

// followedCall reports whether an add to queue now would be credited to a
// followed object.
func (c *correlator) followedCall(queue string, w *wants) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.singleLocked(queue)
	return p != nil && p.cur != nil && w.followed(p.cur.obj.ns, p.cur.obj.name)
}

// handlerAdd reports whether op is an add a handler makes (Add, with its
// qualifiers), as opposed to the loop's AddAfter, AddRateLimited and the
// end of a wait.
func handlerAdd(op string) bool {
	return (op == "Add" || strings.HasPrefix(op, "Add (")) && op != "Add (wait over)"
}

// recentWriteCap bounds the write index.
const recentWriteCap = 4096

// writeRef is an API write the Hub remembers until the watch event it
// causes arrives: who made it and, if a sync did, which.
type writeRef struct {
	Client string // the User-Agent
	Op     string
	Sync   tap.SyncRef
	At     time.Time
}

// wkey identifies the watch event a write causes: the resource, the key
// and the resourceVersion the write produced ("" for a delete, whose
// resourceVersion the answer does not carry).
type wkey struct {
	resource, key, rv string
}

// recentWrites indexes the newest writes, at most cap of them (the oldest
// is forgotten first).
type recentWrites struct {
	mu    sync.Mutex
	m     map[wkey]*writeRef
	order []wkey // a ring of the keys in m, oldest at next
	next  int
}

func (w *recentWrites) init(n int) {
	w.m = make(map[wkey]*writeRef, n)
	w.order = make([]wkey, n)
}

// put remembers a successful write that changed an object.
func (w *recentWrites) put(e tap.Event) {
	if e.Err != "" || e.Key == "" || (e.RV == "" && e.Op != "DELETE") {
		return
	}
	k := wkey{resource: e.Resource, key: e.Key, rv: e.RV}
	ref := &writeRef{Client: e.Source, Op: e.Op, Sync: e.Sync, At: e.At}
	w.mu.Lock()
	defer w.mu.Unlock()
	if old := w.order[w.next]; old != (wkey{}) {
		delete(w.m, old)
	}
	w.order[w.next] = k
	w.next = (w.next + 1) % len(w.order)
	w.m[k] = ref
}

// find returns the write that caused watch event e, if it is remembered.
func (w *recentWrites) find(e tap.Event) *writeRef {
	switch e.Op {
	case "ADDED", "MODIFIED", "DELETED":
	default:
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if ref, ok := w.m[wkey{resource: e.Resource, key: e.Key, rv: e.RV}]; ok {
		return ref
	}
	if e.Op == "DELETED" {
		return w.m[wkey{resource: e.Resource, key: e.Key}]
	}
	return nil
}
