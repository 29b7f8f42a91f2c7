package resttest

import (
	"fmt"
	"slices"
	"sync"

	"github.com/kcmlab/kcm/kube/api"
)

// Event is one core/v1 Event a controller recorded.
type Event struct {
	Ref     api.ObjectReference
	Type    string // Normal, Warning
	Reason  string
	Message string
}

// String is "Type Reason Message", as sample-controller's fake recorder
// writes events.
func (e Event) String() string { return e.Type + " " + e.Reason + " " + e.Message }

// Events is an event recorder that keeps what a controller records, for
// the test to check: it implements the Eventf of kcm's controllers'
// recorders. Safe for concurrent use (workers record in parallel).
type Events struct {
	mu     sync.Mutex
	events []Event
}

// Eventf records an event about ref.
func (e *Events) Eventf(ref api.ObjectReference, eventType, reason, format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.events = append(e.events, Event{Ref: ref, Type: eventType, Reason: reason, Message: fmt.Sprintf(format, args...)})
}

// List returns the events recorded so far, in order.
func (e *Events) List() []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.events)
}

// Lines returns the events recorded so far as "Type Reason Message".
func (e *Events) Lines() []string {
	evs := e.List()
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.String()
	}
	return out
}

// Reset forgets the events recorded so far.
func (e *Events) Reset() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.events = nil
}
