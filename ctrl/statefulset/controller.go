package statefulset

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
)

// Name is the controller's canonical name, kube-controller-manager's; it
// is also the source component of its events.
const Name = "statefulset-controller"

// DefaultWorkers is --concurrent-statefulset-syncs' default.
const DefaultWorkers = 5

// ConcurrencyFlagName is the worker-count flag, as kube-controller-manager
// spells it.
const ConcurrencyFlagName = "concurrent-statefulset-syncs"

// Descriptor registers the controller: on by default, alias
// "statefulset", workers from --concurrent-statefulset-syncs, which
// kube-controller-manager refuses below 1 (its
// StatefulSetControllerOptions.Validate).
func Descriptor() *ctrl.ControllerDescriptor {
	return &ctrl.ControllerDescriptor{
		Name: Name, Aliases: []string{"statefulset"},
		Concurrency: &ctrl.ConcurrencyFlag{
			Name: ConcurrencyFlagName, Default: DefaultWorkers, Min: 1,
			Usage: "The number of statefulset objects that are allowed to sync concurrently. " +
				"Larger number = more responsive statefulsets, but more CPU (and network) load",
		},
		Constructor: New,
	}
}

// Config holds what a Controller needs besides its listers and client.
type Config struct {
	// Clock tells pod availability and the next availability check; nil
	// means real.
	Clock clock.Clock
	// Logger gets the controller's debug lines and its errors.
	Logger zerolog.Logger
	// Recorder records the pod and claim events; nil records none.
	Recorder ctrl.EventRecorder
	// Metrics are the statefulset_controller_statefulset_* gauges; nil
	// records none.
	Metrics *Metrics
	// StaleSkips counts the syncs skipped because a cache was older than
	// the controller's own last write
	// (statefulset_controller_stale_sync_skips_total); nil counts none.
	StaleSkips *ctrl.StaleSkips
	// NoStaleCheck turns that check off (kube-controller-manager's
	// StaleControllerConsistencyStatefulSet gate, on by default since
	// 1.36).
	NoStaleCheck bool
}

// The resources whose caches the stale-controller check compares with the
// controller's writes (upstream's three: pods, claims, StatefulSets).
var (
	podsResource   = ctrl.GroupResourceOf(rest.Pods)
	claimsResource = ctrl.GroupResourceOf(rest.PersistentVolumeClaims)
	setsResource   = ctrl.GroupResourceOf(rest.StatefulSets)
)

// statefulSetControl is what a sync hands a claimed set and its pods to
// (upstream's StatefulSetControlInterface): *setControl, or a test's fake.
type statefulSetControl interface {
	UpdateStatefulSet(ctx context.Context, set *api.StatefulSet, pods []*api.Pod, now time.Time) (*api.StatefulSetStatus, error)
	ListRevisions(set *api.StatefulSet) ([]*api.ControllerRevision, error)
	AdoptOrphanRevisions(ctx context.Context, set *api.StatefulSet, revisions []*api.ControllerRevision) error
}

// Controller holds what a sync reads and writes. It has no goroutines of
// its own: a ctrl.Loop runs Sync.
type Controller struct {
	setLister informer.StatefulSetLister
	podLister informer.PodLister
	owners    ctrl.Owners[*api.StatefulSet]
	// setClient reads a set fresh before adopting (canAdopt).
	setClient *rest.Resources[*api.StatefulSet]
	// podClient patches pods to adopt or release them.
	podClient *rest.Resources[*api.Pod]
	control   statefulSetControl
	// consistency holds a set's sync back while a cache is older than
	// the controller's own last write for it; nil when off.
	consistency *ctrl.Consistency
	metrics     *Metrics
	clock       clock.Clock
	log         zerolog.Logger
}

// NewController returns the controller on the given listers and client
// (tests build it directly; New wires it to the informers).
func NewController(sets informer.StatefulSetLister, pods informer.PodLister, revisions informer.ControllerRevisionLister,
	claims informer.PersistentVolumeClaimLister, client *rest.Client, cfg Config) *Controller {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Recorder == nil {
		cfg.Recorder = ctrl.NopRecorder{}
	}
	var consistency *ctrl.Consistency
	if !cfg.NoStaleCheck {
		consistency = ctrl.NewConsistency(map[ctrl.GroupResource]ctrl.ResourceVersionSource{
			podsResource: pods, claimsResource: claims, setsResource: sets,
		}, cfg.StaleSkips)
	}
	setClient := rest.NewResources(client, rest.StatefulSets, decode.Typed[api.StatefulSet]())
	// Every write made for a set records its resourceVersion for the
	// stale-controller check: pod and claim writes (the pod control),
	// status writes (the set control), adoptions (podPatcher).
	cc := controlConfig{
		Pods:        newPodControl(client, pods, claims, cfg.Recorder, cfg.Logger).withConsistency(consistency),
		Revisions:   newRevisionControl(client, revisions, cfg.Logger),
		SetClient:   setClient,
		Sets:        &sets,
		Consistency: consistency,
		Recorder:    cfg.Recorder,
		Log:         cfg.Logger,
	}
	if cfg.Metrics != nil { // a nil *Metrics in the interface would not be nil
		cc.Metrics = cfg.Metrics
	}
	return &Controller{
		setLister: sets, podLister: pods,
		owners:      ctrl.OwnersOf(rest.StatefulSets, sets.Lister),
		setClient:   setClient,
		podClient:   rest.NewResources(client, rest.Pods, decode.Typed[api.Pod]()),
		control:     newSetControl(cc),
		consistency: consistency,
		metrics:     cfg.Metrics,
		clock:       cfg.Clock,
		log:         cfg.Logger,
	}
}

// New is the ControllerConstructor: it watches StatefulSets and pods
// through the shared factory with the handlers that feed the loop, reads
// ControllerRevisions and PersistentVolumeClaims from their shared caches
// (no handler, as upstream: the loop waits for them to sync), and gives
// the controller its own client, event broadcaster and metrics.
func New(_ context.Context, cc ctrl.ControllerContext, name string) (ctrl.Controller, error) {
	client := cc.ClientFor(name)
	events := cc.NewBroadcaster(client)
	w := cc.Wire(name, ctrl.LoopOptions{Events: events})
	h := &handlers{q: w.Queue()} // h.c is set below, before Build registers h
	sets := ctrl.Watch(w, rest.StatefulSets, processor.HandlerFuncs[*api.StatefulSet]{
		AddFunc: h.addSet, UpdateFunc: h.updateSet, DeleteFunc: h.deleteSet,
	})
	pods := ctrl.Watch(w, rest.Pods, processor.HandlerFuncs[*api.Pod]{
		AddFunc: h.addPod, UpdateFunc: h.updatePod, DeleteFunc: h.deletePod,
	})
	claims := ctrl.Watch[api.PersistentVolumeClaim](w, rest.PersistentVolumeClaims, nil)
	revisions := ctrl.Watch[api.ControllerRevision](w, rest.ControllerRevisions, nil)
	skips, err := cc.Metrics.StaleSyncSkips("statefulset_controller", "StatefulSet")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var metrics *Metrics
	if reg := cc.Metrics.Registerer(); reg != nil {
		if metrics, err = NewMetrics(reg); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	h.c = NewController(informer.StatefulSetLister{Lister: sets}, informer.PodLister{Lister: pods},
		informer.ControllerRevisionLister{Lister: revisions}, informer.PersistentVolumeClaimLister{Lister: claims},
		client, Config{Clock: cc.Clock, Logger: cc.LoggerFor(name), Recorder: events.NewRecorder(Name),
			Metrics: metrics, StaleSkips: skips})
	return w.Build(h.c.Sync)
}
