package namespace

import (
	"context"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/queue"
)

// Name is the controller's canonical name, kube-controller-manager's.
const Name = "namespace-controller"

// DefaultWorkers is --concurrent-namespace-syncs' default.
const DefaultWorkers = 10

// SyncPeriodFlag and DefaultSyncPeriod are --namespace-sync-period: how
// often every namespace is handed to the controller again although nothing
// changed (the resync of its informer handler), so that a terminating
// namespace whose content was deleted behind the controller's back is
// finished.
const (
	SyncPeriodFlag    = "namespace-sync-period"
	DefaultSyncPeriod = 5 * time.Minute
)

// DeletionGracePeriod is how long after a namespace is seen deleted (or
// changed while deleted) the controller first acts on it (Kubernetes'
// namespaceDeletionGracePeriod): time for every kube-apiserver of an HA
// control plane to see the deletion and refuse new objects in the
// namespace, and for etcd members to see last-moment creations, so that
// one pass finds everything to delete.
const DeletionGracePeriod = 5 * time.Second

// The client's limits are kube-controller-manager's for this controller:
// --kube-api-qps and --kube-api-burst times these. A deletion is a burst
// of discovery, list and delete requests for every resource type.
const (
	qpsFactor   = 20
	burstFactor = 100
)

// Descriptor registers the controller: on by default, alias "namespace",
// workers from --concurrent-namespace-syncs, resync from
// --namespace-sync-period.
func Descriptor() *ctrl.ControllerDescriptor {
	return &ctrl.ControllerDescriptor{
		Name: Name, Aliases: []string{"namespace"},
		Concurrency: &ctrl.ConcurrencyFlag{
			Name: "concurrent-namespace-syncs", Default: DefaultWorkers,
			Usage: "The number of namespace objects that are allowed to sync concurrently. " +
				"Larger number = more responsive namespace termination, but more CPU (and network) load",
		},
		Flags: []ctrl.ControllerFlag{ctrl.DurationFlag(SyncPeriodFlag, DefaultSyncPeriod,
			"The period for syncing namespace life-cycle updates")},
		Constructor: New,
	}
}

// DiscoverFunc returns the resources the server serves; a partial result
// comes with an error wrapping rest.ErrGroupDiscovery
// (rest.Client.ServerPreferredResources is one).
type DiscoverFunc func(ctx context.Context) ([]rest.APIResource, error)

// Config holds what a Controller needs besides its lister and client.
type Config struct {
	// Discover lists the resource types; nil means the client's
	// ServerPreferredResources.
	Discover DiscoverFunc
	// Clock tells how long ago a namespace was deleted and stamps the
	// conditions; nil means real.
	Clock clock.Clock
	// Logger gets the controller's debug lines and failed status writes.
	Logger zerolog.Logger
}

// Controller holds what a sync reads and writes. It has no goroutines of
// its own: a ctrl.Loop runs Sync.
type Controller struct {
	namespaces informer.Lister[*api.Namespace]
	nsClient   *rest.Resources[*api.Namespace]
	pods       *rest.Resources[*api.Pod]
	client     *rest.Client
	discover   DiscoverFunc
	clock      clock.Clock
	log        zerolog.Logger
}

// NewController returns the controller on the given lister and client
// (tests build it directly; New wires it to the informer).
func NewController(namespaces informer.Lister[*api.Namespace], client *rest.Client, cfg Config) *Controller {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Discover == nil {
		cfg.Discover = client.ServerPreferredResources
	}
	return &Controller{
		namespaces: namespaces,
		nsClient:   rest.NewResources(client, rest.Namespaces, decode.Typed[api.Namespace]()),
		pods:       rest.NewResources(client, rest.Pods, decode.Typed[api.Pod]()),
		client:     client,
		discover:   cfg.Discover,
		clock:      cfg.Clock,
		log:        cfg.Logger,
	}
}

// RateLimiter is the controller's retry pacing, Kubernetes'
// nsControllerRateLimiter: per-namespace exponential backoff from 5 ms
// capped at 60 s (a failing deletion is retried at least every minute),
// and the usual overall 10 per second with a burst of 100.
func RateLimiter(clk clock.Clock) queue.RateLimiter[string] {
	return queue.NewMaxOf(
		queue.NewItemExponential[string](5*time.Millisecond, 60*time.Second),
		queue.NewBucket[string](clk, 10, 100),
	)
}

// New is the ControllerConstructor: it watches namespaces through the
// shared factory with --namespace-sync-period as the handler's resync
// period, and gives the controller its own client with the namespace
// controller's larger limits.
func New(_ context.Context, cc ctrl.ControllerContext, name string) (ctrl.Controller, error) {
	w := cc.Wire(name, ctrl.LoopOptions{RateLimiter: RateLimiter(cc.Clock)})
	h := handlers{q: w.Queue()}
	namespaces := ctrl.WatchWithResync(w, rest.Namespaces, processor.HandlerFuncs[*api.Namespace]{
		AddFunc:    func(ns *api.Namespace, _ bool) { h.enqueue(ns) },
		UpdateFunc: func(_, ns *api.Namespace) { h.enqueue(ns) },
	}, handlerOptions(cc, name).ResyncPeriod)
	c := NewController(namespaces, cc.ClientScaledFor(name, qpsFactor, burstFactor),
		Config{Clock: cc.Clock, Logger: cc.LoggerFor(name)})
	return w.Build(c.Sync)
}

// handlerOptions registers the handler under the controller's name with
// --namespace-sync-period as its resync period.
func handlerOptions(cc ctrl.ControllerContext, name string) processor.HandlerOptions {
	return processor.HandlerOptions{Name: name, ResyncPeriod: cc.DurationFlag(SyncPeriodFlag, DefaultSyncPeriod)}
}

// handlers turn informer notifications into namespace keys.
type handlers struct{ q *queue.Queue[string] }

// enqueue queues a namespace being deleted, DeletionGracePeriod from now;
// namespaces not being deleted are none of the controller's business.
func (h handlers) enqueue(ns *api.Namespace) {
	if ns.DeletionTimestamp == nil || ns.DeletionTimestamp.IsZero() {
		return
	}
	h.q.AddAfter(ns.Name, DeletionGracePeriod)
}

// Sync runs one deletion pass over the namespace named key (Kubernetes'
// syncNamespaceFromKey). Content still terminating is not an error: the
// namespace is synced again after half the estimate plus a second, as
// Kubernetes does.
func (c *Controller) Sync(ctx context.Context, key string) (ctrl.Result, error) {
	ns, err := c.namespaces.Get(key)
	if rest.IsNotFound(err) {
		c.log.Info().Str("namespace", key).Msg("namespace has been deleted")
		return ctrl.Result{}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	estimate, err := c.deleteNamespace(ctx, ns.Name)
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("deletion of namespace %s failed: %w", key, err)
	}
	if estimate > 0 {
		wait := RequeueDelay(estimate)
		c.log.Debug().Str("namespace", key).Dur("wait", wait).Msg("content remaining in namespace")
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	return ctrl.Result{}, nil
}

// RequeueDelay is when a namespace whose content needs estimate more
// seconds is synced again: half the estimate (rounded down) plus one
// second.
func RequeueDelay(estimate int64) time.Duration {
	return time.Duration(estimate/2+1) * time.Second
}
