package resourcequota

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
	"github.com/kcmlab/kcm/ctrl/resourcequota/quota"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/reflector"
	"github.com/kcmlab/kcm/store"
)

// monitor is the metadata-only informer of one quotable resource
// (Kubernetes' QuotaMonitor monitor): its cache, indexed by namespace
// only, is what the resource's count evaluator counts, and its handler
// signals deletions for replenishment. Each runs under its own context, so
// that a resource discovery no longer reports (a deleted CRD) stops alone.
type monitor struct {
	res    rest.Resource
	inf    *informer.Informer[*api.RawObject]
	reg    *processor.Registration
	cancel context.CancelFunc // nil until started
	done   chan struct{}
}

// monitors is the set of running metadata monitors, by group-resource
// (Kubernetes' SyncMonitors, StartMonitors, IsSynced).
type monitors struct {
	client  *rest.Client
	changed func(gr quota.GroupResource, namespace string)
	clock   clock.Clock
	log     zerolog.Logger

	mu      sync.Mutex
	running map[quota.GroupResource]*monitor
	// gone are the resources whose monitor was stopped because discovery
	// no longer serves them: their objects are gone with them (a deleted
	// CRD's custom resources), so they count 0.
	gone    map[quota.GroupResource]bool
	ctx     context.Context // set by start; monitors made before wait for it
	stopped bool
	wg      sync.WaitGroup
}

// monitorShutdownTimeout bounds how long a stopping monitor waits for its
// handler.
const monitorShutdownTimeout = 30 * time.Second

func newMonitors(client *rest.Client, changed func(quota.GroupResource, string), clk clock.Clock, log zerolog.Logger) *monitors {
	return &monitors{client: client, changed: changed, clock: clk, log: log, running: map[quota.GroupResource]*monitor{},
		gone: map[quota.GroupResource]bool{}}
}

// sync makes the monitored set equal to resources: a monitor is made (and
// started, once start has run) for each new resource, and stopped for
// each one no longer listed. It returns the group-resources it added; a
// resource whose monitor cannot be made is reported and left out.
func (m *monitors) sync(resources map[rest.Resource]bool) ([]quota.GroupResource, error) {
	m.mu.Lock()
	want := make(map[quota.GroupResource]rest.Resource, len(resources))
	for r := range resources {
		want[grOf(r)] = r
	}
	var gone []*monitor
	for gr, mon := range m.running {
		if r, ok := want[gr]; !ok || r != mon.res {
			gone = append(gone, mon)
			delete(m.running, gr)
			if !ok {
				m.gone[gr] = true
			}
		}
	}
	var errs []error
	var added []quota.GroupResource
	for _, gr := range slices.SortedFunc(maps.Keys(want), compareGR) {
		if _, ok := m.running[gr]; ok {
			continue
		}
		mon, err := m.newMonitor(want[gr])
		if err != nil {
			errs = append(errs, fmt.Errorf("couldn't start monitor for resource %s: %w", want[gr], err))
			continue
		}
		m.running[gr] = mon
		delete(m.gone, gr)
		added = append(added, gr)
		if m.ctx != nil && !m.stopped {
			m.startLocked(mon)
		}
	}
	kept := len(m.running) - len(added)
	m.mu.Unlock()
	for _, mon := range gone {
		mon.stop()
	}
	m.log.Debug().Int("added", len(added)).Int("kept", kept).Int("removed", len(gone)).Msg("quota synced monitors")
	return added, errors.Join(errs...)
}

func (m *monitors) newMonitor(res rest.Resource) (*monitor, error) {
	r := rest.NewResources(m.client, res, countCodec{}).MetadataOnly()
	inf, err := informer.New(reflector.FromResources(r, rest.Chunked), informer.Options[*api.RawObject]{
		Name:            res.String() + "(" + Name + ")",
		Indexers:        store.BuiltinIndexers[*api.RawObject](store.IndexNamespace),
		Clock:           m.clock,
		Logger:          m.log,
		ShutdownTimeout: monitorShutdownTimeout,
	})
	if err != nil {
		return nil, err
	}
	gr := grOf(res)
	reg, err := inf.AddEventHandler(processor.HandlerFuncs[*api.RawObject]{
		DeleteFunc: func(obj *api.RawObject, _ bool) { m.changed(gr, obj.GetObjectMeta().Namespace) },
	}, processor.HandlerOptions{Name: Name})
	if err != nil {
		return nil, err
	}
	return &monitor{res: res, inf: inf, reg: reg, done: make(chan struct{})}, nil
}

// start runs every monitor made so far and those made later, until ctx
// ends or stopAll is called.
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
		if err := mon.inf.Run(ctx); err != nil && ctx.Err() == nil {
			m.log.Error().Err(err).Stringer("resource", mon.res).Msg("quota monitor stopped with errors")
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
	m.running = map[quota.GroupResource]*monitor{}
	m.mu.Unlock()
	for _, mon := range all {
		if mon.cancel != nil {
			mon.cancel()
		}
	}
	m.wg.Wait()
}

// synced reports whether there is at least one monitor and every one has
// synced: its informer listed and its handler took every listed object
// (Kubernetes' IsSynced, false without monitors).
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

// resourceSynced reports whether r has a monitor that has synced.
func (m *monitors) resourceSynced(r rest.Resource) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	mon, ok := m.running[grOf(r)]
	return ok && mon.res == r && mon.reg.HasSynced()
}

// count is the number of gr's objects in namespace in its monitor's
// cache. A monitor that has not synced yet answers ErrNotSynced rather
// than a count of the part it listed: the quota's sync fails and is
// retried, instead of writing a usage too low that nothing would correct
// before the next full resync.
func (m *monitors) count(gr quota.GroupResource, namespace string) (int, error) {
	m.mu.Lock()
	mon, ok := m.running[gr]
	gone := m.gone[gr]
	m.mu.Unlock()
	if gone {
		return 0, nil
	}
	if !ok {
		return 0, fmt.Errorf("%w: %s", ErrNotMonitored, gr.Resource+"."+gr.Group)
	}
	if !mon.reg.HasSynced() {
		return 0, fmt.Errorf("%w: %s", ErrNotSynced, mon.res)
	}
	return mon.inf.Store().IndexLen(store.IndexNamespace, namespace)
}

// resources returns the monitored resources.
func (m *monitors) resources() map[rest.Resource]bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[rest.Resource]bool, len(m.running))
	for _, mon := range m.running {
		out[mon.res] = true
	}
	return out
}

// grOf is a resource's group-resource.
func grOf(r rest.Resource) quota.GroupResource {
	return quota.GroupResource{Group: r.Group, Resource: r.Resource}
}

func compareGR(a, b quota.GroupResource) int {
	if c := strings.Compare(a.Group, b.Group); c != 0 {
		return c
	}
	return strings.Compare(a.Resource, b.Resource)
}
