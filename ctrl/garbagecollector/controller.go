package garbagecollector

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/internal/monitorset"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
)

// Name is the controller's canonical name, kube-controller-manager's; it
// is also the source component of its events.
const Name = "garbage-collector-controller"

// ClientName is the name of the collector's client (its User-Agent),
// kube-controller-manager's.
const ClientName = "generic-garbage-collector"

// The collector's flags, kube-controller-manager's.
const (
	// DefaultWorkers is --concurrent-gc-syncs' default: the workers of
	// each of the two queues.
	DefaultWorkers = 20
	// FlagEnable is --enable-garbage-collector; false builds no
	// collector at all.
	FlagEnable = "enable-garbage-collector"
)

// Queue names, which label the workqueue_* metrics as
// kube-controller-manager's queues do.
const (
	AttemptToDeleteQueue = "garbage_collector_attempt_to_delete"
	AttemptToOrphanQueue = "garbage_collector_attempt_to_orphan"
)

// DefaultResyncPeriod is how often discovery is read again, so that
// resources installed later join the graph and removed ones leave it, and
// how long Run waits for the first sync before collecting anyway
// (kube-controller-manager's 30 s).
const DefaultResyncPeriod = 30 * time.Second

// Descriptor registers the collector: on by default, alias
// "garbagecollector", workers from --concurrent-gc-syncs, off with
// --enable-garbage-collector=false.
func Descriptor() *ctrl.ControllerDescriptor {
	return &ctrl.ControllerDescriptor{
		Name: Name, Aliases: []string{"garbagecollector"},
		Concurrency: &ctrl.ConcurrencyFlag{
			Name: "concurrent-gc-syncs", Default: DefaultWorkers,
			Usage: "The number of garbage collector workers that are allowed to sync concurrently.",
		},
		Flags: []ctrl.ControllerFlag{ctrl.BoolFlag(FlagEnable, true,
			"Enables the generic garbage collector. MUST be synced with the corresponding flag of the kube-apiserver.")},
		Constructor: New,
	}
}

// Options configure a GarbageCollector beyond its Config.
type Options struct {
	Config
	// ResyncPeriod is DefaultResyncPeriod unless set (tests shorten it).
	ResyncPeriod time.Duration
	// Ignored are the resources never watched; nil means
	// DefaultIgnoredResources.
	Ignored map[GroupResource]bool
	// Metrics and Events are handed to the two loops.
	Metrics *ctrl.Metrics
	Events  *ctrl.Broadcaster
	// Shared returns the shared factory's informer of a resource, if it
	// has one (informer.Factory.Existing): that resource's monitor feeds
	// the graph from it instead of listing and watching the resource a
	// second time, as kube-controller-manager's GraphBuilder takes its
	// informers from the InformerFactory. nil: every monitor lists and
	// watches on its own. Constructor sets the context's factory's.
	Shared func(rest.Resource) (informer.Metadata, bool)
}

// GarbageCollector is the controller the manager runs (Kubernetes'
// GarbageCollector.Run and Sync): discovery every ResyncPeriod, one
// monitor per deletable resource feeding the Collector's graph, and the
// two work loops.
type GarbageCollector struct {
	c          *Collector
	client     *rest.Client
	monitors   *monitorset.Set[rest.Resource]
	deleteLoop *ctrl.Loop
	orphanLoop *ctrl.Loop
	period     time.Duration
	ignored    map[GroupResource]bool
	clock      clock.Clock
	log        zerolog.Logger
}

var (
	_ ctrl.Controller = (*GarbageCollector)(nil)
	_ ctrl.Debuggable = (*GarbageCollector)(nil)
)

// New is the ControllerConstructor: Constructor with the defaults.
func New(ctx context.Context, cc ctrl.ControllerContext, name string) (ctrl.Controller, error) {
	return Constructor(Options{})(ctx, cc, name)
}

// Constructor returns a ControllerConstructor that builds the collector
// with o (its clock, logger, recorder, metrics and events are the
// context's): nil when --enable-garbage-collector is false; else a
// collector on a client of its own, "generic-garbage-collector", with
// twice the QPS, as kube-controller-manager gives it.
func Constructor(o Options) ctrl.ControllerConstructor {
	return func(_ context.Context, cc ctrl.ControllerContext, _ string) (ctrl.Controller, error) {
		if !cc.BoolFlag(FlagEnable, true) {
			log := cc.LoggerFor(Name)
			log.Info().Msg("--enable-garbage-collector=false: not starting the garbage collector")
			return nil, nil
		}
		client := cc.ClientScaledFor(ClientName, 2, 1)
		events := cc.NewBroadcaster(client)
		o.Config = Config{Clock: cc.Clock, Logger: cc.LoggerFor(Name), Recorder: events.NewRecorder(Name)}
		o.Metrics, o.Events = cc.Metrics, events
		if o.Shared == nil && cc.InformerFactory != nil {
			o.Shared = cc.InformerFactory.Existing
		}
		return NewGarbageCollector(client, o), nil
	}
}

// NewGarbageCollector builds the collector on client. Nothing runs until
// Run.
func NewGarbageCollector(client *rest.Client, o Options) *GarbageCollector {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.ResyncPeriod <= 0 {
		o.ResyncPeriod = DefaultResyncPeriod
	}
	if o.Ignored == nil {
		o.Ignored = DefaultIgnoredResources()
	}
	gc := &GarbageCollector{client: client, period: o.ResyncPeriod, ignored: o.Ignored, clock: o.Clock, log: o.Logger}
	lo := ctrl.LoopOptions{Clock: o.Clock, Logger: o.Logger, Metrics: o.Metrics}
	gc.c = NewCollector(RESTObjectAPI{Client: client}, nil, nil, o.Config)
	dl := lo
	dl.Events = o.Events
	gc.deleteLoop = ctrl.NewLoop(AttemptToDeleteQueue, gc.c.AttemptToDelete, dl)
	gc.orphanLoop = ctrl.NewLoop(AttemptToOrphanQueue, gc.c.AttemptToOrphan, lo)
	gc.c.deleteQ, gc.c.orphanQ = gc.deleteLoop.Queue(), gc.orphanLoop.Queue()
	gc.monitors = newMonitors(client, func(res rest.Resource) processor.Handler[*api.RawObject] {
		return gc.c.Handler(res.GroupVersion(), res.Kind)
	}, o.Shared, o.Clock, o.Logger)
	return gc
}

// Name implements ctrl.Controller.
func (gc *GarbageCollector) Name() string { return Name }

// Collector returns the collector's state and syncs.
func (gc *GarbageCollector) Collector() *Collector { return gc.c }

// Run implements ctrl.Controller: it reads discovery and starts the
// monitors, waits for them to sync — at most one resync period, then
// collects anyway, as Kubernetes does — and runs workers workers on each
// queue until ctx ends. Then it drains the loops and stops the monitors.
func (gc *GarbageCollector) Run(ctx context.Context, workers int) error {
	gc.log.Info().Msg("starting the garbage collector")
	defer gc.log.Info().Msg("the garbage collector stopped")
	// The loops shut their queues down when they run; this covers a
	// stop before they do.
	defer gc.orphanLoop.Queue().ShutDown()
	defer gc.deleteLoop.Queue().ShutDown()
	gc.monitors.Start(ctx)
	defer gc.monitors.StopAll()
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { gc.syncLoop(ctx) })

	wait, cancel := context.WithTimeout(ctx, gc.period)
	synced := informer.WaitForCacheSync(wait, gc.clock, syncedFunc{"garbage-collector", gc.monitors.Synced})["garbage-collector"]
	cancel()
	if ctx.Err() != nil {
		return nil
	}
	if synced {
		gc.log.Info().Msg("all resource monitors have synced; proceeding to collect garbage")
	} else {
		gc.log.Info().Msg("not all resource monitors could be synced; proceeding to collect garbage anyway")
	}
	errs := make([]error, 2)
	wg.Go(func() { errs[0] = gc.deleteLoop.Run(ctx, workers) })
	wg.Go(func() { errs[1] = gc.orphanLoop.Run(ctx, workers) })
	wg.Wait()
	return errors.Join(errs...)
}

// syncLoop reads discovery now and every period until ctx ends
// (Kubernetes' GarbageCollector.Sync).
func (gc *GarbageCollector) syncLoop(ctx context.Context) {
	var known map[rest.Resource]bool
	for {
		known = gc.resync(ctx, known)
		t := gc.clock.NewTimer(gc.period)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
	}
}

// resync reads discovery, refreshes the kind mapping, and changes the
// monitors when the deletable resources changed. An empty discovery
// changes nothing; a partial one keeps the synced monitors of the groups
// that failed.
func (gc *GarbageCollector) resync(ctx context.Context, known map[rest.Resource]bool) map[rest.Resource]bool {
	all, err := gc.client.ServerPreferredResources(ctx)
	if err != nil && ctx.Err() == nil {
		gc.log.Info().Err(err).Msg("failed to discover some resources")
	}
	if len(all) == 0 {
		gc.log.Debug().Msg("no resources reported by discovery; skipping garbage collector sync")
		return known
	}
	gc.c.mapper.set(all)
	next := deletableResources(all, gc.ignored)
	monitorset.KeepFailedGroups(next, known, err, gc.monitors.ResourceSynced)
	if maps.Equal(known, next) {
		return known
	}
	added, removed := monitorset.Diff(known, next)
	gc.log.Info().Strs("added", added).Strs("removed", removed).Msg("syncing the garbage collector with the resources discovery reports")
	if err := gc.monitors.Sync(next); err != nil {
		gc.log.Error().Err(err).Msg("failed to sync resource monitors")
	}
	return next
}

// DebuggingHandler implements ctrl.Debuggable: GET graph (below the
// manager's /debug/controllers/<name>/) is the graph in DOT, or with
// ?uid=… (repeatable) the part connected to those objects.
func (gc *GarbageCollector) DebuggingHandler() http.Handler {
	return DebugHandler(gc.c.graph)
}

// DebugHandler serves a graph as kube-controller-manager's debug handler
// does: "/graph" answers text/vnd.graphviz, anything else 404.
func DebugHandler(g *Graph) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/graph" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/vnd.graphviz")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if err := g.WriteDOT(w, r.URL.Query()["uid"]...); err != nil {
			http.Error(w, fmt.Sprintf("writing the graph: %v", err), http.StatusInternalServerError)
		}
	})
}

// syncedFunc adapts a function to informer.Synced.
type syncedFunc struct {
	name string
	f    func() bool
}

func (s syncedFunc) HasSynced() bool { return s.f() }
func (s syncedFunc) Name() string    { return s.name }
