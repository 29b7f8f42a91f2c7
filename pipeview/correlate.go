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
// never credited to a handler.
type correlator struct {
	mu sync.Mutex
	// calls holds, by handler (= controller) name, the call in progress
	// at each handler point of that name (one listener: one call at a
	// time). Guarded by mu.
	calls map[string]map[*point]cause
}

// begin notes that the handler at p (named handler) started a call for
// resource/key.
func (c *correlator) begin(handler string, p *point, resource, key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls == nil {
		c.calls = map[string]map[*point]cause{}
	}
	m := c.calls[handler]
	if m == nil {
		m = map[*point]cause{}
		c.calls[handler] = m
	}
	m[p] = cause{Resource: resource, Key: key}
}

// end notes that the call at p returned.
func (c *correlator) end(handler string, p *point) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.calls[handler], p)
}

// cause returns the notification behind an add op to queue, or nil.
func (c *correlator) cause(queue, op string) *cause {
	if !handlerAdd(op) {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := c.calls[queue]; len(m) == 1 {
		for _, cs := range m {
			return &cs
		}
	}
	return nil
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
