package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Engine is one informer implementation under test, bound to a server.
// Start builds a fresh informer, registers a handler that feeds c, and
// starts it; the caller waits with WaitSynced and stops it with
// Running.Stop.
type Engine interface {
	Name() string
	Start(c *Counter) (Running, error)
}

// Running is a started informer.
type Running interface {
	// HasSynced is the informer's own HasSynced.
	HasSynced() bool
	// Len is the number of objects cached.
	Len() int
	// Lookup reports the cached object under key: its resourceVersion and
	// whether it still carries managedFields.
	Lookup(key string) (rv string, managedFields bool, ok bool)
	// Stop stops the informer and waits for its goroutines.
	Stop()
}

// Counter counts the notifications one handler receives and closes a
// channel when the expected number of adds, and of updates, has arrived.
type Counter struct {
	adds, updates         atomic.Int64
	wantAdds, wantUpdates int64
	addsDone, updatesDone chan struct{}
	addsOnce, updatesOnce sync.Once
	// lastUpdate is when the wantUpdates-th update arrived (unix ns).
	lastUpdate atomic.Int64
}

// NewCounter expects adds adds and updates updates; a zero expectation is
// met at once.
func NewCounter(adds, updates int) *Counter {
	c := &Counter{wantAdds: int64(adds), wantUpdates: int64(updates),
		addsDone: make(chan struct{}), updatesDone: make(chan struct{})}
	if adds <= 0 {
		close(c.addsDone)
	}
	if updates <= 0 {
		close(c.updatesDone)
	}
	return c
}

// Add records one add notification.
func (c *Counter) Add() {
	if c.adds.Add(1) == c.wantAdds {
		c.addsOnce.Do(func() { close(c.addsDone) })
	}
}

// Update records one update notification.
func (c *Counter) Update() {
	if c.updates.Add(1) == c.wantUpdates {
		c.lastUpdate.Store(time.Now().UnixNano())
		c.updatesOnce.Do(func() { close(c.updatesDone) })
	}
}

// Adds and Updates return the counts so far.
func (c *Counter) Adds() int64    { return c.adds.Load() }
func (c *Counter) Updates() int64 { return c.updates.Load() }

// AddsDone is closed when the expected adds have arrived.
func (c *Counter) AddsDone() <-chan struct{} { return c.addsDone }

// UpdatesDone is closed when the expected updates have arrived.
func (c *Counter) UpdatesDone() <-chan struct{} { return c.updatesDone }

// LastUpdate is when the expected update count was reached (zero before).
func (c *Counter) LastUpdate() time.Time {
	ns := c.lastUpdate.Load()
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// syncPoll is how often WaitSynced re-checks HasSynced once the handler
// has seen every object; the informer turns synced within microseconds of
// that, so the poll adds at most this much to a measured sync.
const syncPoll = 50 * time.Microsecond

// WaitSynced waits until the handler has seen every expected add and the
// informer reports HasSynced, or ctx ends.
func WaitSynced(ctx context.Context, r Running, c *Counter) error {
	select {
	case <-c.AddsDone():
	case <-ctx.Done():
		return fmt.Errorf("waiting for %d adds (have %d, cached %d): %w", c.wantAdds, c.Adds(), r.Len(), ctx.Err())
	}
	t := time.NewTicker(syncPoll)
	defer t.Stop()
	for !r.HasSynced() {
		select {
		case <-t.C:
		case <-ctx.Done():
			return fmt.Errorf("waiting for HasSynced: %w", ctx.Err())
		}
	}
	return nil
}

// WaitUpdates waits until the handler has seen every expected update, or
// ctx ends.
func WaitUpdates(ctx context.Context, c *Counter) error {
	select {
	case <-c.UpdatesDone():
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for %d updates (have %d): %w", c.wantUpdates, c.Updates(), ctx.Err())
	}
}
