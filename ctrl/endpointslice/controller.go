package endpointslice

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/endpointslice/reconciler"
	"github.com/kcmlab/kcm/ctrl/endpointslice/topology"
	"github.com/kcmlab/kcm/ctrl/internal/triggertime"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/queue"
)

// Name is the controller's canonical name, kube-controller-manager's.
const Name = "endpointslice-controller"

// ControllerName is the value of the managed-by label on the slices this
// controller writes (upstream's ControllerName).
const ControllerName = reconciler.ControllerName

// Component is the source its Events carry (upstream's recorder component).
const Component = "endpoint-slice-controller"

// The controller's flags, with kube-controller-manager's names, defaults
// and ranges.
const (
	ConcurrencyFlagName         = "concurrent-service-endpoint-syncs"
	DefaultConcurrency          = 5
	MaxEndpointsPerSliceFlag    = "max-endpoints-per-slice"
	DefaultMaxEndpointsPerSlice = 100
	MinMaxEndpointsPerSlice     = 1
	MaxMaxEndpointsPerSlice     = 1000
	BatchPeriodFlag             = "endpointslice-updates-batch-period"
)

// Retries, as upstream: a failing Service is retried MaxRetries times, after
// 1s, 2s, 4s … up to MaxSyncBackOff, at most 10 retries a second overall.
const (
	MaxRetries         = 15
	DefaultSyncBackOff = time.Second
	MaxSyncBackOff     = 1000 * time.Second
)

// Descriptor registers the controller: on by default, with the alias
// "endpointslice", --concurrent-service-endpoint-syncs workers,
// --max-endpoints-per-slice and --endpointslice-updates-batch-period
// (kube-controller-manager's help texts).
func Descriptor() *ctrl.ControllerDescriptor {
	return &ctrl.ControllerDescriptor{
		Name: Name, Aliases: []string{"endpointslice"},
		Concurrency: &ctrl.ConcurrencyFlag{Name: ConcurrencyFlagName, Default: DefaultConcurrency, Min: 1, Max: 50,
			Usage: "The number of service endpoint syncing operations that will be done concurrently. Larger number = faster endpoint slice updating, but more CPU (and network) load. Defaults to 5."},
		Flags: []ctrl.ControllerFlag{
			ctrl.Int32Flag(MaxEndpointsPerSliceFlag, DefaultMaxEndpointsPerSlice, MinMaxEndpointsPerSlice, MaxMaxEndpointsPerSlice,
				"The maximum number of endpoints that will be added to an EndpointSlice. More endpoints per slice will result in less endpoint slices, but larger resources. Defaults to 100."),
			ctrl.DurationFlag(BatchPeriodFlag, 0,
				"The length of endpoint slice updates batching period. Processing of pod changes will be delayed by this duration to join them with potential upcoming updates and reduce the overall number of endpoints updates. Larger number = higher endpoint programming latency, but lower number of endpoints revision generated"),
		},
		Constructor: New,
	}
}

// RateLimiter is the controller's retry pacing, upstream's: per Service
// exponential backoff from DefaultSyncBackOff to MaxSyncBackOff, and 10
// retries a second with a burst of 100 overall.
func RateLimiter(clk clock.Clock) queue.RateLimiter[string] {
	return queue.NewMaxOf(
		queue.NewItemExponential[string](DefaultSyncBackOff, MaxSyncBackOff),
		queue.NewBucket[string](clk, 10, 100),
	)
}

// Controller holds what Sync reads and writes; it has no goroutines (the
// ctrl.Loop runs it).
type Controller struct {
	services   informer.ServiceLister
	pods       informer.PodLister
	slices     informer.EndpointSliceLister
	nodes      informer.Lister[*api.Node]
	reconciler *reconciler.Reconciler
	tracker    *reconciler.Tracker
	topology   *topology.Cache
	triggers   *triggertime.Tracker
	metrics    *reconciler.Metrics
	enqueue    func(key string)
	log        zerolog.Logger
}

// Config holds the controller's settings and optional parts.
type Config struct {
	// MaxEndpointsPerSlice caps a slice; 0 means DefaultMaxEndpointsPerSlice.
	MaxEndpointsPerSlice int32
	// Nodes give endpoints their zone and feed the topology cache
	// (required: tests give an empty lister).
	Nodes informer.Lister[*api.Node]
	// Topology serves the topology-mode annotation; nil serves none.
	// kube-controller-manager (and New) always has one.
	Topology *topology.Cache
	// Recorder records Events on Services; nil records none.
	Recorder ctrl.EventRecorder
	// Metrics records kube-controller-manager's endpoint_slice_controller_*
	// series; nil none.
	Metrics *reconciler.Metrics
	// Enqueue adds a Service key to the controller's queue: the topology
	// check's overloaded Services. Nil drops them.
	Enqueue func(key string)
	Logger  zerolog.Logger
}

// NewController returns the controller's state on the given listers and
// client (tests build it directly), with a reconciler and a tracker of its
// own.
func NewController(services informer.ServiceLister, pods informer.PodLister, slices informer.EndpointSliceLister,
	client *rest.Client, cfg Config) *Controller {
	if cfg.Recorder == nil {
		cfg.Recorder = ctrl.NopRecorder{}
	}
	if cfg.MaxEndpointsPerSlice == 0 {
		cfg.MaxEndpointsPerSlice = DefaultMaxEndpointsPerSlice
	}
	if cfg.Enqueue == nil {
		cfg.Enqueue = func(string) {}
	}
	tracker := reconciler.NewTracker()
	return &Controller{
		services: services, pods: pods, slices: slices, nodes: cfg.Nodes,
		reconciler: reconciler.New(reconciler.Config{
			Client: client, Nodes: cfg.Nodes, MaxEndpointsPerSlice: cfg.MaxEndpointsPerSlice,
			Tracker: tracker, Topology: cfg.Topology, Recorder: cfg.Recorder, ControllerName: ControllerName,
			Metrics: cfg.Metrics, Logger: cfg.Logger,
		}),
		tracker: tracker, topology: cfg.Topology, triggers: triggertime.New(),
		metrics: cfg.Metrics, enqueue: cfg.Enqueue, log: cfg.Logger,
	}
}

// New is the ControllerConstructor: it watches Services, pods, Nodes and
// EndpointSlices through the shared factory with the handlers that feed
// the loop, and gives the controller its own client, event broadcaster and
// topology cache.
func New(_ context.Context, cc ctrl.ControllerContext, name string) (ctrl.Controller, error) {
	client := cc.ClientFor(name)
	events := cc.NewBroadcaster(client)
	w := cc.Wire(name, ctrl.LoopOptions{Events: events, MaxRetries: MaxRetries, RateLimiter: RateLimiter(cc.Clock)})
	var metrics *reconciler.Metrics
	if reg := cc.Metrics.Registerer(); reg != nil {
		m, err := reconciler.NewMetrics(reg)
		if err != nil {
			w.Queue().ShutDown()
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		metrics = m
	}
	h := &handlers{q: w.Queue(), batch: cc.DurationFlag(BatchPeriodFlag, 0), log: cc.LoggerFor(name)}
	services := ctrl.Watch(w, rest.Services, processor.HandlerFuncs[*api.Service]{
		AddFunc: h.serviceAdded, UpdateFunc: h.serviceUpdated, DeleteFunc: h.serviceDeleted,
	})
	pods := ctrl.Watch(w, rest.Pods, processor.HandlerFuncs[*api.Pod]{
		AddFunc: h.podAdded, UpdateFunc: h.podUpdated, DeleteFunc: h.podDeleted,
	})
	nodes := ctrl.Watch(w, rest.Nodes, processor.HandlerFuncs[*api.Node]{
		AddFunc: h.nodeAdded, UpdateFunc: h.nodeUpdated, DeleteFunc: h.nodeDeleted,
	})
	slices := ctrl.Watch(w, rest.EndpointSlices, processor.HandlerFuncs[*api.EndpointSlice]{
		AddFunc: h.sliceAdded, UpdateFunc: h.sliceUpdated, DeleteFunc: h.sliceDeleted,
	})
	h.services = informer.ServiceLister{Lister: services}
	c := NewController(h.services, informer.PodLister{Lister: pods}, informer.EndpointSliceLister{Lister: slices}, client, Config{
		MaxEndpointsPerSlice: cc.Int32Flag(MaxEndpointsPerSliceFlag, DefaultMaxEndpointsPerSlice),
		Nodes:                nodes, Topology: topology.NewCache(),
		Recorder: events.NewRecorder(Component), Metrics: metrics,
		Enqueue: w.Queue().Add, Logger: cc.LoggerFor(name),
	})
	h.rec, h.tracker = c.reconciler, c.tracker
	return w.Build(c.Sync)
}

// Sync makes the EndpointSlices of the Service named key ("namespace/name")
// match its pods (upstream's syncService), or runs the topology check for
// topologyKey:
//
//  1. the Service is gone: forget it (trigger times, the reconciler's
//     metrics cache, the tracker); its slices go with it through their
//     ownerReference (the garbage collector);
//  2. an ExternalName Service, or one without a selector: nothing (a
//     selector-less Service's slices are its owner's, or the mirroring
//     controller's);
//  3. the selected pods and the Service's slices managed by this
//     controller, less those being deleted, go to the reconciler — unless
//     the tracker finds the cache older than this controller's last writes
//     (ErrStaleInformerCache: retried with backoff);
//  4. a failed reconcile (which records FailedToUpdateEndpointSlices on
//     the Service) is retried, MaxRetries times.
func (c *Controller) Sync(ctx context.Context, key string) (res ctrl.Result, err error) {
	if key == topologyKey {
		c.checkNodeTopology()
		return ctrl.Result{}, nil
	}
	defer func() { c.metrics.ObserveSync(err) }()
	ns, name, ok := strings.Cut(key, "/")
	if !ok {
		c.log.Error().Str("key", key).Msg("Service key is not namespace/name; dropping it")
		return ctrl.Result{}, nil
	}
	svc, err := c.services.Services(ns).Get(name)
	if rest.IsNotFound(err) {
		c.triggers.Forget(key)
		c.reconciler.DeleteService(ns, name)
		c.tracker.DeleteService(ns, name)
		return ctrl.Result{}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	if svc.Spec.Type == api.ServiceTypeExternalName || svc.Spec.Selector == nil {
		return ctrl.Result{}, nil
	}
	pods := c.pods.Pods(ns).List(labels.SelectorFromSet(svc.Spec.Selector))
	existing := c.slices.EndpointSlices(ns).List(labels.SelectorFromSet(map[string]string{
		reconciler.LabelServiceName: name,
		reconciler.LabelManagedBy:   ControllerName,
	}))
	existing = dropPendingDeletion(existing)
	if c.tracker.StaleSlices(svc, existing) {
		return ctrl.Result{}, fmt.Errorf("%w: EndpointSlices of Service %s", reconciler.ErrStaleInformerCache, key)
	}
	// Before the reconciler, so that the tracker moves on even when the
	// sync writes nothing.
	trigger := c.triggers.Compute(key, svc, pods)
	// On failure the reconciler records FailedToUpdateEndpointSlices on
	// the Service (upstream's syncService records it).
	return ctrl.Result{}, c.reconciler.Reconcile(ctx, svc, pods, existing, trigger)
}

// dropPendingDeletion leaves out the slices being deleted, which the
// controller would otherwise try to update forever
// (dropEndpointSlicesPendingDeletion).
func dropPendingDeletion(in []*api.EndpointSlice) []*api.EndpointSlice {
	out := in[:0:0]
	for _, s := range in {
		if s.DeletionTimestamp == nil {
			out = append(out, s)
		}
	}
	return out
}

// checkNodeTopology (checkNodeTopologyDistribution) gives the topology
// cache the current Nodes and syncs the Services whose hints the new zone
// distribution overloads.
func (c *Controller) checkNodeTopology() {
	if c.topology == nil {
		return
	}
	c.topology.SetNodes(c.log, c.nodes.List(labels.Everything()))
	for _, key := range c.topology.OverloadedServices() {
		c.log.Debug().Str("service", key).Msg("syncing Service after a Node change: its hints are overloaded")
		c.enqueue(key)
	}
}
