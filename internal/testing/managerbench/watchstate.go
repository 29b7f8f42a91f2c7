package managerbench

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrTrackerEnded is returned by a tracker's Wait once one of its watches
// has failed for good.
var ErrTrackerEnded = errors.New("managerbench: a benchmark watch ended")

// watchState is what a tracker fed by watch events needs besides its own
// state: the lock that guards that state, the first failure of one of its
// watches, and a way for the scenario to block until the state satisfies
// a condition. Its zero value is ready to use; a tracker embeds it and
// calls notify (holding mu) after every change.
type watchState struct {
	mu      sync.Mutex
	err     error         // the first watch failure, wrapped in ErrTrackerEnded; guarded by mu
	changed chan struct{} // closed on the next change (nil: none waiting yet); guarded by mu
}

// notify wakes every waitFor. Callers hold mu.
func (s *watchState) notify() {
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

// next is the channel the next notify closes. Callers hold mu.
func (s *watchState) next() <-chan struct{} {
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.changed
}

// fail records the end of a watch; waitFor returns it from then on (the
// first failure wins).
func (s *watchState) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = fmt.Errorf("%w: %w", ErrTrackerEnded, err)
	}
	s.notify()
}

// waitFor returns once cond holds, checking it under mu now and after
// every change; it fails when a watch has failed or ctx ends first. what
// names the condition in the error.
func (s *watchState) waitFor(ctx context.Context, what string, cond func() bool) error {
	for {
		s.mu.Lock()
		ok, err, ch := cond(), s.err, s.next()
		s.mu.Unlock()
		if ok {
			return nil
		}
		if err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("managerbench: waiting for %s: %w", what, ctx.Err())
		case <-ch:
		}
	}
}

// goWatch runs watch in a goroutine that wg counts; its error, if any,
// ends the tracker's waits.
func (s *watchState) goWatch(wg *sync.WaitGroup, watch func() error) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := watch(); err != nil {
			s.fail(err)
		}
	}()
}
