package garbagecollector

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/reflector"
	"github.com/kcmlab/kcm/store"
)

// monitor is the informer of one resource that feeds the graph
// (Kubernetes' monitor): a metadata-only LIST and WATCH of every object of
// the resource, decoded with metaCodec, cached without indexes. Each has
// its own context, so that a resource discovery no longer reports (a
// deleted CRD) stops alone. It has synced when the graph's handler has
// (its registration's HasSynced: the informer listed and the graph took
// every object of that list), not merely its informer.
type monitor struct {
	res    rest.Resource
	inf    *informer.Informer[*api.RawObject]
	reg    *processor.Registration
	cancel context.CancelFunc // nil until started
	done   chan struct{}
}

// monitors is the set of running monitors (Kubernetes' GraphBuilder
// monitors, syncMonitors, startMonitors, stopMonitors).
type monitors struct {
	client  *rest.Client
	handler func(res rest.Resource) processor.Handler[*api.RawObject]
	clock   clock.Clock
	log     zerolog.Logger

	mu      sync.Mutex
	running map[rest.Resource]*monitor
	// changed is closed and replaced after every sync (tests wait on it).
	changed chan struct{}
	ctx     context.Context // set by start; monitors made before wait for it
	stopped bool
	wg      sync.WaitGroup
}

// monitorShutdownTimeout bounds how long a stopping monitor waits for
// the graph's handler.
const monitorShutdownTimeout = 30 * time.Second

func newMonitors(client *rest.Client, handler func(rest.Resource) processor.Handler[*api.RawObject], clk clock.Clock, log zerolog.Logger) *monitors {
	return &monitors{client: client, handler: handler, clock: clk, log: log, running: map[rest.Resource]*monitor{},
		changed: make(chan struct{})}
}

// sync makes the monitored set equal to resources: a monitor is made
// (and started, once start has run) for each new resource and stopped
// for each resource no longer listed. A resource whose monitor cannot be
// made is reported and left out; the others go on.
func (m *monitors) sync(resources map[rest.Resource]bool) error {
	m.mu.Lock()
	var errs []error
	var gone []*monitor
	added := 0
	for res, mon := range m.running {
		if !resources[res] {
			gone = append(gone, mon)
			delete(m.running, res)
		}
	}
	for _, res := range slices.SortedFunc(maps.Keys(resources), func(a, b rest.Resource) int { return strings.Compare(a.String(), b.String()) }) {
		if _, ok := m.running[res]; ok {
			continue
		}
		mon, err := m.newMonitor(res)
		if err != nil {
			errs = append(errs, fmt.Errorf("couldn't start monitor for resource %s: %w", res, err))
			continue
		}
		m.running[res] = mon
		added++
		if m.ctx != nil && !m.stopped {
			m.startLocked(mon)
		}
	}
	kept := len(m.running) - added
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
	for _, mon := range gone {
		mon.stop()
	}
	m.log.Debug().Int("added", added).Int("kept", kept).Int("removed", len(gone)).Msg("synced monitors")
	return errors.Join(errs...)
}

func (m *monitors) newMonitor(res rest.Resource) (*monitor, error) {
	r := rest.NewResources(m.client, res, metaCodec{}).MetadataOnly()
	inf, err := informer.New(reflector.FromResources(r, rest.Chunked), informer.Options[*api.RawObject]{
		Name:            res.String() + "(garbage-collector)",
		Indexers:        store.Indexers[*api.RawObject]{}, // the graph is the index
		Clock:           m.clock,
		Logger:          m.log,
		ShutdownTimeout: monitorShutdownTimeout,
	})
	if err != nil {
		return nil, err
	}
	reg, err := inf.AddEventHandler(m.handler(res), processor.HandlerOptions{Name: Name})
	if err != nil {
		return nil, err
	}
	return &monitor{res: res, inf: inf, reg: reg, done: make(chan struct{})}, nil
}

// start runs every monitor made so far and those made later, until ctx
// ends or stop is called.
func (m *monitors) start(ctx context.Context) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ctx = ctx
	for _, mon := range m.running {
		if mon.cancel == nil {
			m.startLocked(mon)
		}
	}
}

func (m *monitors) startLocked(mon *monitor) {
	ctx, cancel := context.WithCancel(m.ctx)
	mon.cancel = cancel
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		defer close(mon.done)
		if err := mon.inf.Run(ctx); err != nil {
			m.log.Error().Err(err).Stringer("resource", mon.res).Msg("monitor stopped with errors")
		}
	}()
}

// stop ends the monitor and waits for it, if it was started.
func (mon *monitor) stop() {
	if mon.cancel == nil {
		return
	}
	mon.cancel()
	<-mon.done
}

// stopAll stops every monitor and waits for all of them; no monitor
// starts afterwards.
func (m *monitors) stopAll() {
	m.mu.Lock()
	m.stopped = true
	all := slices.Collect(maps.Values(m.running))
	m.running = map[rest.Resource]*monitor{}
	m.mu.Unlock()
	for _, mon := range all {
		if mon.cancel != nil {
			mon.cancel()
		}
	}
	m.wg.Wait()
}

// synced reports whether there is at least one monitor and every one has
// synced (Kubernetes' IsSynced, which asks the informers; kcm asks the
// graph handler's registrations, which sync after their informers).
func (m *monitors) synced() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.running) == 0 {
		return false
	}
	for _, mon := range m.running {
		if !mon.reg.HasSynced() {
			return false
		}
	}
	return true
}

// resourceSynced reports whether res has a monitor that has synced.
func (m *monitors) resourceSynced(res rest.Resource) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	mon, ok := m.running[res]
	return ok && mon.reg.HasSynced()
}

// resources returns the monitored resources, and a channel closed at
// the next sync.
func (m *monitors) resources() (map[rest.Resource]bool, <-chan struct{}) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[rest.Resource]bool, len(m.running))
	for r := range m.running {
		out[r] = true
	}
	return out, m.changed
}
