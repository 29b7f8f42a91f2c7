package resourcequota

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/resourcequota/quota"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
)

// Name is the controller's canonical name, kube-controller-manager's; its
// client (User-Agent) carries the same name.
const Name = "resourcequota-controller"

// The controller's flags and their defaults, kube-controller-manager's
// (options/resourcequotacontroller.go).
const (
	// ConcurrencyFlag is --concurrent-resource-quota-syncs: the workers of
	// each of the two quota queues.
	ConcurrencyFlag = "concurrent-resource-quota-syncs"
	DefaultWorkers  = 5
	// FlagSyncPeriod is --resource-quota-sync-period: how often every
	// quota is recalculated in full; 0 turns the full resync off.
	FlagSyncPeriod    = "resource-quota-sync-period"
	DefaultSyncPeriod = 5 * time.Minute
)

// DefaultDiscoveryPeriod is how often discovery is read again, so that a
// resource installed later (a CRD) gets a monitor and a count/<r>.<g>
// evaluator (kube-controller-manager runs the controller's Sync every
// 30 s).
const DefaultDiscoveryPeriod = 30 * time.Second

// Queue names, which name the loops and label their workqueue_* series as
// kube-controller-manager's queues do.
const (
	PrimaryQueue         = "resourcequota_primary"
	PriorityQueue        = "resourcequota_priority"
	ResourceChangesQueue = "resource_quota_controller_resource_changes"
)

// ResourceQuotas is the core/v1 resource the controller reads and whose
// status it writes.
var ResourceQuotas = rest.Resource{Version: "v1", Resource: "resourcequotas", Kind: "ResourceQuota", Namespaced: true}

// Descriptor registers the controller: on by default, alias
// "resourcequota", --concurrent-resource-quota-syncs and
// --resource-quota-sync-period.
func Descriptor() *ctrl.ControllerDescriptor {
	return &ctrl.ControllerDescriptor{
		Name: Name, Aliases: []string{"resourcequota"},
		Concurrency: &ctrl.ConcurrencyFlag{
			Name: ConcurrencyFlag, Default: DefaultWorkers,
			Usage: "The number of resource quotas that are allowed to sync concurrently. Larger number = more responsive quota management, but more CPU (and network) load",
		},
		Flags: []ctrl.ControllerFlag{ctrl.DurationFlag(FlagSyncPeriod, DefaultSyncPeriod,
			"The period for syncing quota usage status in the system")},
		Constructor: New,
	}
}

// Options configure a Controller.
type Options struct {
	Clock  clock.Clock
	Logger zerolog.Logger
	// Metrics labels the three loops' workqueue and reconcile series; nil
	// records none.
	Metrics *ctrl.Metrics
	// SyncPeriod is the full recalculation period; 0 turns it off (the
	// flag's 0, as kube-controller-manager reads it). Constructor reads
	// --resource-quota-sync-period when it is 0.
	SyncPeriod time.Duration
	// DiscoveryPeriod is DefaultDiscoveryPeriod unless set (tests shorten
	// it).
	DiscoveryPeriod time.Duration
	// Ignored are the resources never monitored nor counted; nil means
	// DefaultIgnoredResources.
	Ignored map[quota.GroupResource]bool
	// informerClient lists and watches ResourceClaims and DeviceClasses
	// (dra.go) and every metadata monitor, as kube-controller-manager's
	// shared informers do (the manager's own credentials, the shared
	// informers' limits), not through the controller's rate limiter; nil
	// means the controller's client.
	informerClient *rest.Client
	// Shared returns the shared factory's informer of a resource, if it
	// has one (informer.Factory.Existing): that resource's monitor counts
	// in it instead of listing and watching the resource again, as
	// kube-controller-manager's QuotaMonitor takes its informers from the
	// InformerFactory. nil: every monitor lists and watches on its own.
	Shared func(rest.Resource) (informer.Metadata, bool)
}

// Controller is the resource quota controller (Kubernetes'
// resourcequota.Controller with its QuotaMonitor): two loops over quota
// keys, a third over resource changes, the monitors and the discovery
// loop that keeps them current.
type Controller struct {
	quotas informer.Lister[*api.ResourceQuota]
	client *rest.Client
	// discover reads discovery: the client's ServerPreferredResources
	// (tests replace it).
	discover func(context.Context) ([]rest.APIResource, error)
	registry *quota.Registry
	monitors *monitors
	// count counts a group-resource's objects in a namespace: the
	// monitors' count (tests replace it).
	count func(gr quota.GroupResource, namespace string) (int, error)
	// typed are the registrations of the controller's handlers on the
	// shared typed informers (quotas, pods, services, claims); the
	// workers wait for them.
	typed []informer.Synced
	// dra are the typed claim and class caches (dra.go); nil when built
	// without them.
	dra *draCaches
	// draServed is whether the latest discovery listed resourceclaims.
	draServed atomic.Bool

	primary, priority, changes *ctrl.Loop

	// workerLock is held for reading by every quota sync and for writing
	// by a discovery resync while it changes the monitors and waits for
	// them, so that no quota is computed from a half-filled cache
	// (Kubernetes' workerLock).
	workerLock sync.RWMutex

	syncPeriod, discoveryPeriod time.Duration
	ignored                     map[quota.GroupResource]bool
	clock                       clock.Clock
	log                         zerolog.Logger
}

var _ ctrl.Controller = (*Controller)(nil)

// New is the ControllerConstructor: Constructor with the defaults.
func New(ctx context.Context, cc ctrl.ControllerContext, name string) (ctrl.Controller, error) {
	return Constructor(Options{})(ctx, cc, name)
}

// Constructor returns a ControllerConstructor building the controller
// with o, its clock, logger and metrics the context's and its sync period
// --resource-quota-sync-period: the typed shared informers of quotas,
// pods, services and claims from the factory, a client of its own
// ("resourcequota-controller").
func Constructor(o Options) ctrl.ControllerConstructor {
	return func(_ context.Context, cc ctrl.ControllerContext, _ string) (ctrl.Controller, error) {
		o.Clock, o.Logger, o.Metrics = cc.Clock, cc.LoggerFor(Name), cc.Metrics
		if o.SyncPeriod == 0 { // the constructor's caller did not choose: the flag
			o.SyncPeriod = cc.DurationFlag(FlagSyncPeriod, DefaultSyncPeriod)
		}
		o.informerClient = cc.WithRootCredentials().ClientFor(ctrl.SharedInformersName)
		f := cc.InformerFactory
		if o.Shared == nil {
			o.Shared = f.Existing
		}
		return NewController(cc.ClientFor(Name), Informers{
			Quotas:   informer.For[api.ResourceQuota](f, ResourceQuotas),
			Pods:     informer.For[api.Pod](f, rest.Pods),
			Services: informer.For[api.Service](f, rest.Services),
			Claims:   informer.For[api.PersistentVolumeClaim](f, rest.PersistentVolumeClaims),
		}, o)
	}
}

// Informers are the typed informers the controller registers its handlers
// on; their lifetime is their owner's (the shared factory).
type Informers struct {
	Quotas   *informer.Informer[*api.ResourceQuota]
	Pods     *informer.Informer[*api.Pod]
	Services *informer.Informer[*api.Service]
	Claims   *informer.Informer[*api.PersistentVolumeClaim]
}

// NewController builds the controller on client and registers its
// handlers on inf. Nothing runs until Run.
func NewController(client *rest.Client, inf Informers, o Options) (*Controller, error) {
	ic := o.informerClient
	if ic == nil {
		ic = client
	}
	dra, err := newDRACaches(ic, o.Clock, o.Logger)
	if err != nil {
		return nil, err
	}
	c := build(client, listers{
		quotas: inf.Quotas.Lister(), pods: inf.Pods.Lister(), services: inf.Services.Lister(), claims: inf.Claims.Lister(),
		resourceClaims: dra.claimLister(), deviceClasses: dra.classLister(),
	}, o)
	c.dra = dra
	if err := dra.register(c); err != nil {
		c.shutDownQueues()
		return nil, err
	}
	regs, err := c.register(inf)
	if err != nil {
		c.shutDownQueues()
		return nil, err
	}
	c.typed = regs
	return c, nil
}

// listers are the typed caches the controller and its evaluators read.
type listers struct {
	quotas   informer.Lister[*api.ResourceQuota]
	pods     informer.Lister[*api.Pod]
	services informer.Lister[*api.Service]
	claims   informer.Lister[*api.PersistentVolumeClaim]
	// resourceClaims and deviceClasses feed the ResourceClaim evaluator
	// (dra.go); without them it is not installed.
	resourceClaims quota.ResourceClaimLister
	deviceClasses  quota.DeviceClassLister
}

// build makes the controller's state, loops and registry on l, without
// registering any handler (tests build it directly).
func build(client *rest.Client, l listers, o Options) *Controller {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.DiscoveryPeriod <= 0 {
		o.DiscoveryPeriod = DefaultDiscoveryPeriod
	}
	if o.Ignored == nil {
		o.Ignored = DefaultIgnoredResources()
	}
	c := &Controller{
		quotas: l.quotas, client: client,
		syncPeriod: o.SyncPeriod, discoveryPeriod: o.DiscoveryPeriod, ignored: o.Ignored,
		clock: o.Clock, log: o.Logger,
	}
	lo := ctrl.LoopOptions{Clock: o.Clock, Logger: o.Logger, Metrics: o.Metrics}
	c.primary = ctrl.NewLoop(PrimaryQueue, c.syncLocked, lo)
	c.priority = ctrl.NewLoop(PriorityQueue, c.syncLocked, lo)
	c.changes = ctrl.NewLoop(ResourceChangesQueue, c.replenish, lo)
	ic := o.informerClient
	if ic == nil {
		ic = client
	}
	c.monitors = newMonitors(ic, c.resourceChanged, o.Shared, o.Clock, o.Logger)
	c.discover = client.ServerPreferredResources
	c.count = c.monitors.count
	c.registry = quota.NewRegistry(
		func(ns string) ([]*api.Pod, error) { return l.pods.Namespace(ns).List(labels.Everything()), nil },
		func(ns string) ([]*api.Service, error) {
			return l.services.Namespace(ns).List(labels.Everything()), nil
		},
		func(ns string) ([]*api.PersistentVolumeClaim, error) {
			return l.claims.Namespace(ns).List(labels.Everything()), nil
		},
		c.countFunc, o.Clock, draOptions(l)...)
	return c
}

// Name implements ctrl.Controller.
func (c *Controller) Name() string { return Name }

// Run implements ctrl.Controller (Kubernetes' Run, with the QuotaMonitor's
// Run and the Sync loop kube-controller-manager runs beside it): it reads
// discovery and starts the monitors, waits until the quota cache and
// every monitor have synced, then runs workers workers on each quota
// queue and one on the resource changes, enqueues every quota each sync
// period and reads discovery again each discovery period, until ctx ends.
// Then it drains the loops and stops the monitors.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer c.shutDownQueues() // the loops shut them down when they run; this covers a stop before
	if ctx.Err() != nil {
		return nil
	}
	c.log.Info().Msg("starting resource quota controller")
	defer c.log.Info().Msg("shutting down resource quota controller")
	c.monitors.Start(ctx)
	defer c.monitors.StopAll()
	if c.dra != nil {
		defer c.dra.run(ctx, c.log)()
	}

	var wg sync.WaitGroup
	defer wg.Wait()
	errs := make([]error, 3)
	wg.Go(func() { errs[2] = c.changes.Run(ctx, 1) })

	wg.Go(func() { c.discoveryLoop(ctx) })
	informer.WaitForCacheSync(ctx, c.clock, append([]informer.Synced{syncedFunc{"resourcequota-monitors", c.monitors.Synced},
		syncedFunc{"resourcequota-resourceclaims", c.draSynced}}, c.typed...)...)
	if ctx.Err() != nil {
		wg.Wait()
		return errors.Join(errs...)
	}
	wg.Go(func() { errs[0] = c.primary.Run(ctx, workers) })
	wg.Go(func() { errs[1] = c.priority.Run(ctx, workers) })
	if c.syncPeriod > 0 {
		wg.Go(func() { c.resyncLoop(ctx) })
	} else {
		c.log.Info().Msg("periodic quota controller resync disabled")
	}
	wg.Wait()
	return errors.Join(errs...)
}

// draSynced reports whether the workers may start as far as the typed
// claim and class caches go: they have synced, or the first discovery
// found no resource.k8s.io resourceclaims to wait for (a cluster without
// DRA). As kube-controller-manager's quota monitor waits for its claims
// informer, the first calculations then never race the claims' initial
// list (a sync that fails with ErrNotSynced is retried later, and could
// overwrite with a count from a cache still behind a claim that quota
// admission has just charged).
func (c *Controller) draSynced() bool {
	if c.dra == nil || c.dra.synced() {
		return true
	}
	return c.monitors.Synced() && !c.draServed.Load()
}

// resyncLoop enqueues every quota now and each sync period until ctx
// ends (Kubernetes' enqueueAll under wait.Until, which calls it at once).
func (c *Controller) resyncLoop(ctx context.Context) {
	c.enqueueAll()
	t := c.clock.NewTicker(c.syncPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			c.enqueueAll()
		}
	}
}

// enqueueAll puts every cached quota on the primary queue: a full
// recalculation.
func (c *Controller) enqueueAll() {
	all := c.quotas.List(labels.Everything())
	for _, rq := range all {
		c.primary.Queue().Add(rq.Key())
	}
	c.log.Debug().Int("quotas", len(all)).Msg("queued every resource quota for a full calculation of usage")
}

func (c *Controller) shutDownQueues() {
	c.primary.Queue().ShutDown()
	c.priority.Queue().ShutDown()
	c.changes.Queue().ShutDown()
}

// syncedFunc adapts a function to informer.Synced.
type syncedFunc struct {
	name string
	f    func() bool
}

func (s syncedFunc) HasSynced() bool { return s.f() }
func (s syncedFunc) Name() string    { return s.name }

// statusClient is the quota client UpdateStatus goes through.
func (c *Controller) statusClient(ns string) *rest.Resources[*api.ResourceQuota] {
	return rest.NewResources(c.client, ResourceQuotas, decode.Typed[api.ResourceQuota]()).InNamespace(ns)
}
