package nodelifecycle

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/nodelifecycle/scheduler"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
)

// Name is the controller's canonical name, kube-controller-manager's.
const Name = "node-lifecycle-controller"

// ClientName names the controller's client as kube-controller-manager
// does, and so its ServiceAccount under --use-service-account-credentials:
// kube-system/node-controller, bound to the bootstrap ClusterRole
// system:controller:node-controller.
const ClientName = "node-controller"

// EventSource is the source component of the controller's events
// (upstream's recorder: "node-controller").
const EventSource = "node-controller"

// NamespaceNodeLease is where the kubelets' heartbeat Leases live.
const NamespaceNodeLease = "kube-node-lease"

// The flags, with kube-controller-manager's names and defaults
// (cmd/kube-controller-manager/app/options/nodelifecyclecontroller.go and
// the NodeLifecycleControllerConfiguration defaults).
const (
	FlagMonitorPeriod          = "node-monitor-period"
	FlagMonitorGracePeriod     = "node-monitor-grace-period"
	FlagStartupGracePeriod     = "node-startup-grace-period"
	FlagEvictionRate           = "node-eviction-rate"
	FlagSecondaryEvictionRate  = "secondary-node-eviction-rate"
	FlagLargeClusterThreshold  = "large-cluster-size-threshold"
	FlagUnhealthyZoneThreshold = "unhealthy-zone-threshold"

	DefaultMonitorPeriod          = 5 * time.Second
	DefaultMonitorGracePeriod     = 50 * time.Second
	DefaultStartupGracePeriod     = time.Minute
	DefaultEvictionRate           = float32(0.1)
	DefaultSecondaryEvictionRate  = float32(0.01)
	DefaultLargeClusterThreshold  = int32(50)
	DefaultUnhealthyZoneThreshold = float32(0.55)
)

// Worker counts, upstream's constants: 8 node workers (NoSchedule
// taints), 4 pod workers (pods assigned to a not-Ready node), and 8 nodes
// checked in parallel in a monitor pass.
const (
	nodeUpdateWorkers = 8
	podUpdateWorkers  = 4
)

// Descriptor registers the controller: on by default, alias
// "nodelifecycle", its seven flags with kube-controller-manager's usage
// texts.
func Descriptor() *ctrl.ControllerDescriptor {
	return &ctrl.ControllerDescriptor{
		Name: Name, Aliases: []string{"nodelifecycle"},
		Flags: []ctrl.ControllerFlag{
			ctrl.DurationFlag(FlagStartupGracePeriod, DefaultStartupGracePeriod,
				"Amount of time which we allow starting Node to be unresponsive before marking it unhealthy."),
			ctrl.DurationFlag(FlagMonitorGracePeriod, DefaultMonitorGracePeriod,
				"Amount of time which we allow running Node to be unresponsive before marking it unhealthy. "+
					"Must be N times more than kubelet's nodeStatusUpdateFrequency, "+
					"where N means number of retries allowed for kubelet to post node status. "+
					"This value should also be greater than the sum of HTTP2_PING_TIMEOUT_SECONDS and HTTP2_READ_IDLE_TIMEOUT_SECONDS"),
			ctrl.Float32Flag(FlagEvictionRate, DefaultEvictionRate, "Number of nodes per second on which pods are deleted in case of node failure when a zone is healthy (see --unhealthy-zone-threshold for definition of healthy/unhealthy). Zone refers to entire cluster in non-multizone clusters."),
			ctrl.Float32Flag(FlagSecondaryEvictionRate, DefaultSecondaryEvictionRate, "Number of nodes per second on which pods are deleted in case of node failure when a zone is unhealthy (see --unhealthy-zone-threshold for definition of healthy/unhealthy). Zone refers to entire cluster in non-multizone clusters. This value is implicitly overridden to 0 if the cluster size is smaller than --large-cluster-size-threshold."),
			ctrl.Int32Flag(FlagLargeClusterThreshold, DefaultLargeClusterThreshold, -1<<31, 1<<31-1, fmt.Sprintf("Number of nodes from which %s treats the cluster as large for the eviction logic purposes. --secondary-node-eviction-rate is implicitly overridden to 0 for clusters this size or smaller. Notice: If nodes reside in multiple zones, this threshold will be considered as zone node size threshold for each zone to determine node eviction rate independently.", Name)),
			ctrl.Float32Flag(FlagUnhealthyZoneThreshold, DefaultUnhealthyZoneThreshold, "Fraction of Nodes in a zone which needs to be not Ready (minimum 3) for zone to be treated as unhealthy. "),
			ctrl.DurationFlag(FlagMonitorPeriod, DefaultMonitorPeriod, "The period for syncing NodeStatus in NodeLifecycleController."),
		},
		Constructor: New,
	}
}

// Config holds the controller's settings (its flags) and its clock,
// logger, recorder and metrics.
type Config struct {
	MonitorPeriod          time.Duration
	MonitorGracePeriod     time.Duration
	StartupGracePeriod     time.Duration
	EvictionRate           float32
	SecondaryEvictionRate  float32
	LargeClusterThreshold  int32
	UnhealthyZoneThreshold float32
	// NoLeaseCircuitBreaker turns off the live re-read of an expired
	// Lease (kube-controller-manager's NodeControllerLeaseCircuitBreaker
	// gate, beta and on by default in 1.37).
	NoLeaseCircuitBreaker bool

	Clock    clock.Clock
	Logger   zerolog.Logger
	Recorder ctrl.EventRecorder
	Metrics  *Metrics
}

// DefaultConfig is kube-controller-manager's defaults.
func DefaultConfig() Config {
	return Config{MonitorPeriod: DefaultMonitorPeriod, MonitorGracePeriod: DefaultMonitorGracePeriod,
		StartupGracePeriod: DefaultStartupGracePeriod, EvictionRate: DefaultEvictionRate,
		SecondaryEvictionRate: DefaultSecondaryEvictionRate, LargeClusterThreshold: DefaultLargeClusterThreshold,
		UnhealthyZoneThreshold: DefaultUnhealthyZoneThreshold}
}

// Controller is the node lifecycle controller: its state (the health
// records, the zones and their tainting queues) and its passes. Run
// drives the passes; tests call them directly.
type Controller struct {
	cfg      Config
	graces   graces
	rates    rates
	clock    clock.Clock
	log      zerolog.Logger
	recorder ctrl.EventRecorder
	metrics  *Metrics

	nodeLister  informer.NodeLister
	leaseLister informer.LeaseLister
	podLister   informer.PodLister
	nodes       *rest.Resources[*api.Node]
	pods        *rest.Resources[*api.Pod]
	leases      *rest.Resources[*api.Lease]
	// consistency holds every node's health update back while the Lease
	// cache is older than a live Lease read (the circuit breaker); nil
	// when off.
	consistency *ctrl.Consistency

	healthMu sync.Mutex
	healths  map[string]*health

	// evictorMu guards zoneStates and tainters (upstream's evictorLock).
	evictorMu  sync.Mutex
	zoneStates map[string]ZoneState
	tainters   map[string]*scheduler.RateLimitedTimedQueue

	retryMu sync.Mutex
	// toRetry are nodes whose pods must be marked NotReady again
	// (nodesToRetry).
	toRetry map[string]bool

	// known is the monitor pass's node set (knownNodeSet); only the
	// monitor goroutine touches it.
	known map[string]*api.Node

	// nodeLoop runs the NoSchedule pass per node, podLoop the pod pass;
	// nil in a controller built without New.
	nodeLoop, podLoop *ctrl.Loop
}

var leasesResource = ctrl.GroupResourceOf(rest.Leases)

// NewController returns the controller on the given listers and client.
func NewController(nodes informer.NodeLister, leases informer.LeaseLister, pods informer.PodLister,
	client *rest.Client, cfg Config) *Controller {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Recorder == nil {
		cfg.Recorder = ctrl.NopRecorder{}
	}
	c := &Controller{
		cfg: cfg, graces: graces{startup: cfg.StartupGracePeriod, monitor: cfg.MonitorGracePeriod},
		rates:      rates{primary: cfg.EvictionRate, secondary: cfg.SecondaryEvictionRate, largeCluster: cfg.LargeClusterThreshold},
		clock:      cfg.Clock,
		log:        cfg.Logger,
		recorder:   cfg.Recorder,
		metrics:    cfg.Metrics,
		nodeLister: nodes, leaseLister: leases, podLister: pods,
		nodes:      rest.NewResources(client, rest.Nodes, decode.Typed[api.Node]()),
		pods:       rest.NewResources(client, rest.Pods, decode.Typed[api.Pod]()),
		leases:     rest.NewResources(client, rest.Leases, decode.Typed[api.Lease]()).InNamespace(NamespaceNodeLease),
		healths:    map[string]*health{},
		zoneStates: map[string]ZoneState{},
		tainters:   map[string]*scheduler.RateLimitedTimedQueue{},
		toRetry:    map[string]bool{},
		known:      map[string]*api.Node{},
	}
	if !cfg.NoLeaseCircuitBreaker {
		c.consistency = ctrl.NewConsistency(map[ctrl.GroupResource]ctrl.ResourceVersionSource{leasesResource: leases}, nil)
	}
	return c
}

// New is the ControllerConstructor: it watches nodes (NoSchedule pass)
// and pods (a pod bound to a node) through the shared factory, reads
// Leases from their shared cache, and gives the controller its flags, own
// client, event broadcaster and metrics.
func New(_ context.Context, cc ctrl.ControllerContext, name string) (ctrl.Controller, error) {
	client := cc.ClientFor(ClientName)
	events := cc.NewBroadcaster(client)
	cfg := Config{
		MonitorPeriod:          cc.DurationFlag(FlagMonitorPeriod, DefaultMonitorPeriod),
		MonitorGracePeriod:     cc.DurationFlag(FlagMonitorGracePeriod, DefaultMonitorGracePeriod),
		StartupGracePeriod:     cc.DurationFlag(FlagStartupGracePeriod, DefaultStartupGracePeriod),
		EvictionRate:           cc.Float32Flag(FlagEvictionRate, DefaultEvictionRate),
		SecondaryEvictionRate:  cc.Float32Flag(FlagSecondaryEvictionRate, DefaultSecondaryEvictionRate),
		LargeClusterThreshold:  cc.Int32Flag(FlagLargeClusterThreshold, DefaultLargeClusterThreshold),
		UnhealthyZoneThreshold: cc.Float32Flag(FlagUnhealthyZoneThreshold, DefaultUnhealthyZoneThreshold),
		Clock:                  cc.Clock, Logger: cc.LoggerFor(name), Recorder: events.NewRecorder(EventSource),
	}
	if reg := cc.Metrics.Registerer(); reg != nil {
		m, err := NewMetrics(reg)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		cfg.Metrics = m
	}
	w := cc.Wire(name, ctrl.LoopOptions{Events: events})
	h := &handlers{nodes: w.Queue()} // h.pods is set below, before the factory starts
	nodes := ctrl.Watch(w, rest.Nodes, processor.HandlerFuncs[*api.Node]{
		AddFunc: h.nodeAdded, UpdateFunc: h.nodeUpdated, DeleteFunc: h.nodeDeleted,
	})
	pods := ctrl.Watch(w, rest.Pods, processor.HandlerFuncs[*api.Pod]{AddFunc: h.podAdded, UpdateFunc: h.podUpdated})
	leases := ctrl.Watch[api.Lease](w, rest.Leases, nil)
	c := NewController(informer.NodeLister{Lister: nodes}, informer.LeaseLister{Lister: leases},
		informer.PodLister{Lister: pods}, client, cfg)
	h.c = c
	loop, err := w.Build(c.noScheduleSync)
	if err != nil {
		return nil, err
	}
	c.nodeLoop = loop.(*ctrl.Loop)
	// The pod loop waits for what the node loop waits for.
	c.podLoop = cc.NewLoop(name+"-pods", c.podSync, ctrl.LoopOptions{Synced: []informer.Synced{c.nodeLoop}})
	h.pods = c.podLoop.Queue()
	return c, nil
}

// Name implements ctrl.Controller.
func (c *Controller) Name() string { return Name }

// Run implements ctrl.Controller: the node workers (8) and pod workers
// (4) run on their loops; once the caches synced, the NoExecute tainting
// pass runs every scheduler.NodeEvictionPeriod and the monitor pass every
// --node-monitor-period, each timed from the end of the previous one
// (wait.UntilWithContext), until ctx ends. workers is not used: upstream's
// counts are fixed.
func (c *Controller) Run(ctx context.Context, _ int) error {
	if c.nodeLoop == nil {
		return errors.New("nodelifecycle: Run needs a controller built by New")
	}
	c.log.Info().Msg("starting node controller")
	defer c.log.Info().Msg("shutting down node controller")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Go(func() { errs[0] = c.nodeLoop.Run(ctx, nodeUpdateWorkers) })
	wg.Go(func() { errs[1] = c.podLoop.Run(ctx, podUpdateWorkers) })
	if informer.WaitForCacheSync(ctx, c.clock, c.nodeLoop)[c.nodeLoop.Name()] {
		wg.Go(func() { c.every(ctx, scheduler.NodeEvictionPeriod, c.noExecuteTaintingPass) })
		wg.Go(func() {
			c.every(ctx, c.cfg.MonitorPeriod, func(ctx context.Context) {
				if err := c.monitorNodeHealth(ctx); err != nil {
					c.log.Error().Err(err).Msg("error monitoring node health")
				}
			})
		})
	}
	wg.Wait()
	if errors.Is(errs[0], ctrl.ErrCacheNotSynced) && ctx.Err() != nil {
		errs[0] = nil
	}
	if errors.Is(errs[1], ctrl.ErrCacheNotSynced) && ctx.Err() != nil {
		errs[1] = nil
	}
	return errors.Join(errs...)
}

// every runs fn now and then period after each run ends, until ctx ends.
func (c *Controller) every(ctx context.Context, period time.Duration, fn func(context.Context)) {
	for ctx.Err() == nil {
		fn(ctx)
		t := c.clock.NewTimer(period)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
	}
}
