package fakelw

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// Stream is an open WATCH fed by the test.
type Stream[T api.Object] struct {
	t      testing.TB
	ctx    context.Context
	events chan next[T]
	once   sync.Once
	closed chan struct{}
}

// next is what one Next returns.
type next[T api.Object] struct {
	ev  rest.WatchEvent[T]
	err error
}

// Send hands ev to the watcher's next Next and returns once it was taken.
func (s *Stream[T]) Send(ev rest.WatchEvent[T]) {
	s.t.Helper()
	s.give(next[T]{ev: ev})
}

// Event sends an event of type typ carrying obj.
func (s *Stream[T]) Event(typ rest.EventType, obj T) {
	s.t.Helper()
	s.give(next[T]{ev: rest.WatchEvent[T]{Type: typ, Object: obj}})
}

// End makes the watcher's next Next return err (io.EOF: the server ended
// the watch normally).
func (s *Stream[T]) End(err error) {
	s.t.Helper()
	s.give(next[T]{err: err})
}

func (s *Stream[T]) give(n next[T]) {
	s.t.Helper()
	select {
	case s.events <- n:
	case <-s.closed:
		s.t.Fatalf("fakelw: event sent to a closed watch")
	case <-time.After(Patience):
		s.t.Fatalf("fakelw: nobody read the watch within %v", Patience)
	}
}

// Next implements reflector.Watch: the test's next event or end, or the
// context's error once the watch's context is done.
func (s *Stream[T]) Next() (rest.WatchEvent[T], error) {
	select {
	case n := <-s.events:
		return n.ev, n.err
	case <-s.closed:
		return rest.WatchEvent[T]{}, context.Canceled
	case <-s.ctx.Done():
		return rest.WatchEvent[T]{}, s.ctx.Err()
	}
}

// Close implements reflector.Watch.
func (s *Stream[T]) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

// Closed reports whether the watcher closed the stream.
func (s *Stream[T]) Closed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}
