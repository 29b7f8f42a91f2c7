package monitorset

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
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/reflector"
	"github.com/kcmlab/kcm/store"
)

// Options configure a Set: how each monitor is made, and how the set
// names and logs it. Key, Codec and Handler are required.
type Options[K comparable] struct {
	// Client lists and watches the resources.
	Client *rest.Client
	// Key is the identity of a resource in the set: one monitor per key.
	// ByResource keys by the exact resource (the collector); a key
	// without the version (the quota controller's group-resource) makes a
	// resource served under a new version replace its monitor.
	Key func(rest.Resource) K
	// Codec decodes the metadata-only objects: what the owner keeps of
	// each.
	Codec decode.Codec[*api.RawObject]
	// Indexers are each monitor's store indexes, passed to the informer
	// as they are: nil is the informer's default indexes, an empty map
	// none.
	Indexers store.Indexers[*api.RawObject]
	// Handler returns the handler registered on a new resource's monitor.
	Handler func(rest.Resource) processor.Handler[*api.RawObject]
	// Shared, when set, returns the informer the shared factory already
	// runs for a resource, if it has one (informer.Factory.Existing): the
	// monitor of that resource adds its handler there instead of listing
	// and watching the resource a second time, as kube-controller-manager's
	// monitors take their informers from its InformerFactory. Such a
	// monitor's informer is the factory's to run and stop; Codec and
	// Indexers do not apply to it.
	Shared func(rest.Resource) (informer.Metadata, bool)
	// Owner names the monitors' informers "<resource>(<Owner>)";
	// HandlerName names the handler's registration.
	Owner, HandlerName string
	// ShutdownTimeout bounds how long a stopping monitor waits for the
	// handler (the informer's ShutdownTimeout).
	ShutdownTimeout time.Duration
	// LogPrefix opens the set's two log messages, "synced monitors" and
	// "monitor stopped with errors" (the quota controller's "quota ").
	LogPrefix string
	// QuietOnStop leaves unlogged the error of a monitor that ended
	// because it was stopped (a handler that outlived ShutdownTimeout).
	QuietOnStop bool

	Clock  clock.Clock
	Logger zerolog.Logger
}

// ByResource is the Key of a set with one monitor per exact resource.
func ByResource(r rest.Resource) rest.Resource { return r }

// Set is the set of monitors of the resources discovery serves, kept
// equal to the set it is given (Kubernetes' GraphBuilder monitors and
// QuotaMonitor: syncMonitors, startMonitors, IsSynced). Safe for
// concurrent use.
type Set[K comparable] struct {
	o Options[K]

	mu      sync.Mutex
	running map[K]*Monitor
	// gone are the keys whose monitor Sync stopped because the resources
	// no longer had that key at all, until a monitor of it is made again.
	gone map[K]bool
	// changed is closed and replaced after every Sync.
	changed chan struct{}
	ctx     context.Context // set by Start; monitors made before wait for it
	stopped bool
	wg      sync.WaitGroup
}

// New returns an empty set; nothing runs until Start.
func New[K comparable](o Options[K]) *Set[K] {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	return &Set[K]{o: o, running: map[K]*Monitor{}, gone: map[K]bool{}, changed: make(chan struct{})}
}

// Sync makes the monitored set equal to resources: a monitor is made
// (and started, once Start has run and unless StopAll has) for each
// resource whose key has none, and the monitor of a key no longer listed,
// or listed with another resource, is stopped and waited for. Monitors
// are made in the order of the resources' names. A resource whose
// monitor cannot be made is reported in the joined error and left out;
// the others go on.
func (s *Set[K]) Sync(resources map[rest.Resource]bool) error {
	s.mu.Lock()
	want := make(map[K]rest.Resource, len(resources))
	for r := range resources {
		want[s.o.Key(r)] = r
	}
	var stopping []*Monitor
	for k, mon := range s.running {
		if r, ok := want[k]; !ok || r != mon.res {
			stopping = append(stopping, mon)
			delete(s.running, k)
			if !ok {
				s.gone[k] = true
			}
		}
	}
	var errs []error
	added := 0
	for _, r := range slices.SortedFunc(maps.Values(want), func(a, b rest.Resource) int { return strings.Compare(a.String(), b.String()) }) {
		k := s.o.Key(r)
		if _, ok := s.running[k]; ok {
			continue
		}
		mon, err := s.newMonitor(r)
		if err != nil {
			errs = append(errs, fmt.Errorf("couldn't start monitor for resource %s: %w", r, err))
			continue
		}
		s.running[k] = mon
		delete(s.gone, k)
		added++
		if s.ctx != nil && !s.stopped {
			s.startLocked(mon)
		}
	}
	kept := len(s.running) - added
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
	for _, mon := range stopping {
		s.stop(mon)
	}
	s.o.Logger.Debug().Int("added", added).Int("kept", kept).Int("removed", len(stopping)).Msg(s.o.LogPrefix + "synced monitors")
	return errors.Join(errs...)
}

func (s *Set[K]) newMonitor(res rest.Resource) (*Monitor, error) {
	if s.o.Shared != nil {
		if src, ok := s.o.Shared(res); ok {
			return &Monitor{res: res, src: src}, nil // its handler is added at start
		}
	}
	r := rest.NewResources(s.o.Client, res, s.o.Codec).MetadataOnly()
	inf, err := informer.New(reflector.FromResources(r, rest.Chunked), informer.Options[*api.RawObject]{
		Name:            res.String() + "(" + s.o.Owner + ")",
		Indexers:        s.o.Indexers,
		Clock:           s.o.Clock,
		Logger:          s.o.Logger,
		ShutdownTimeout: s.o.ShutdownTimeout,
	})
	if err != nil {
		return nil, err
	}
	reg, err := inf.AddEventHandler(s.o.Handler(res), processor.HandlerOptions{Name: s.o.HandlerName})
	if err != nil {
		return nil, err
	}
	mon := &Monitor{res: res, src: inf.Metadata(), run: inf.Run, done: make(chan struct{})}
	mon.reg.Store(reg)
	return mon, nil
}

// Start runs every monitor made so far and those Sync makes later, each
// until ctx ends, Sync stops it or StopAll.
func (s *Set[K]) Start(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ctx = ctx
	if s.stopped {
		return
	}
	for _, mon := range s.running {
		if mon.cancel == nil {
			s.startLocked(mon)
		}
	}
}

func (s *Set[K]) startLocked(mon *Monitor) {
	ctx, cancel := context.WithCancel(s.ctx)
	mon.cancel = cancel
	if mon.Shared() {
		// The factory runs the informer: starting is adding the handler.
		reg, err := mon.src.AddMetadataHandler(s.o.Handler(mon.res), processor.HandlerOptions{Name: s.o.HandlerName})
		if err != nil {
			s.o.Logger.Error().Err(err).Stringer("resource", mon.res).Msg(s.o.LogPrefix + "monitor could not join the shared informer")
			return
		}
		mon.reg.Store(reg)
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(mon.done)
		if err := mon.run(ctx); err != nil && !(s.o.QuietOnStop && ctx.Err() != nil) {
			s.o.Logger.Error().Err(err).Stringer("resource", mon.res).Msg(s.o.LogPrefix + "monitor stopped with errors")
		}
	}()
}

// stop ends the monitor, if it was started, and waits for it: an own
// informer's Run to return, or a shared informer's delivery to the
// removed handler to end (at most ShutdownTimeout, when set, the bound
// an own informer puts on its handlers). The caller must not hold the
// lock (cancel and reg are only read here after the monitor left the
// running set, so nothing writes them).
func (s *Set[K]) stop(mon *Monitor) {
	if mon.cancel == nil {
		return
	}
	mon.cancel()
	if !mon.Shared() {
		<-mon.done
		return
	}
	reg := mon.reg.Load()
	if reg == nil {
		return // it never joined
	}
	if err := mon.src.RemoveEventHandler(reg); err != nil {
		s.o.Logger.Error().Err(err).Stringer("resource", mon.res).Msg(s.o.LogPrefix + "monitor could not leave the shared informer")
		return
	}
	if s.o.ShutdownTimeout <= 0 {
		<-reg.Done()
		return
	}
	t := s.o.Clock.NewTimer(s.o.ShutdownTimeout)
	defer t.Stop()
	select {
	case <-reg.Done():
	case <-t.C():
		if !s.o.QuietOnStop {
			s.o.Logger.Error().Stringer("resource", mon.res).Dur("timeout", s.o.ShutdownTimeout).Msg(s.o.LogPrefix + "monitor's handler still running after it left the shared informer")
		}
	}
}

// StopAll stops every monitor and waits for all of them; no monitor
// starts afterwards.
func (s *Set[K]) StopAll() {
	s.mu.Lock()
	s.stopped = true
	all := slices.Collect(maps.Values(s.running))
	s.running = map[K]*Monitor{}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, mon := range all {
		wg.Go(func() { s.stop(mon) })
	}
	wg.Wait()
	s.wg.Wait()
}

// Synced reports whether there is at least one monitor and every one has
// synced (Kubernetes' IsSynced, false without monitors).
func (s *Set[K]) Synced() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.running) == 0 {
		return false
	}
	for _, mon := range s.running {
		if !mon.Synced() {
			return false
		}
	}
	return true
}

// ResourceSynced reports whether r itself, at its version, has a monitor
// that has synced.
func (s *Set[K]) ResourceSynced(r rest.Resource) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	mon, ok := s.running[s.o.Key(r)]
	return ok && mon.res == r && mon.Synced()
}

// Lookup returns key's monitor, or nil; gone reports that there is none
// because Sync stopped it when the resources no longer had the key (a
// deleted CRD), rather than because the key was never monitored.
func (s *Set[K]) Lookup(key K) (mon *Monitor, gone bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running[key], s.gone[key]
}

// Resources returns the monitored resources, and a channel closed at the
// next Sync.
func (s *Set[K]) Resources() (map[rest.Resource]bool, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[rest.Resource]bool, len(s.running))
	for _, mon := range s.running {
		out[mon.res] = true
	}
	return out, s.changed
}
