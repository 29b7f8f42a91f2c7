package endpointslicemirroring

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/internal/endpointlabels"
	"github.com/kcmlab/kcm/ctrl/internal/slicetrack"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/queue"
)

// Name is the controller's canonical name, kube-controller-manager's.
const Name = "endpointslice-mirroring-controller"

// ClientName names the controller's client as kube-controller-manager
// does, and so its ServiceAccount under --use-service-account-credentials:
// kube-system/endpointslicemirroring-controller, bound to the bootstrap ClusterRole
// system:controller:endpointslicemirroring-controller.
const ClientName = "endpointslicemirroring-controller"

// ControllerName is the value of the managed-by label on the slices this
// controller writes (upstream's ControllerName).
const ControllerName = "endpointslicemirroring-controller.k8s.io"

// Component is the source of the controller's Events.
const Component = "endpoint-slice-mirroring-controller"

// Labels the controller reads and writes.
const (
	// LabelManagedBy names the controller that manages a slice.
	LabelManagedBy = endpointlabels.LabelManagedBy
	// LabelServiceName names the Service (here: the Endpoints) a slice
	// belongs to.
	LabelServiceName = endpointlabels.LabelServiceName
	// LabelSkipMirror set to "true" on an Endpoints keeps it from being
	// mirrored.
	LabelSkipMirror = "endpointslice.kubernetes.io/skip-mirror"
)

// The controller's flags, with kube-controller-manager's names, defaults
// and ranges.
const (
	ConcurrencyFlagName  = "mirroring-concurrent-service-endpoint-syncs"
	DefaultConcurrency   = 5
	MaxPerSubsetFlag     = "mirroring-max-endpoints-per-subset"
	DefaultMaxPerSubset  = 1000
	MinMaxPerSubset      = 1
	MaxMaxPerSubset      = 1000
	BatchPeriodFlag      = "mirroring-endpointslice-updates-batch-period"
	MaxRetries           = 15 // upstream's maxRetries
	defaultSyncBackOff   = time.Second
	maxSyncBackOff       = 100 * time.Second
	retryQPS, retryBurst = 10, 100
)

// ErrStaleSlices: the EndpointSlice cache is older than the controller's
// own last writes for this Endpoints; the sync is retried once the cache
// has caught up (upstream's StaleInformerCache error).
var ErrStaleSlices = slicetrack.ErrStaleInformerCache

// Descriptor registers the controller: on by default, with the alias
// "endpointslicemirroring" and kube-controller-manager's three flags (the
// help texts are upstream's, "Defaults to 100" included, although the
// default is 1000).
func Descriptor() *ctrl.ControllerDescriptor {
	return &ctrl.ControllerDescriptor{
		Name: Name, Aliases: []string{"endpointslicemirroring"},
		Concurrency: &ctrl.ConcurrencyFlag{Name: ConcurrencyFlagName, Default: DefaultConcurrency, Min: 1, Max: 50,
			Usage: "The number of service endpoint syncing operations that will be done concurrently by the " + Name + ". Larger number = faster endpoint slice updating, but more CPU (and network) load. Defaults to 5."},
		Flags: []ctrl.ControllerFlag{
			ctrl.Int32Flag(MaxPerSubsetFlag, DefaultMaxPerSubset, MinMaxPerSubset, MaxMaxPerSubset,
				"The maximum number of endpoints that will be added to an EndpointSlice by the "+Name+". More endpoints per slice will result in less endpoint slices, but larger resources. Defaults to 100."),
			ctrl.DurationFlag(BatchPeriodFlag, 0,
				"The length of EndpointSlice updates batching period for "+Name+". Processing of EndpointSlice changes will be delayed by this duration to join them with potential upcoming updates and reduce the overall number of EndpointSlice updates. Larger number = higher endpoint programming latency, but lower number of endpoints revision generated"),
		},
		Constructor: New,
	}
}

// Tracker records the generations of the slices this controller wrote
// and deleted, so that its handlers ignore the echoes of its own writes
// and Sync refuses a stale cache (k8s.io/endpointslice/util's
// EndpointSliceTracker, ctrl/internal/slicetrack; the EndpointSlice
// controller keeps one of its own).
type Tracker = slicetrack.Tracker

// NewTracker returns an empty Tracker.
func NewTracker() *Tracker { return slicetrack.New() }

// Controller holds what Sync reads and writes; it has no goroutines (the
// ctrl.Loop runs it).
type Controller struct {
	endpoints    informer.EndpointsLister
	slices       informer.EndpointSliceLister
	services     informer.ServiceLister
	client       *rest.Resources[*api.EndpointSlice]
	tracker      *Tracker
	maxPerSubset int32
	recorder     ctrl.EventRecorder
	metrics      *Metrics
	metricsCache *metricsCache
	clock        clock.Clock
	log          zerolog.Logger
}

// Config holds the controller's optional parts.
type Config struct {
	// MaxEndpointsPerSubset caps the addresses mirrored per subset and
	// the endpoints per slice; 0 means DefaultMaxPerSubset.
	MaxEndpointsPerSubset int32
	// Tracker records the generations of the slices written; nil: a new
	// one. The handlers share it with Sync.
	Tracker *Tracker
	// Recorder records the Warning Events; nil records none.
	Recorder ctrl.EventRecorder
	// Metrics records the endpoint_slice_mirroring_controller_* series;
	// nil records none.
	Metrics *Metrics
	// Clock times the syncs; nil means clock.Real.
	Clock  clock.Clock
	Logger zerolog.Logger
}

// NewController returns the controller's state on the given listers and
// client (tests build it directly).
func NewController(endpoints informer.EndpointsLister, slices informer.EndpointSliceLister, services informer.ServiceLister,
	client *rest.Client, cfg Config) *Controller {
	if cfg.MaxEndpointsPerSubset <= 0 {
		cfg.MaxEndpointsPerSubset = DefaultMaxPerSubset
	}
	if cfg.Tracker == nil {
		cfg.Tracker = NewTracker()
	}
	if cfg.Recorder == nil {
		cfg.Recorder = ctrl.NopRecorder{}
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	return &Controller{endpoints: endpoints, slices: slices, services: services,
		client:  rest.NewResources(client, rest.EndpointSlices, decode.Typed[api.EndpointSlice]()),
		tracker: cfg.Tracker, maxPerSubset: cfg.MaxEndpointsPerSubset, recorder: cfg.Recorder,
		metrics: cfg.Metrics, metricsCache: newMetricsCache(cfg.Metrics, cfg.MaxEndpointsPerSubset),
		clock: cfg.Clock, log: cfg.Logger}
}

// RateLimiter is the controller's retry pacing, upstream's: per-key
// exponential backoff from 1 s (not 5 ms: a sync may rewrite many slices)
// up to 100 s, and 10 retries per second overall with a burst of 100.
func RateLimiter(clk clock.Clock) queue.RateLimiter[string] {
	return queue.NewMaxOf(
		queue.NewItemExponential[string](defaultSyncBackOff, maxSyncBackOff),
		queue.NewBucket[string](clk, retryQPS, retryBurst),
	)
}

// New is the ControllerConstructor: it watches Endpoints, EndpointSlices
// and Services through the shared factory with the handlers that feed the
// loop, registers the metrics on the manager's registry, and gives the
// controller its own client and event broadcaster.
func New(_ context.Context, cc ctrl.ControllerContext, name string) (ctrl.Controller, error) {
	var m *Metrics
	if reg := cc.Metrics.Registerer(); reg != nil {
		var err error
		if m, err = NewMetrics(reg); err != nil {
			return nil, err
		}
	}
	client := cc.ClientFor(ClientName)
	events := cc.NewBroadcaster(client)
	w := cc.Wire(name, ctrl.LoopOptions{Events: events, MaxRetries: MaxRetries, RateLimiter: RateLimiter(cc.Clock)})
	tracker := NewTracker()
	h := &handlers{q: w.Queue(), tracker: tracker, batch: cc.DurationFlag(BatchPeriodFlag, 0), log: cc.LoggerFor(name)}
	endpoints := ctrl.Watch(w, rest.Endpoints, processor.HandlerFuncs[*api.Endpoints]{
		AddFunc: h.endpointsAdded, UpdateFunc: h.endpointsUpdated, DeleteFunc: h.endpointsDeleted,
	})
	epSlices := ctrl.Watch(w, rest.EndpointSlices, processor.HandlerFuncs[*api.EndpointSlice]{
		AddFunc: h.sliceAdded, UpdateFunc: h.sliceUpdated, DeleteFunc: h.sliceDeleted,
	})
	services := ctrl.Watch(w, rest.Services, processor.HandlerFuncs[*api.Service]{
		AddFunc: h.serviceAdded, UpdateFunc: h.serviceUpdated, DeleteFunc: h.serviceDeleted,
	})
	c := NewController(informer.EndpointsLister{Lister: endpoints}, informer.EndpointSliceLister{Lister: epSlices},
		informer.ServiceLister{Lister: services}, client, Config{
			MaxEndpointsPerSubset: cc.Int32Flag(MaxPerSubsetFlag, DefaultMaxPerSubset),
			Tracker:               tracker, Recorder: events.NewRecorder(Component), Metrics: m,
			Clock: cc.Clock, Logger: cc.LoggerFor(name),
		})
	return w.Build(c.Sync)
}

// Sync mirrors the Endpoints named key ("namespace/name") into
// EndpointSlices (upstream's syncEndpoints):
//
//  1. the Endpoints is gone, must not be mirrored (skip-mirror label,
//     leader-election record), its Service is gone or has a selector:
//     its mirrored slices are deleted;
//  2. the cached mirrored slices are older than this controller's own
//     writes: ErrStaleSlices, retried;
//  3. otherwise the slices are reconciled with the subsets (reconcile).
func (c *Controller) Sync(ctx context.Context, key string) (ctrl.Result, error) {
	start := c.clock.Now()
	defer func() { c.metrics.observeSync(c.clock.Since(start)) }()
	ns, name, ok := strings.Cut(key, "/")
	if !ok {
		c.log.Error().Str("key", key).Msg("Endpoints key is not namespace/name; dropping it")
		return ctrl.Result{}, nil
	}
	eps, err := c.endpoints.Endpoints(ns).Get(name)
	switch {
	case rest.IsNotFound(err):
		return ctrl.Result{}, c.deleteMirrored(ctx, ns, name)
	case err != nil:
		return ctrl.Result{}, err
	case !shouldMirror(eps):
		return ctrl.Result{}, c.deleteMirrored(ctx, ns, name)
	}
	svc, err := c.services.Services(ns).Get(name)
	switch {
	case rest.IsNotFound(err):
		return ctrl.Result{}, c.deleteMirrored(ctx, ns, name)
	case err != nil:
		return ctrl.Result{}, err
	case svc.Spec.Selector != nil:
		// The endpoints controller owns this Service's Endpoints, and the
		// EndpointSlice controller its slices.
		return ctrl.Result{}, c.deleteMirrored(ctx, ns, name)
	}
	existing := c.mirrored(ns, name)
	if c.tracker.StaleSlices(svc, existing) {
		return ctrl.Result{}, fmt.Errorf("%w: EndpointSlices of Endpoints %s", ErrStaleSlices, key)
	}
	return ctrl.Result{}, c.reconcile(ctx, eps, existing)
}

// deleteMirrored deletes every slice mirrored for namespace/name and
// forgets its tracked generations (deleteMirroredSlices).
func (c *Controller) deleteMirrored(ctx context.Context, ns, name string) error {
	c.tracker.DeleteService(ns, name)
	return c.deleteSlices(ctx, ns, name, c.mirrored(ns, name))
}

// mirrored returns the cached slices this controller wrote for the
// Endpoints ns/name (endpointSlicesMirroredForService), by name: the
// first of a group is the one kept.
func (c *Controller) mirrored(ns, name string) []*api.EndpointSlice {
	ss := c.slices.EndpointSlices(ns).List(labels.SelectorFromSet(map[string]string{
		LabelServiceName: name, LabelManagedBy: ControllerName,
	}))
	slices.SortFunc(ss, func(a, b *api.EndpointSlice) int { return strings.Compare(a.Name, b.Name) })
	return ss
}

// shouldMirror reports whether an Endpoints may be mirrored at all: not
// when it is labelled endpointslice.kubernetes.io/skip-mirror=true, nor
// when it is a leader-election record. Whether its Service exists and has
// no selector is checked by Sync.
func shouldMirror(e *api.Endpoints) bool {
	if e == nil || e.Labels[LabelSkipMirror] == "true" {
		return false
	}
	_, leader := e.Annotations[endpointlabels.AnnotationLeader]
	return !leader
}

// managedByController reports whether this controller manages s.
func managedByController(s *api.EndpointSlice) bool {
	return s.Labels[LabelManagedBy] == ControllerName
}
