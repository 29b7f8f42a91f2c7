package replicaset

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/controllerref"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/store"
)

// Name is the controller's canonical name, kube-controller-manager's; it
// is also the source component of its events.
const Name = "replicaset-controller"

// DefaultWorkers is --concurrent-replicaset-syncs' default.
const DefaultWorkers = 5

// Descriptor registers the controller: on by default, alias "replicaset",
// workers from --concurrent-replicaset-syncs.
func Descriptor() *ctrl.ControllerDescriptor {
	return &ctrl.ControllerDescriptor{
		Name: Name, Aliases: []string{"replicaset"},
		Concurrency: &ctrl.ConcurrencyFlag{
			Name: "concurrent-replicaset-syncs", Default: DefaultWorkers,
			Usage: "The number of replica sets that are allowed to sync concurrently. " +
				"Larger number = more responsive replica management, but more CPU (and network) load",
		},
		Constructor: New,
	}
}

// Config holds what a Controller needs besides its listers and client.
type Config struct {
	// Clock tells availability and expectation ages; nil means real.
	Clock clock.Clock
	// Logger gets the controller's debug lines and its warnings.
	Logger zerolog.Logger
	// Recorder records SuccessfulCreate, FailedCreate, SuccessfulDelete
	// and FailedDelete events; nil records none.
	Recorder ctrl.EventRecorder
	// BurstReplicas bounds the pods created or deleted per sync; 0 means
	// BurstReplicas.
	BurstReplicas int
	// StaleSkips counts the syncs skipped because a cache was older than
	// the controller's own last write
	// (replicaset_controller_stale_sync_skips_total); nil counts none.
	StaleSkips *ctrl.StaleSkips
	// NoStaleCheck turns that check off (kube-controller-manager's
	// StaleControllerConsistencyReplicaSet gate, beta and on by default
	// since 1.36).
	NoStaleCheck bool
}

// The resources whose caches the stale-controller check compares with the
// controller's writes.
var (
	podsResource        = ctrl.GroupResourceOf(rest.Pods)
	replicaSetsResource = ctrl.GroupResourceOf(rest.ReplicaSets)
)

// Controller holds what a sync reads and writes. It has no goroutines of
// its own (a ctrl.Loop runs Sync; deletions and batch creations fan out
// within a sync).
type Controller struct {
	rsLister     informer.ReplicaSetLister
	podLister    informer.PodLister
	owners       ctrl.Owners[*api.ReplicaSet]
	rsClient     *rest.Resources[*api.ReplicaSet]
	podClient    *rest.Resources[*api.RawObject]
	expectations *ctrl.UIDTrackingControllerExpectations
	// consistency holds a ReplicaSet's sync back while a cache is older
	// than the controller's own last write for it; nil when off.
	consistency *ctrl.Consistency
	recorder    ctrl.EventRecorder
	clock       clock.Clock
	log         zerolog.Logger
	// burstReplicas bounds the writes of one sync.
	burstReplicas int
}

// NewController returns the controller on the given listers and client
// (tests build it directly; New wires it to the informers).
func NewController(rss informer.ReplicaSetLister, pods informer.PodLister, client *rest.Client, cfg Config) *Controller {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Recorder == nil {
		cfg.Recorder = ctrl.NopRecorder{}
	}
	if cfg.BurstReplicas <= 0 {
		cfg.BurstReplicas = BurstReplicas
	}
	var consistency *ctrl.Consistency
	if !cfg.NoStaleCheck {
		consistency = ctrl.NewConsistency(map[ctrl.GroupResource]ctrl.ResourceVersionSource{
			podsResource: pods, replicaSetsResource: rss,
		}, cfg.StaleSkips)
	}
	return &Controller{
		rsLister: rss, podLister: pods, owners: ctrl.OwnersOf(rest.ReplicaSets, rss.Lister),
		rsClient: rest.NewResources(client, rest.ReplicaSets, decode.Typed[api.ReplicaSet]()),
		// Creates, patches and deletes: of an answer only the metadata is
		// read (decode.Wire: protobuf where the answer is).
		podClient:     rest.NewResources(client, rest.Pods, decode.Wire()),
		expectations:  ctrl.NewUIDTrackingControllerExpectations(ctrl.NewControllerExpectations(cfg.Clock, cfg.Logger)),
		consistency:   consistency,
		recorder:      cfg.Recorder,
		clock:         cfg.Clock,
		log:           cfg.Logger,
		burstReplicas: cfg.BurstReplicas,
	}
}

// New is the ControllerConstructor: it watches ReplicaSets and pods
// through the shared factory with the handlers that feed the loop, and
// gives the controller its own client and event broadcaster.
func New(_ context.Context, cc ctrl.ControllerContext, name string) (ctrl.Controller, error) {
	client := cc.ClientFor(name)
	events := cc.NewBroadcaster(client)
	w := cc.Wire(name, ctrl.LoopOptions{Events: events})
	h := &handlers{q: w.Queue()} // h.c is set below, before Build registers h
	rss := ctrl.Watch(w, rest.ReplicaSets, processor.HandlerFuncs[*api.ReplicaSet]{
		AddFunc: h.addRS, UpdateFunc: h.updateRS, DeleteFunc: h.deleteRS,
	})
	pods := ctrl.Watch(w, rest.Pods, processor.HandlerFuncs[*api.Pod]{
		AddFunc: h.addPod, UpdateFunc: h.updatePod, DeleteFunc: h.deletePod,
	})
	skips, err := cc.Metrics.StaleSyncSkips("replicaset_controller", "ReplicaSet")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	h.c = NewController(informer.ReplicaSetLister{Lister: rss}, informer.PodLister{Lister: pods},
		client, Config{Clock: cc.Clock, Logger: cc.LoggerFor(name), Recorder: events.NewRecorder(Name), StaleSkips: skips})
	return w.Build(h.c.Sync)
}

// Sync reconciles the ReplicaSet named key, "namespace/name" (Kubernetes'
// syncReplicaSet):
//
//  0. a cache (pods or ReplicaSets) older than the controller's own last
//     write for this ReplicaSet: skip, and sync again after the rate
//     limiter's backoff (the stale-controller check, KEP-5647);
//  1. gone from the cache: forget its expectations, done;
//  2. claim the active pods of its namespace (adopt matching orphans,
//     release owned pods that stopped matching);
//  3. if its expectations are satisfied and it is not being deleted,
//     create or delete pods towards spec.replicas;
//  4. write the status when it changed;
//  5. ask to be synced again when a Ready pod will become available.
//
// The error of step 3 is returned after the status is written, so that
// the loop retries with backoff while the ReplicaFailure condition tells
// users why.
func (c *Controller) Sync(ctx context.Context, key string) (ctrl.Result, error) {
	ns, name, ok := strings.Cut(key, "/")
	if !ok {
		c.log.Error().Str("key", key).Msg("ReplicaSet key is not namespace/name; dropping it")
		return ctrl.Result{}, nil
	}
	if err := c.consistency.EnsureReady(key); err != nil {
		// Not a failure: the cache will catch up, and the write's own
		// event usually syncs the key again before the backoff ends.
		c.log.Debug().Err(err).Str("replicaset", key).Msg("cache older than this controller's last write; requeueing")
		return ctrl.Result{Requeue: true}, nil
	}
	rs, err := c.rsLister.ReplicaSets(ns).Get(name)
	if rest.IsNotFound(err) {
		c.consistency.Clear(key, "")
		c.expectations.DeleteExpectations(key)
		return ctrl.Result{}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	needsSync := c.expectations.SatisfiedExpectations(key)
	selector, err := podSelector(rs)
	if err != nil {
		// Retrying cannot help until the object changes, which enqueues
		// it again.
		c.log.Error().Err(err).Str("replicaset", key).Msg("invalid selector; not syncing")
		return ctrl.Result{}, nil
	}
	// Every pod of the namespace: owned pods whose labels no longer match
	// must be seen to be released.
	var active []*api.Pod
	var terminating int32
	for _, p := range c.podLister.Pods(ns).List(labels.Everything()) {
		switch {
		case api.IsPodActive(p):
			active = append(active, p)
		case api.IsPodTerminating(p) && p.IsControlledBy(rs.UID) && selector.Matches(p.Labels):
			// Kubernetes' FilterTerminatingPods and FilterClaimedPods:
			// counted, never adopted.
			terminating++
		}
	}
	active, err = c.claimPods(ctx, rs, selector, active)
	if err != nil {
		return ctrl.Result{}, err
	}
	var manageErr error
	if needsSync && rs.DeletionTimestamp == nil {
		manageErr = c.manageReplicas(ctx, key, active, rs)
	}
	now := c.clock.Now()
	updated, err := c.updateStatus(ctx, rs, calculateStatus(rs, active, terminating, manageErr, now))
	if err != nil {
		return ctrl.Result{}, errors.Join(manageErr, err)
	}
	if updated != rs { // written
		c.consistency.WroteAt(key, rs.UID, replicaSetsResource, updated.ResourceVersion)
	}
	if manageErr != nil {
		return ctrl.Result{}, manageErr
	}
	return ctrl.Result{RequeueAfter: availableAfter(rs, active, now)}, nil
}

// ErrInvalidSelector: the ReplicaSet's selector cannot be compiled, or is
// missing.
var ErrInvalidSelector = errors.New("invalid ReplicaSet selector")

// podSelector compiles rs's selector. A missing selector (the apiserver
// never stores one) is refused rather than read as "nothing": a
// ReplicaSet that can claim no pod would create pods forever.
func podSelector(rs *api.ReplicaSet) (labels.Selector, error) {
	if rs.Spec.Selector == nil {
		return labels.Selector{}, fmt.Errorf("%w: %s has none", ErrInvalidSelector, rs.Key())
	}
	sel, err := labels.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		return labels.Selector{}, fmt.Errorf("%w: %s: %w", ErrInvalidSelector, rs.Key(), err)
	}
	return sel, nil
}

// claimPods returns the pods of pods that rs controls, adopting matching
// orphans and releasing its pods that no longer match (controllerref).
// Before the first adoption rs is read fresh from the apiserver: a
// ReplicaSet deleted since the cache saw it must not adopt.
func (c *Controller) claimPods(ctx context.Context, rs *api.ReplicaSet, sel labels.Selector, pods []*api.Pod) ([]*api.Pod, error) {
	recheck := controllerref.RecheckDeletionTimestamp(rs.UID, func(ctx context.Context) (*api.ObjectMeta, error) {
		fresh, err := c.rsClient.InNamespace(rs.Namespace).Get(ctx, rs.Name)
		if err != nil {
			return nil, err
		}
		return &fresh.ObjectMeta, nil
	})
	m := controllerref.NewManager[*api.Pod](controllerref.OwnerOf(rs, "apps/v1", "ReplicaSet"), sel,
		c.podPatcher(rs.Namespace), recheck)
	return m.Claim(ctx, pods)
}

// podPatcher patches pods of namespace ns (adoption, release) and records
// each patched pod's resourceVersion for the ReplicaSet that controls it
// afterwards, if any (Kubernetes' RealPodControl.PatchPod with its OnWrite
// callback): an adopted pod is a write of its new owner's; a released one
// is nobody's.
func (c *Controller) podPatcher(ns string) controllerref.Patcher {
	pods := c.podClient.InNamespace(ns)
	return func(ctx context.Context, name string, patch []byte) error {
		pod, err := pods.Patch(ctx, name, rest.StrategicMergePatch, patch, rest.PatchOptions{})
		if err != nil {
			return err
		}
		if ref := pod.ControllerRef(); ref != nil {
			c.consistency.WroteAt(store.MetaNamespaceKey(ns, ref.Name), ref.UID, podsResource, pod.ResourceVersion)
		}
		return nil
	}
}

// ref is the involvedObject of rs's events.
func (c *Controller) ref(rs *api.ReplicaSet) api.ObjectReference {
	return ctrl.Ref(rest.ReplicaSets, rs)
}
