package monitorset

import (
	"context"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
)

// Monitor is the metadata-only informer of one resource and the owner's
// handler registered on it (Kubernetes' monitor: a controller, its store
// and a stop channel). It runs under a context of its own, so that a
// resource discovery no longer reports stops alone.
type Monitor struct {
	res    rest.Resource
	inf    *informer.Informer[*api.RawObject]
	reg    *processor.Registration
	cancel context.CancelFunc // nil until started; set under the Set's lock
	done   chan struct{}      // closed when Run returned
}

// Resource is the resource the monitor lists and watches, with the
// version it was made for.
func (m *Monitor) Resource() rest.Resource { return m.res }

// Informer is the monitor's informer: its Store is what the owner reads
// (the quota controller counts in it; the collector keeps none of its own
// indexes there).
func (m *Monitor) Informer() *informer.Informer[*api.RawObject] { return m.inf }

// Registration is the owner's handler on the informer.
func (m *Monitor) Registration() *processor.Registration { return m.reg }

// Synced reports whether the informer listed and the owner's handler took
// every object of that list (the registration's HasSynced), not merely
// whether the informer listed.
func (m *Monitor) Synced() bool { return m.reg.HasSynced() }

// stop ends the monitor and waits for its Run to return, if it was
// started; the caller must not hold the Set's lock (cancel is only read
// here after the monitor left the running set, so nothing writes it).
func (m *Monitor) stop() {
	if m.cancel == nil {
		return
	}
	m.cancel()
	<-m.done
}
