package monitorset

import (
	"context"
	"sync/atomic"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
)

// Monitor is the informer of one resource and the owner's handler
// registered on it (Kubernetes' monitor: a controller, its store and a
// stop channel). The informer is either the monitor's own metadata-only
// one, run under a context of its own so that a resource discovery no
// longer reports stops alone, or one the shared informer factory already
// runs for another controller (Options.Shared), which the monitor only
// adds its handler to and removes it from.
type Monitor struct {
	res rest.Resource
	src informer.Metadata
	// reg is the owner's handler: set when made (own informer) or when
	// started (shared), read without the Set's lock.
	reg atomic.Pointer[processor.Registration]
	// run is the own informer's Run; nil for a shared one.
	run    func(context.Context) error
	cancel context.CancelFunc // nil until started; set under the Set's lock
	done   chan struct{}      // closed when Run returned, or the shared handler's goroutine ended
}

// Resource is the resource the monitor lists and watches, with the
// version it was made for.
func (m *Monitor) Resource() rest.Resource { return m.res }

// Source is the informer the monitor reads, seen through its metadata:
// its IndexLen is what the owner counts (the quota controller counts
// there; the collector keeps no index of its own there).
func (m *Monitor) Source() informer.Metadata { return m.src }

// Shared reports whether the monitor's informer is the shared factory's
// rather than its own.
func (m *Monitor) Shared() bool { return m.run == nil }

// Registration is the owner's handler on the informer (nil for a
// shared informer's monitor until it starts).
func (m *Monitor) Registration() *processor.Registration { return m.reg.Load() }

// Synced reports whether the informer listed and the owner's handler took
// every object of that list (the registration's HasSynced), not merely
// whether the informer listed.
func (m *Monitor) Synced() bool {
	reg := m.reg.Load()
	return reg != nil && reg.HasSynced()
}
