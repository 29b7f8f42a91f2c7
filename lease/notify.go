package lease

import "sync"

// notifier delivers new-leader identities to Callbacks.OnNewLeader from a
// goroutine of its own, so that a slow callback never holds up the
// election loop (which must keep its renew deadline). Identities are
// coalesced: only the latest pending one is delivered.
type notifier struct {
	fn func(string)

	mu sync.Mutex
	// pending is the identity not yet delivered; valid when has. Guarded by mu.
	pending string
	has     bool

	wake   chan struct{} // capacity 1: "pending may be set"
	done   chan struct{} // closed by stop
	exited chan struct{} // closed when the goroutine returned
}

// startNotifier starts the delivery goroutine; with fn nil it returns nil,
// and the nil notifier's methods do nothing.
func startNotifier(fn func(string)) *notifier {
	if fn == nil {
		return nil
	}
	n := &notifier{fn: fn, wake: make(chan struct{}, 1), done: make(chan struct{}), exited: make(chan struct{})}
	go n.loop()
	return n
}

func (n *notifier) post(id string) {
	if n == nil {
		return
	}
	n.mu.Lock()
	n.pending, n.has = id, true
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default: // a wake-up is already queued; it will see the latest id
	}
}

func (n *notifier) loop() {
	defer close(n.exited)
	for {
		select {
		case <-n.done:
			return
		case <-n.wake:
		}
		n.mu.Lock()
		id, has := n.pending, n.has
		n.has = false
		n.mu.Unlock()
		if has {
			n.fn(id)
		}
	}
}

// stop ends the goroutine and waits for a callback in progress to return.
func (n *notifier) stop() {
	if n == nil {
		return
	}
	close(n.done)
	<-n.exited
}
