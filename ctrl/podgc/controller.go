package podgc

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// Name is the controller's canonical name, kube-controller-manager's
// (names.PodGarbageCollectorController).
const Name = "pod-garbage-collector-controller"

// ClientName is the name of the controller's client, its User-Agent and
// its RBAC role's (system:controller:pod-garbage-collector), as
// kube-controller-manager names them.
const ClientName = "pod-garbage-collector"

// ThresholdFlag is the flag of the terminated-pods rule.
const ThresholdFlag = "terminated-pod-gc-threshold"

// Defaults, kube-controller-manager's.
const (
	// DefaultTerminatedPodGCThreshold is --terminated-pod-gc-threshold's
	// default.
	DefaultTerminatedPodGCThreshold = 12500
	// CheckPeriod is how often a pass runs (gcCheckPeriod), counted
	// from the end of the previous one.
	CheckPeriod = 20 * time.Second
	// QuarantineTime is how long a node missing from the cache is given to
	// appear there before the apiserver is asked about it (quarantineTime).
	QuarantineTime = 40 * time.Second
)

// passKey is the loop's only key: one pass over every pod.
const passKey = "pods"

// Descriptor registers the controller: on by default, alias "podgc",
// --terminated-pod-gc-threshold, one worker (kube-controller-manager runs
// one goroutine).
func Descriptor() *ctrl.ControllerDescriptor {
	return &ctrl.ControllerDescriptor{
		Name: Name, Aliases: []string{"podgc"},
		Flags: []ctrl.ControllerFlag{
			ctrl.Int32Flag(ThresholdFlag, DefaultTerminatedPodGCThreshold, math.MinInt32, math.MaxInt32,
				"Number of terminated pods that can exist before the terminated pod garbage collector starts deleting "+
					"terminated pods. If <= 0, the terminated pod garbage collector is disabled."),
		},
		Constructor: New,
	}
}

// Config holds what a Controller needs besides its listers and client.
type Config struct {
	// Clock drives the period and the quarantine and stamps the
	// DisruptionTarget condition; nil means real.
	Clock clock.Clock
	// Logger gets the force deletions (info), their failures (error) and
	// each pass's counts (debug).
	Logger zerolog.Logger
	// Metrics counts the force deletions; nil counts none.
	Metrics *Metrics
	// TerminatedPodGCThreshold is --terminated-pod-gc-threshold: how many
	// terminated pods may exist before the oldest are deleted; 0 or less
	// turns that rule off (and only that rule).
	TerminatedPodGCThreshold int
	// CheckPeriod is the time between passes; 0 means CheckPeriod.
	CheckPeriod time.Duration
	// QuarantineTime is the orphan rule's wait for a missing node; 0
	// means QuarantineTime, a negative value none.
	QuarantineTime time.Duration
}

// Controller holds what a pass reads and writes. It has no goroutines of
// its own: a ctrl.Loop runs Sync on its one key, which asks to be run
// again CheckPeriod later.
type Controller struct {
	pods  informer.PodLister
	nodes informer.NodeLister
	// podClient patches status and deletes; nodeClient makes the live GET
	// of the quarantine. Both read metadata at most (decode.Wire: protobuf
	// on a protobuf client).
	podClient  *rest.Resources[*api.RawObject]
	nodeClient *rest.Resources[*api.RawObject]
	clock      clock.Clock
	log        zerolog.Logger
	metrics    *Metrics
	threshold  int
	period     time.Duration
	quarantine time.Duration

	// mu makes passes one at a time (the loop's one key already does).
	mu sync.Mutex
	// waiting is the quarantine record, under mu.
	waiting quarantine
}

// NewController returns the controller on the given listers and client
// (tests build it directly; New wires it to the informers).
func NewController(pods informer.PodLister, nodes informer.NodeLister, client *rest.Client, cfg Config) *Controller {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.CheckPeriod <= 0 {
		cfg.CheckPeriod = CheckPeriod
	}
	if cfg.QuarantineTime == 0 {
		cfg.QuarantineTime = QuarantineTime
	} else if cfg.QuarantineTime < 0 {
		cfg.QuarantineTime = 0
	}
	return &Controller{
		pods: pods, nodes: nodes,
		podClient:  rest.NewResources(client, rest.Pods, decode.Wire()),
		nodeClient: rest.NewResources(client, rest.Nodes, decode.Wire()).MetadataOnly(),
		clock:      cfg.Clock, log: cfg.Logger, metrics: cfg.Metrics,
		threshold: cfg.TerminatedPodGCThreshold, period: cfg.CheckPeriod, quarantine: cfg.QuarantineTime,
		waiting: quarantine{},
	}
}

// New is the ControllerConstructor: the threshold from
// --terminated-pod-gc-threshold, kube-controller-manager's period and
// quarantine.
func New(ctx context.Context, cc ctrl.ControllerContext, name string) (ctrl.Controller, error) {
	cfg := Config{TerminatedPodGCThreshold: int(cc.Int32Flag(ThresholdFlag, DefaultTerminatedPodGCThreshold))}
	return Constructor(cfg)(ctx, cc, name)
}

// Constructor returns a ControllerConstructor that builds the controller
// with cfg as given — threshold, period and quarantine included (upstream's
// NewPodGCInternal, for tests that cannot wait 40 seconds) — but for the
// clock and logger, which are the context's (one clock for the whole
// manager), and the metrics, the context's registry's where cfg has none. It watches pods
// and nodes without handlers: a pass reads the whole cache, so no
// notification needs a key; the loop waits for both caches, then runs
// the first pass at once.
func Constructor(cfg Config) ctrl.ControllerConstructor {
	return func(_ context.Context, cc ctrl.ControllerContext, name string) (ctrl.Controller, error) {
		// The metrics first: a failure must not leave a loop (and its
		// queue's goroutine) behind.
		if cfg.Metrics == nil {
			if reg := cc.Metrics.Registerer(); reg != nil {
				m, err := NewMetrics(reg)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", name, err)
				}
				cfg.Metrics = m
			}
		}
		cfg.Clock, cfg.Logger = cc.Clock, cc.LoggerFor(name)
		w := cc.Wire(name, ctrl.LoopOptions{})
		pods := ctrl.Watch[api.Pod](w, rest.Pods, nil)
		nodes := ctrl.Watch[api.Node](w, rest.Nodes, nil)
		c := NewController(informer.PodLister{Lister: pods}, informer.NodeLister{Lister: nodes}, cc.ClientFor(ClientName), cfg)
		w.Queue().Add(passKey)
		return w.Build(c.Sync)
	}
}

// Sync runs one pass (Pass) and asks to be run again one period after it
// ended, as wait.UntilWithContext runs gc: a pass never overlaps the next,
// and a long pass delays it. The key is ignored; a pass never fails (its
// errors are logged and counted, and the next pass retries).
func (c *Controller) Sync(ctx context.Context, _ string) (ctrl.Result, error) {
	c.Pass(ctx)
	return ctrl.Result{RequeueAfter: c.period}, nil
}
