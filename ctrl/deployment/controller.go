package deployment

import (
	"context"
	"errors"
	"fmt"
	"time"

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
)

// Name is the controller's canonical name, kube-controller-manager's.
const Name = "deployment-controller"

// Component is the source of the controller's Events.
const Component = "deployment-controller"

// MaxRetries is how many rate-limited retries a failing Deployment gets
// before it is dropped until its next event (kube-controller-manager's
// maxRetries: with 5 ms doubling, the last retry comes after ~82 s).
const MaxRetries = 15

// Errors of a sync.
var (
	// ErrUnknownStrategy: spec.strategy.type is neither Recreate nor
	// RollingUpdate (the apiserver's validation prevents it).
	ErrUnknownStrategy = errors.New("deployment: unexpected strategy type")
	// ErrDeploymentGone: the Deployment, read fresh before adopting
	// ReplicaSets, no longer exists.
	ErrDeploymentGone = errors.New("deployment: gone before adoption")
	// ErrInvalidSelector: spec.selector does not compile.
	ErrInvalidSelector = errors.New("deployment: invalid label selector")
)

// Descriptor registers the controller: on by default, workers from
// --concurrent-deployment-syncs (5), as in kube-controller-manager.
func Descriptor() *ctrl.ControllerDescriptor {
	return &ctrl.ControllerDescriptor{
		Name: Name, Aliases: []string{"deployment"},
		Concurrency: &ctrl.ConcurrencyFlag{Name: "concurrent-deployment-syncs", Default: 5,
			Usage: "The number of deployment objects that are allowed to sync concurrently. Larger number = more responsive deployments, but more CPU (and network) load"},
		Constructor: New,
	}
}

// Controller holds what a sync reads and writes. It has no goroutines of
// its own: ctrl.Loop runs Sync.
type Controller struct {
	deployments informer.DeploymentLister
	replicaSets informer.ReplicaSetLister
	pods        informer.PodLister
	owners      ctrl.Owners[*api.Deployment]
	rsOwners    ctrl.Owners[*api.ReplicaSet]
	dClient     *rest.Resources[*api.Deployment]
	rsClient    *rest.Resources[*api.ReplicaSet]
	rsRaw       *rest.Resources[*api.RawObject]
	dRaw        *rest.Resources[*api.RawObject]
	events      ctrl.EventRecorder
	clock       clock.Clock
	log         zerolog.Logger
}

// Config is what NewController needs.
type Config struct {
	Deployments informer.DeploymentLister
	ReplicaSets informer.ReplicaSetLister
	Pods        informer.PodLister
	Client      *rest.Client
	Events      ctrl.EventRecorder // nil: none recorded
	Clock       clock.Clock        // nil: real
	Logger      zerolog.Logger
}

// NewController returns the controller's state (tests build it directly).
func NewController(cfg Config) *Controller {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Events == nil {
		cfg.Events = ctrl.NopRecorder{}
	}
	return &Controller{
		deployments: cfg.Deployments, replicaSets: cfg.ReplicaSets, pods: cfg.Pods,
		owners:   ctrl.OwnersOf(rest.Deployments, cfg.Deployments.Lister),
		rsOwners: ctrl.OwnersOf(rest.ReplicaSets, cfg.ReplicaSets.Lister),
		dClient:  rest.NewResources(cfg.Client, rest.Deployments, decode.Typed[api.Deployment]()),
		rsClient: rest.NewResources(cfg.Client, rest.ReplicaSets, decode.Typed[api.ReplicaSet]()),
		// JSON only (decode.Raw, not Wire): the writes of objects read
		// as JSON — a new ReplicaSet's body and a rollback's edit are
		// JSON built from the template as read. Objects read as
		// protobuf are written as protobuf messages through dClient and
		// rsClient instead (newrs.go, rollback.go).
		rsRaw:  rest.NewResources(cfg.Client, rest.ReplicaSets, decode.Raw()),
		dRaw:   rest.NewResources(cfg.Client, rest.Deployments, decode.Raw()),
		events: cfg.Events, clock: cfg.Clock, log: cfg.Logger,
	}
}

// New is the ControllerConstructor: it watches Deployments, ReplicaSets
// and pods through the shared factory with the handlers that feed the
// loop, and gives the controller its own client and event broadcaster.
func New(_ context.Context, cc ctrl.ControllerContext, name string) (ctrl.Controller, error) {
	client := cc.ClientFor(name)
	events := cc.NewBroadcaster(client)
	w := cc.Wire(name, ctrl.LoopOptions{Events: events, MaxRetries: MaxRetries})
	h := &handlers{q: w.Queue(), log: cc.LoggerFor(name)} // h.c is set below, before Build registers h
	deployments := ctrl.Watch(w, rest.Deployments, processor.HandlerFuncs[*api.Deployment]{
		AddFunc: h.addDeployment, UpdateFunc: h.updateDeployment, DeleteFunc: h.deleteDeployment,
	})
	replicaSets := ctrl.Watch(w, rest.ReplicaSets, processor.HandlerFuncs[*api.ReplicaSet]{
		AddFunc: h.addReplicaSet, UpdateFunc: h.updateReplicaSet, DeleteFunc: h.deleteReplicaSet,
	})
	pods := ctrl.Watch(w, rest.Pods, processor.HandlerFuncs[*api.Pod]{DeleteFunc: h.deletePod})
	h.c = NewController(Config{
		Deployments: informer.DeploymentLister{Lister: deployments},
		ReplicaSets: informer.ReplicaSetLister{Lister: replicaSets},
		Pods:        informer.PodLister{Lister: pods},
		Client:      client, Events: events.NewRecorder(Component),
		Clock: cc.Clock, Logger: cc.LoggerFor(name),
	})
	return w.Build(h.c.Sync)
}

// syncer is one sync of one Deployment: the controller plus what the sync
// asks of the loop afterwards.
type syncer struct {
	*Controller
	// requeue > 0 asks for another sync after it (the progress deadline).
	requeue time.Duration
}

// Sync reconciles the Deployment named key ("namespace/name")
// (syncDeployment): adopt and release ReplicaSets, then, in this order of
// precedence, status only for a Deployment being deleted, scaling only for
// a paused one, a rollback request, a scaling event, or a rollout by the
// strategy.
func (c *Controller) Sync(ctx context.Context, key string) (ctrl.Result, error) {
	s := &syncer{Controller: c}
	err := s.syncDeployment(ctx, key)
	if rest.IsNamespaceTerminating(err) {
		return ctrl.Result{}, nil // the namespace is going away; nothing to retry
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: s.requeue}, nil
}

func (s *syncer) syncDeployment(ctx context.Context, key string) error {
	ns, name := splitKey(key)
	cached, err := s.deployments.Deployments(ns).Get(name)
	if rest.IsNotFound(err) {
		return nil // deleted; its ReplicaSets belong to the garbage collector
	}
	if err != nil {
		return err
	}
	d, err := api.DeepCopy(cached)
	if err != nil {
		return err
	}
	if selectsAll(d.Spec.Selector) {
		s.events.Eventf(ref(d), api.EventTypeWarning, ReasonSelectingAll,
			"This deployment is selecting all pods. A non-empty selector is required.")
		if d.Status.ObservedGeneration < d.Generation {
			d.Status.ObservedGeneration = d.Generation
			_ = s.updateStatus(ctx, d) // kube-controller-manager ignores this error too
		}
		return nil
	}
	rsList, err := s.claimReplicaSets(ctx, d)
	if err != nil {
		return err
	}
	if d.DeletionTimestamp != nil {
		return s.syncStatusOnly(ctx, d, rsList)
	}
	if err := s.checkPausedConditions(ctx, d); err != nil {
		return err
	}
	if d.Spec.Paused {
		return s.sync(ctx, d, rsList)
	}
	if rollbackTo(d) != nil {
		return s.rollback(ctx, d, rsList)
	}
	scaling, err := s.isScalingEvent(ctx, d, rsList)
	if err != nil {
		return err
	}
	if scaling {
		return s.sync(ctx, d, rsList)
	}
	switch d.Spec.Strategy.Type {
	case api.RecreateDeploymentStrategyType:
		return s.rolloutRecreate(ctx, d, rsList)
	case api.RollingUpdateDeploymentStrategyType:
		return s.rolloutRolling(ctx, d, rsList)
	}
	return fmt.Errorf("%w: %q", ErrUnknownStrategy, d.Spec.Strategy.Type)
}

// selectsAll reports whether sel is the empty, non-nil selector.
func selectsAll(sel *api.LabelSelector) bool {
	return sel != nil && len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0
}

// claimReplicaSets returns the ReplicaSets d controls, with their
// templates, after adopting matching orphans and releasing owned ones
// that no longer match (getReplicaSetsForDeployment).
func (s *syncer) claimReplicaSets(ctx context.Context, d *api.Deployment) ([]owned, error) {
	sel, err := labels.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("deployment %s/%s has invalid label selector: %w: %w", d.Namespace, d.Name, ErrInvalidSelector, err)
	}
	all := s.replicaSets.ReplicaSets(d.Namespace).List(labels.Everything())
	rsc := s.rsClient.InNamespace(d.Namespace)
	m := controllerref.NewManager[*api.ReplicaSet](controllerref.OwnerOf(d, "apps/v1", "Deployment"), sel,
		controllerref.PatcherFor(rsc), controllerref.RecheckDeletionTimestamp(d.UID, func(ctx context.Context) (*api.ObjectMeta, error) {
			fresh, err := s.dClient.InNamespace(d.Namespace).Get(ctx, d.Name)
			if rest.IsNotFound(err) {
				// Not wrapped: a NotFound here would read as "the
				// ReplicaSet is gone" to the claim, which would then skip
				// it quietly instead of failing the sync.
				return nil, fmt.Errorf("%w: deployment %s: %v", ErrDeploymentGone, d.Key(), err)
			}
			if err != nil {
				return nil, err
			}
			return &fresh.ObjectMeta, nil
		}))
	claimed, err := m.Claim(ctx, all)
	if err != nil {
		return nil, err
	}
	out := make([]owned, 0, len(claimed))
	for _, rs := range claimed {
		t, err := templateOf(rs, &rs.Spec.Template)
		if err != nil {
			return nil, fmt.Errorf("replica set %s/%s: %w", rs.Namespace, rs.Name, err)
		}
		out = append(out, owned{rs: rs, template: t})
	}
	return out, nil
}

// ref is the Event reference of a Deployment.
func ref(d *api.Deployment) api.ObjectReference { return ctrl.Ref(rest.Deployments, d) }

// splitKey splits "namespace/name".
func splitKey(key string) (ns, name string) {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			return key[:i], key[i+1:]
		}
	}
	return "", key
}

// updateStatus writes d's status (and annotations, which the status
// subresource of Deployments accepts) and carries the server's
// resourceVersion and JSON back into d, keeping d's spec as this sync saw
// it, so that later writes of the same sync do not conflict with it.
func (s *syncer) updateStatus(ctx context.Context, d *api.Deployment) error {
	fresh, err := s.dClient.UpdateStatus(ctx, d)
	if err != nil {
		return err
	}
	spec := d.Spec
	*d = *fresh
	d.Spec = spec
	return nil
}
